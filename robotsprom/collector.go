package robotsprom

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/pay"
)

const namespace = "robotsguard"

// DefaultFetchBuckets are the upper bounds, in seconds, of the buckets of
// the robots.txt fetch duration histogram: from 10 ms to the default
// FetchTimeout of 30 s.
var DefaultFetchBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// DefaultWaitBuckets are the upper bounds, in seconds, of the buckets of
// the pacing wait histogram: from 100 ms to the default MaxThrottle of 10
// minutes.
var DefaultWaitBuckets = []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600}

// Options configure a Collector. The zero Options (or a nil *Options) mean
// no constant labels and the default buckets.
type Options struct {
	// ConstLabels are added to every metric, to tell apart the
	// Transports of a process that register with one registry
	// (prometheus.Labels{"crawler": "news"}). Nil means none.
	ConstLabels prometheus.Labels

	// FetchBuckets are the upper bounds, in seconds, of the buckets of
	// robotsguard_robots_fetch_duration_seconds. Nil means
	// DefaultFetchBuckets.
	FetchBuckets []float64

	// WaitBuckets are the upper bounds, in seconds, of the buckets of
	// robotsguard_pacing_wait_seconds. Nil means DefaultWaitBuckets.
	WaitBuckets []float64
}

// A Collector is a prometheus.Collector of a robotsguard.Transport's
// metrics (see the package documentation for the list). Register it with
// a prometheus.Registerer, and set the Observer it returns as the
// Transport's Observer.
//
// A Collector is safe for concurrent use. The zero Collector is not
// usable: create one with NewCollector.
type Collector struct {
	t *robotsguard.Transport

	fetches       *prometheus.CounterVec
	fetchDuration *prometheus.HistogramVec
	refusals      *prometheus.CounterVec
	waits         *prometheus.HistogramVec
	capped        prometheus.Counter
	charges       *prometheus.CounterVec
	spent         *prometheus.CounterVec

	// Read from t.Stats() at each scrape.
	checks, misses, evictions, entries, size, storeErrors *prometheus.Desc
}

// NewCollector returns a Collector of the metrics of t. It does not change
// t: set t.Observer to the Collector's Observer before t's first request.
// A nil t leaves out the metrics read from Stats, for a Collector whose
// Observer is shared by several Transports; a nil opts means the zero
// Options.
func NewCollector(t *robotsguard.Transport, opts *Options) *Collector {
	if opts == nil {
		opts = &Options{}
	}
	fetchBuckets, waitBuckets := opts.FetchBuckets, opts.WaitBuckets
	if fetchBuckets == nil {
		fetchBuckets = DefaultFetchBuckets
	}
	if waitBuckets == nil {
		waitBuckets = DefaultWaitBuckets
	}
	labels := opts.ConstLabels
	c := &Collector{
		t: t,
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "robots_fetches_total", ConstLabels: labels,
			Help: "Fetches of robots.txt files and ACAP permissions references, and entries taken from the Store, by outcome and status class.",
		}, []string{"outcome", "status_class"}),
		fetchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "robots_fetch_duration_seconds", ConstLabels: labels, Buckets: fetchBuckets,
			Help: "Time taken by fetches of robots.txt files and ACAP permissions references, retries included, by outcome.",
		}, []string{"outcome"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "refusals_total", ConstLabels: labels,
			Help: "Requests refused (by RoundTrip or Check), by reason.",
		}, []string{"reason"}),
		waits: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "pacing_wait_seconds", ConstLabels: labels, Buckets: waitBuckets,
			Help: "Pauses requests had to take to pace requests to an origin, by cause (pace or backoff) and result (waited or gave_up).",
		}, []string{"cause", "result"}),
		capped: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "delays_capped_total", ConstLabels: labels,
			Help: "Origins whose robots.txt asks for a Crawl-delay or Request-rate above MaxDelay, crawled at MaxDelay (once per origin and file).",
		}),
		charges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "payment_charges_total", ConstLabels: labels,
			Help: "Responses charged for (pay-per-crawl crawler-charged), by origin and result (ok, or overcharged: above the offer, unreadable or unasked).",
		}, []string{"origin", "result"}),
		spent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "payment_spent_total", ConstLabels: labels,
			Help: "Amounts charged for responses (pay-per-crawl crawler-charged), in units of the currency, by origin and currency.",
		}, []string{"origin", "currency"}),
	}
	for _, r := range reasonLabels {
		if r != "" {
			c.refusals.WithLabelValues(r) // each known reason starts at zero
		}
	}
	if t != nil {
		desc := func(name, help string) *prometheus.Desc {
			return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, nil, labels)
		}
		c.checks = desc("checks_total", "Requests checked against robots.txt (RoundTrip and Check), requests for /robots.txt aside.")
		c.misses = desc("cache_misses_total", "Lookups that found no fresh rules in memory and waited for a fetch or the Store.")
		c.evictions = desc("cache_evictions_total", "Entries dropped from the in-memory cache to stay within its size.")
		c.entries = desc("cache_entries", "Entries in the in-memory cache: origins, and ACAP permissions references.")
		c.size = desc("cache_size_bytes", "Estimated size of the entries in the in-memory cache.")
		c.storeErrors = desc("store_errors_total", "Store calls that failed, panicked or timed out.")
	}
	return c
}

