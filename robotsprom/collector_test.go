package robotsprom_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/pay"
	"github.com/robotsguard/robotsguard/robotsprom"
)

// clock is a fake robotsguard.Clock: Sleep moves it on at once.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return nil
}

// site serves robotsTxt at /robots.txt (or status robotsStatus there, if
// not 0), a 503 asking for a 7-second back-off at /busy, and "hello"
// elsewhere.
func site(t *testing.T, robotsStatus int, robotsTxt string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt" && robotsStatus != 0:
			w.WriteHeader(robotsStatus)
		case r.URL.Path == "/robots.txt":
			io.WriteString(w, robotsTxt)
		case r.URL.Path == "/busy":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			io.WriteString(w, "hello")
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// newTransport returns a Transport on a fake clock that sends through its
// own connections, does not retry robots.txt fetches and paces only by
// robots.txt.
func newTransport(t *testing.T) *robotsguard.Transport {
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	return &robotsguard.Transport{
		Base:      base,
		UserAgent: "TestBot/1.0",
		Clock:     &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)},
		Delay:     -1,
		RetryMax:  -1,
	}
}

// get sends a GET for url through tr, with ctx, and returns the refusal,
// if any. Other errors fail the test, unless they are allowed.
func get(t *testing.T, tr *robotsguard.Transport, ctx context.Context, url string) *robotsguard.DisallowedError {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		var d *robotsguard.DisallowedError
		if errors.As(err, &d) {
			return d
		}
		if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("GET %s: %v", url, err)
		}
		return nil
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil
}

func TestCollector(t *testing.T) {
	open := site(t, 0, "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n")
	down := site(t, http.StatusServiceUnavailable, "")
	tr := newTransport(t)

	// An Observer set before is kept.
	var mu sync.Mutex
	var heard []string
	tr.Observer = &robotsguard.Observer{Refused: func(d *robotsguard.DisallowedError) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, d.Reason.String())
	}}
	c := robotsprom.NewCollector(tr, nil)
	tr.Observer = c.Observer(tr.Observer)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)

	ctx := context.Background()
	get(t, tr, ctx, open.URL+"/") // fetches robots.txt; the first request does not wait
	if d := get(t, tr, ctx, open.URL+"/private/x"); d == nil || d.Reason != robotsguard.ReasonRule {
		t.Fatalf("/private/x: refusal %v, want one by a rule", d)
	}
	get(t, tr, ctx, open.URL+"/busy") // waits 2s for the Crawl-delay, and gets a 503: 7s of back-off
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	get(t, tr, short, open.URL+"/a") // must wait 7s, has 1s of real time: gives up at once
	get(t, tr, ctx, open.URL+"/b")   // waits the 7s
	if d := get(t, tr, ctx, down.URL+"/"); d == nil || d.Reason != robotsguard.ReasonUnreachable {
		t.Fatalf("down: refusal %v, want one for an unreachable robots.txt", d)
	}

	const events = `
# HELP robotsguard_refusals_total Requests refused (by RoundTrip or Check), by reason.
# TYPE robotsguard_refusals_total counter
robotsguard_refusals_total{reason="acap"} 0
robotsguard_refusals_total{reason="acap_reference"} 0
robotsguard_refusals_total{reason="delay"} 0
robotsguard_refusals_total{reason="rule"} 1
robotsguard_refusals_total{reason="status"} 0
robotsguard_refusals_total{reason="unreachable"} 1
# HELP robotsguard_robots_fetches_total Fetches of robots.txt files and ACAP permissions references, and entries taken from the Store, by outcome and status class.
# TYPE robotsguard_robots_fetches_total counter
robotsguard_robots_fetches_total{outcome="failed",status_class="5xx"} 1
robotsguard_robots_fetches_total{outcome="fetched",status_class="2xx"} 1
# HELP robotsguard_pacing_wait_seconds Pauses requests had to take to pace requests to an origin, by cause (pace or backoff) and result (waited or gave_up).
# TYPE robotsguard_pacing_wait_seconds histogram
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="0.1"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="0.25"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="0.5"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="1"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="2"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="5"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="10"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="30"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="60"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="120"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="300"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="600"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="gave_up",le="+Inf"} 1
robotsguard_pacing_wait_seconds_sum{cause="backoff",result="gave_up"} 7
robotsguard_pacing_wait_seconds_count{cause="backoff",result="gave_up"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="0.1"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="0.25"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="0.5"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="1"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="2"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="5"} 0
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="10"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="30"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="60"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="120"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="300"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="600"} 1
robotsguard_pacing_wait_seconds_bucket{cause="backoff",result="waited",le="+Inf"} 1
robotsguard_pacing_wait_seconds_sum{cause="backoff",result="waited"} 7
robotsguard_pacing_wait_seconds_count{cause="backoff",result="waited"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="0.1"} 0
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="0.25"} 0
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="0.5"} 0
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="1"} 0
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="2"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="5"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="10"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="30"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="60"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="120"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="300"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="600"} 1
robotsguard_pacing_wait_seconds_bucket{cause="pace",result="waited",le="+Inf"} 1
robotsguard_pacing_wait_seconds_sum{cause="pace",result="waited"} 2
robotsguard_pacing_wait_seconds_count{cause="pace",result="waited"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(events),
		"robotsguard_refusals_total", "robotsguard_robots_fetches_total", "robotsguard_pacing_wait_seconds"); err != nil {
		t.Error(err)
	}

	// Durations are the fake clock's: no time passes during a fetch.
	if n := testutil.CollectAndCount(c, "robotsguard_robots_fetch_duration_seconds"); n != 2 {
		t.Errorf("%d fetch duration series, want 2 (fetched, failed)", n)
	}

	// Read from Stats at scrape time: six requests checked, two
	// origins fetched and held.
	const stats = `
# HELP robotsguard_checks_total Requests checked against robots.txt (RoundTrip and Check), requests for /robots.txt aside.
# TYPE robotsguard_checks_total counter
robotsguard_checks_total 6
# HELP robotsguard_cache_misses_total Lookups that found no fresh rules in memory and waited for a fetch or the Store.
# TYPE robotsguard_cache_misses_total counter
robotsguard_cache_misses_total 2
# HELP robotsguard_cache_evictions_total Entries dropped from the in-memory cache to stay within its size.
# TYPE robotsguard_cache_evictions_total counter
robotsguard_cache_evictions_total 0
# HELP robotsguard_cache_entries Entries in the in-memory cache: origins, and ACAP permissions references.
# TYPE robotsguard_cache_entries gauge
robotsguard_cache_entries 2
# HELP robotsguard_store_errors_total Store calls that failed, panicked or timed out.
# TYPE robotsguard_store_errors_total counter
robotsguard_store_errors_total 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(stats),
		"robotsguard_checks_total", "robotsguard_cache_misses_total", "robotsguard_cache_evictions_total",
		"robotsguard_cache_entries", "robotsguard_store_errors_total"); err != nil {
		t.Error(err)
	}
	if got, want := gathered(t, reg, "robotsguard_cache_size_bytes"), float64(tr.Stats().CacheBytes); got != want || got <= 0 {
		t.Errorf("robotsguard_cache_size_bytes %v, want Stats().CacheBytes, %v, above 0", got, want)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 2 {
		t.Errorf("the Observer set before heard %q, want both refusals", heard)
	}
}

// gathered returns the value of the gauge or counter name, which has no
// labels, as reg exposes it.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name || len(mf.Metric) != 1 {
			continue
		}
		if g := mf.Metric[0].GetGauge(); g != nil {
			return g.GetValue()
		}
		return mf.Metric[0].GetCounter().GetValue()
	}
	t.Fatalf("%s not gathered", name)
	return 0
}

// TestLint: every metric, each with samples, follows Prometheus's naming
// conventions.
func TestLint(t *testing.T) {
	open := site(t, 0, "User-agent: *\nDisallow: /private/\nCrawl-delay: 1\n")
	tr := newTransport(t)
	c := robotsprom.NewCollector(tr, &robotsprom.Options{ConstLabels: prometheus.Labels{"crawler": "test"}})
	tr.Observer = c.Observer(nil)
	get(t, tr, context.Background(), open.URL+"/")
	get(t, tr, context.Background(), open.URL+"/private/")
	get(t, tr, context.Background(), open.URL+"/busy")

	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	if n := testutil.CollectAndCount(c); n < 10 {
		t.Errorf("%d series collected, want at least 10", n)
	}
}