// Observer returns an Observer that records into c and then calls next's
// functions, those that are not nil; next may be nil. Set it as the
// Transport's Observer, keeping the one it had:
//
//	t.Observer = c.Observer(t.Observer)
func (c *Collector) Observer(next *robotsguard.Observer) *robotsguard.Observer {
	return &robotsguard.Observer{
		Fetched: func(ev robotsguard.FetchEvent) {
			c.fetched(ev)
			if next != nil && next.Fetched != nil {
				next.Fetched(ev)
			}
		},
		Refused: func(e *robotsguard.DisallowedError) {
			c.refusals.WithLabelValues(reasonLabel(e.Reason)).Inc()
			if next != nil && next.Refused != nil {
				next.Refused(e)
			}
		},
		Waited: func(ev robotsguard.WaitEvent) {
			c.waited(ev)
			if next != nil && next.Waited != nil {
				next.Waited(ev)
			}
		},
		DelayCapped: func(ev robotsguard.DelayEvent) {
			c.capped.Inc()
			if next != nil && next.DelayCapped != nil {
				next.DelayCapped(ev)
			}
		},
		Charged: func(ch pay.Charge) {
			c.charged(ch)
			if next != nil && next.Charged != nil {
				next.Charged(ch)
			}
		},
	}
}

func (c *Collector) charged(ch pay.Charge) {
	result := "ok"
	if ch.Over {
		result = "overcharged"
	}
	c.charges.WithLabelValues(ch.Origin, result).Inc()
	if !ch.Price.IsZero() {
		c.spent.WithLabelValues(ch.Origin, ch.Price.Currency).Add(float64(ch.Price.Micros) / pay.Micro)
	}
}

func (c *Collector) fetched(ev robotsguard.FetchEvent) {
	outcome := outcomeLabel(ev.Outcome)
	c.fetches.WithLabelValues(outcome, statusClass(ev.Status)).Inc()
	if ev.Outcome != robotsguard.OutcomeFromStore {
		c.fetchDuration.WithLabelValues(outcome).Observe(ev.Duration.Seconds())
	}
}

func (c *Collector) waited(ev robotsguard.WaitEvent) {
	cause, result := "pace", "waited"
	if ev.Throttled {
		cause = "backoff"
	}
	if ev.Err != nil {
		result = "gave_up"
	}
	c.waits.WithLabelValues(cause, result).Observe(ev.Wait.Seconds())
}

// Describe sends the descriptors of c's metrics to ch.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	c.fetches.Describe(ch)
	c.fetchDuration.Describe(ch)
	c.refusals.Describe(ch)
	c.waits.Describe(ch)
	c.capped.Describe(ch)
	c.charges.Describe(ch)
	c.spent.Describe(ch)
	if c.t != nil {
		for _, d := range []*prometheus.Desc{c.checks, c.misses, c.evictions, c.entries, c.size, c.storeErrors} {
			ch <- d
		}
	}
}

// Collect sends c's metrics to ch, reading the Transport's Stats.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.fetches.Collect(ch)
	c.fetchDuration.Collect(ch)
	c.refusals.Collect(ch)
	c.waits.Collect(ch)
	c.capped.Collect(ch)
	c.charges.Collect(ch)
	c.spent.Collect(ch)
	if c.t == nil {
		return
	}
	s := c.t.Stats()
	ch <- prometheus.MustNewConstMetric(c.checks, prometheus.CounterValue, float64(s.Checked))
	ch <- prometheus.MustNewConstMetric(c.misses, prometheus.CounterValue, float64(s.CacheMisses))
	ch <- prometheus.MustNewConstMetric(c.evictions, prometheus.CounterValue, float64(s.Evictions))
	ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(s.Entries))
	ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(s.CacheBytes))
	ch <- prometheus.MustNewConstMetric(c.storeErrors, prometheus.CounterValue, float64(s.StoreErrors))
}

// reasonLabels are the label values of the Reasons this package knows.
var reasonLabels = [...]string{
	robotsguard.ReasonRule:          "rule",
	robotsguard.ReasonUnreachable:   "unreachable",
	robotsguard.ReasonStatus:        "status",
	robotsguard.ReasonACAP:          "acap",
	robotsguard.ReasonACAPReference: "acap_reference",
	robotsguard.ReasonDelay:         "delay",
}

// reasonLabel returns the label value of r: "other" for a Reason added to
// robotsguard after this package was written.
func reasonLabel(r robotsguard.Reason) string {
	if int(r) < len(reasonLabels) && reasonLabels[r] != "" {
		return reasonLabels[r]
	}
	return "other"
}

// outcomeLabel returns the label value of o: its name with underscores
// for spaces, or "other" for an Outcome without a name.
func outcomeLabel(o robotsguard.FetchOutcome) string {
	switch o {
	case robotsguard.OutcomeFetched:
		return "fetched"
	case robotsguard.OutcomeRevalidated:
		return "revalidated"
	case robotsguard.OutcomeServedStale:
		return "served_stale"
	case robotsguard.OutcomeFailed:
		return "failed"
	case robotsguard.OutcomeFromStore:
		return "from_store"
	}
	name := o.String()
	if strings.HasPrefix(name, "Outcome(") {
		return "other"
	}
	return strings.ReplaceAll(name, " ", "_")
}

// statusClass returns the class of an HTTP status, "2xx" for 200–299, or
// "none" for 0 (no response), or "other".
func statusClass(status int) string {
	switch {
	case status == 0:
		return "none"
	case status >= 100 && status < 600:
		return [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}[status/100-1]
	}
	return "other"
}