// TestObserverChains: each function of the Observer passed to Observer is
// called after the Collector records, and a nil one is skipped.
func TestObserverChains(t *testing.T) {
	c := robotsprom.NewCollector(nil, nil)
	var calls []string
	o := c.Observer(&robotsguard.Observer{
		Fetched: func(robotsguard.FetchEvent) { calls = append(calls, "fetched") },
		Waited:  func(robotsguard.WaitEvent) { calls = append(calls, "waited") },
		DelayCapped: func(robotsguard.DelayEvent) {
			calls = append(calls, "capped")
		},
	})
	o.Fetched(robotsguard.FetchEvent{Outcome: robotsguard.OutcomeFromStore})
	o.Refused(&robotsguard.DisallowedError{Reason: robotsguard.ReasonStatus})
	o.Waited(robotsguard.WaitEvent{Wait: time.Second, Err: context.Canceled})
	o.DelayCapped(robotsguard.DelayEvent{Asked: time.Hour, Applied: 30 * time.Second})
	if strings.Join(calls, " ") != "fetched waited capped" {
		t.Errorf("calls %q, want fetched, waited and capped", calls)
	}
	const capped = `
# HELP robotsguard_delays_capped_total Origins whose robots.txt asks for a Crawl-delay or Request-rate above MaxDelay, crawled at MaxDelay (once per origin and file).
# TYPE robotsguard_delays_capped_total counter
robotsguard_delays_capped_total 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(capped), "robotsguard_delays_capped_total"); err != nil {
		t.Error(err)
	}

	o = c.Observer(nil)
	o.Fetched(robotsguard.FetchEvent{Outcome: robotsguard.OutcomeRevalidated, Status: http.StatusNotModified})
	o.Fetched(robotsguard.FetchEvent{Outcome: robotsguard.OutcomeServedStale, Status: 999})
	o.Refused(&robotsguard.DisallowedError{Reason: robotsguard.ReasonStatus})
	const want = `
# HELP robotsguard_refusals_total Requests refused (by RoundTrip or Check), by reason.
# TYPE robotsguard_refusals_total counter
robotsguard_refusals_total{reason="acap"} 0
robotsguard_refusals_total{reason="acap_reference"} 0
robotsguard_refusals_total{reason="delay"} 0
robotsguard_refusals_total{reason="rule"} 0
robotsguard_refusals_total{reason="status"} 2
robotsguard_refusals_total{reason="unreachable"} 0
# HELP robotsguard_robots_fetches_total Fetches of robots.txt files and ACAP permissions references, and entries taken from the Store, by outcome and status class.
# TYPE robotsguard_robots_fetches_total counter
robotsguard_robots_fetches_total{outcome="from_store",status_class="none"} 1
robotsguard_robots_fetches_total{outcome="revalidated",status_class="3xx"} 1
robotsguard_robots_fetches_total{outcome="served_stale",status_class="other"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "robotsguard_refusals_total", "robotsguard_robots_fetches_total"); err != nil {
		t.Error(err)
	}
	// Entries taken from the Store took no fetch.
	if n := testutil.CollectAndCount(c, "robotsguard_robots_fetch_duration_seconds"); n != 2 {
		t.Errorf("%d fetch duration series, want 2 (revalidated, served_stale)", n)
	}
	// Without a Transport, no Stats.
	if n := testutil.CollectAndCount(c, "robotsguard_checks_total", "robotsguard_cache_entries"); n != 0 {
		t.Errorf("%d Stats series from a Collector without a Transport, want 0", n)
	}
}

// TestLabels: every Reason and Outcome robotsguard names has a label of its
// own; one it does not name is "other".
func TestLabels(t *testing.T) {
	c := robotsprom.NewCollector(nil, nil)
	o := c.Observer(nil)
	named := 0
	for r := robotsguard.Reason(1); !strings.HasPrefix(r.String(), "Reason("); r++ {
		o.Refused(&robotsguard.DisallowedError{Reason: r})
		named++
	}
	if n := testutil.CollectAndCount(c, "robotsguard_refusals_total"); n != named {
		t.Errorf("%d refusal series for %d reasons: a Reason has no label of its own (it counts as \"other\")", n, named)
	}
	for out := robotsguard.FetchOutcome(1); !strings.HasPrefix(out.String(), "Outcome("); out++ {
		o.Fetched(robotsguard.FetchEvent{Outcome: out, Status: 200})
	}
	o.Refused(&robotsguard.DisallowedError{Reason: 200})
	o.Fetched(robotsguard.FetchEvent{Outcome: 200, Status: 200})
	const want = `
# HELP robotsguard_refusals_total Requests refused (by RoundTrip or Check), by reason.
# TYPE robotsguard_refusals_total counter
robotsguard_refusals_total{reason="acap"} 1
robotsguard_refusals_total{reason="acap_reference"} 1
robotsguard_refusals_total{reason="delay"} 1
robotsguard_refusals_total{reason="other"} 1
robotsguard_refusals_total{reason="rule"} 1
robotsguard_refusals_total{reason="status"} 1
robotsguard_refusals_total{reason="unreachable"} 1
# HELP robotsguard_robots_fetches_total Fetches of robots.txt files and ACAP permissions references, and entries taken from the Store, by outcome and status class.
# TYPE robotsguard_robots_fetches_total counter
robotsguard_robots_fetches_total{outcome="failed",status_class="2xx"} 1
robotsguard_robots_fetches_total{outcome="fetched",status_class="2xx"} 1
robotsguard_robots_fetches_total{outcome="from_store",status_class="2xx"} 1
robotsguard_robots_fetches_total{outcome="other",status_class="2xx"} 1
robotsguard_robots_fetches_total{outcome="revalidated",status_class="2xx"} 1
robotsguard_robots_fetches_total{outcome="served_stale",status_class="2xx"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "robotsguard_refusals_total", "robotsguard_robots_fetches_total"); err != nil {
		t.Error(err)
	}
}

// TestPaymentSpent: each charge is counted by origin and result, and its
// amount by origin and currency, in units of the currency.
func TestPaymentSpent(t *testing.T) {
	c := robotsprom.NewCollector(nil, nil)
	var chained int
	o := c.Observer(&robotsguard.Observer{Charged: func(pay.Charge) { chained++ }})
	usd := pay.MustParsePrice
	o.Charged(pay.Charge{Origin: "https://a.example", Price: usd("USD 0.01"), Offered: usd("USD 0.05")})
	o.Charged(pay.Charge{Origin: "https://a.example", Price: usd("USD 0.02"), Offered: usd("USD 0.05")})
	o.Charged(pay.Charge{Origin: "https://b.example", Price: usd("EUR 0.50"), Offered: usd("USD 0.05"), Over: true})
	o.Charged(pay.Charge{Origin: "https://b.example", Raw: "free!", Offered: usd("USD 0.05"), Over: true})
	if chained != 4 {
		t.Errorf("the next Observer saw %d charges, want 4", chained)
	}
	const want = `
# HELP robotsguard_payment_charges_total Responses charged for (pay-per-crawl crawler-charged), by origin and result (ok, or overcharged: above the offer, unreadable or unasked).
# TYPE robotsguard_payment_charges_total counter
robotsguard_payment_charges_total{origin="https://a.example",result="ok"} 2
robotsguard_payment_charges_total{origin="https://b.example",result="overcharged"} 2
# HELP robotsguard_payment_spent_total Amounts charged for responses (pay-per-crawl crawler-charged), in units of the currency, by origin and currency.
# TYPE robotsguard_payment_spent_total counter
robotsguard_payment_spent_total{currency="EUR",origin="https://b.example"} 0.5
robotsguard_payment_spent_total{currency="USD",origin="https://a.example"} 0.03
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "robotsguard_payment_charges_total", "robotsguard_payment_spent_total"); err != nil {
		t.Error(err)
	}
}
