package robotsguard

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/pay"
)

// An Observer is told what the Transport does: every robots.txt fetch,
// every refusal, every pacing wait and every charge for a page. Set the functions you need; nil ones
// are skipped. They are called synchronously, from many goroutines at
// once: they must be safe for concurrent use and quick (count, log, or hand
// off to a channel). An adapter to a metrics system is an Observer.
type Observer struct {
	// Fetched is called after each fetch of a robots.txt or of an ACAP
	// permissions reference, and when one is taken from the Store. It
	// runs on behalf of every request waiting for the fetch, so a panic
	// in it is recovered and dropped.
	Fetched func(FetchEvent)
	// Refused is called with each refusal, by RoundTrip or Check, on
	// the caller's goroutine, before it is returned.
	Refused func(*DisallowedError)
	// Waited is called after each pause taken to pace requests to an
	// origin, or given up because the request's context ended.
	Waited func(WaitEvent)
	// DelayCapped is called when an origin's robots.txt asks the agent
	// for a Crawl-delay or Request-rate above MaxDelay, and its requests
	// are paced at MaxDelay instead (RefuseAboveMaxDelay refuses them):
	// once per origin, and again only when a new file asks for another
	// pause. Like Fetched, it runs on behalf of every request waiting for
	// the fetch, and a panic in it is recovered and dropped.
	DelayCapped func(DelayEvent)
	// Charged is called with each response that carries a
	// crawler-charged field (see Transport.Payment), on the caller's
	// goroutine, before RoundTrip returns.
	Charged func(pay.Charge)
}

// FetchOutcome is how a fetch of a robots.txt ended.
type FetchOutcome uint8

const (
	// OutcomeFetched: a response was received and is used (2xx, or a status
	// that the StatusPolicy reads as allowing or disallowing all).
	OutcomeFetched FetchOutcome = iota + 1
	// OutcomeRevalidated: the server answered 304 Not Modified to a conditional
	// request; the cached file is used for a new lifetime.
	OutcomeRevalidated
	// OutcomeServedStale: the fetch failed, and a cached copy stands in for the
	// file (RFC 9309 §2.3.1.4).
	OutcomeServedStale
	// OutcomeFailed: the fetch failed, with no copy to stand in: the origin is
	// unreachable, and its requests are refused.
	OutcomeFailed
	// OutcomeFromStore: a fresh entry was found in the Store; nothing was
	// fetched.
	OutcomeFromStore
)

var outcomeNames = [...]string{
	OutcomeFetched:     "fetched",
	OutcomeRevalidated: "revalidated",
	OutcomeServedStale: "served stale",
	OutcomeFailed:      "failed",
	OutcomeFromStore:   "from store",
}

// String returns the outcome's name: "fetched", "revalidated", …
func (o FetchOutcome) String() string {
	if int(o) < len(outcomeNames) && outcomeNames[o] != "" {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// A FetchEvent describes one fetch of a robots.txt or of an ACAP
// permissions reference.
type FetchEvent struct {
	URL      string // what was fetched
	Origin   string // the origin whose rules it holds, "https://example.com"
	Outcome  FetchOutcome
	Status   int           // the status received, or 0 when none was
	Duration time.Duration // the time the fetch took, retries included
	Bytes    int           // the body bytes kept
	// Lifetime is how long the file is used without a new fetch, from
	// its receipt, and LifetimeSource what set it: the header field
	// ("max-age", "Expires", "Last-Modified heuristic", …), with
	// " (capped)" or " (floored)" when the cache policy's bounds applied
	// (see cache.Freshness). Both are zero when nothing usable was
	// received.
	Lifetime       time.Duration
	LifetimeSource string
	// Err is why the fetch failed, for OutcomeServedStale and OutcomeFailed, or the
	// failure that an entry taken from the Store records (another
	// process failed, and this one backs off with it). A bot challenge
	// served for the file is such a failure: Err wraps a
	// *NotRobotsTxtError (errors.Is(Err, ErrNotRobotsTxt)).
	Err error
	// Warning is not nil when a response was used that is not what it
	// should be: an HTML page with no robots.txt line served for the
	// robots.txt, read as no rules (a *NotRobotsTxtError).
	Warning error
}

// A WaitEvent describes one pause that paced a request.
type WaitEvent struct {
	Origin string
	// Wait is the pause the request had to take, and Throttled tells
	// whether a 429 or 503 response set it (rather than the origin's
	// Crawl-delay or Delay).
	Wait      time.Duration
	Throttled bool
	// Err is not nil when the request gave up: its context ended, or its
	// deadline came before its turn. The request was not sent.
	Err error
}

// A DelayEvent describes a pause asked for by an origin's robots.txt that
// the Transport caps (see Transport.MaxDelay).
type DelayEvent struct {
	Origin  string        // "https://example.com"
	Agent   string        // the product token whose group asks for it, lower-case
	Asked   time.Duration // the Crawl-delay, or the interval of the Request-rate
	Applied time.Duration // the pause kept: MaxDelay
}

// Stats are counters of what a Transport has done since it was created.
type Stats struct {
	Checked     int64 // requests checked (RoundTrip and Check), /robots.txt requests aside
	Refused     int64 // of those, refused
	CacheMisses int64 // checks that found no fresh rules in memory and waited for a fetch or the Store
	Fetches     int64 // robots.txt and permissions reference fetches, each counted once however many requests waited
	Failures    int64 // of those, failed (OutcomeServedStale or OutcomeFailed)
	StoreErrors int64 // Store calls that failed, panicked or timed out
	Waits       int64 // pauses taken to pace requests
	WaitTime    time.Duration
	// Entries and CacheBytes are what the in-memory cache holds now:
	// the number of entries (origins, and ACAP permissions references)
	// and their estimated size; Evictions counts the entries it dropped
	// to stay within CacheSize.
	Entries    int
	CacheBytes int64
	Evictions  int64
	// Charges counts the responses charged (pay-per-crawl, see
	// Transport.Payment), Overcharges those of them charged more than
	// they were offered (or charged when nothing was), and Spent sums
	// what they were charged in the Payment policy's currency: what the
	// budget lost (the Observer's Charged sees charges in other
	// currencies, which only liars make).
	Charges     int64
	Overcharges int64
	Spent       pay.Price
}

// counters back Stats.
type counters struct {
	// checked counts the requests checked, on a line of its own for each
	// of a few groups of origins: cores that check requests to different
	// origins at once seldom write the same cache line.
	checked                                                           [checkedLines]paddedCount
	refused, misses, fetches, failures, storeErrors, waits, waitNanos atomic.Int64
}

const checkedLines = 8

type paddedCount struct {
	atomic.Int64
	_ [56]byte
}

// check counts a request checked for the origin on host.
func (c *counters) check(host string) {
	h := uint(len(host))
	if h > 0 {
		h += uint(host[0]) + uint(host[h/2])<<1 + uint(host[h-1])<<2
	}
	c.checked[h%checkedLines].Add(1)
}

// Stats returns a snapshot of the Transport's counters. It is cheap: a few
// atomic loads and one lock of the cache.
func (t *Transport) Stats() Stats {
	t.init()
	c := &t.counters
	s := Stats{
		Refused: c.refused.Load(), CacheMisses: c.misses.Load(),
		Fetches: c.fetches.Load(), Failures: c.failures.Load(), StoreErrors: c.storeErrors.Load(),
		Waits: c.waits.Load(), WaitTime: time.Duration(c.waitNanos.Load()),
	}
	for i := range c.checked {
		s.Checked += c.checked[i].Load()
	}
	s.Entries, s.CacheBytes, s.Evictions = t.states.Stats()
	t.wallet.stats(&s)
	return s
}

// refused reports a refusal to the observer and the logger, and returns it.
func (t *Transport) refused(e *DisallowedError) *DisallowedError {
	t.counters.refused.Add(1)
	if t.Observer != nil && t.Observer.Refused != nil {
		t.Observer.Refused(e)
	}
	if t.Logger != nil && t.Logger.Enabled(context.Background(), slog.LevelDebug) {
		t.Logger.Debug("request refused", "url", e.URL, "agent", e.Agent, "reason", e.Reason.String(), "robots", e.RobotsURL, "error", e.Error())
	}
	return e
}

// fetched reports a fetch to the counters, the observer and the logger.
// A fetch runs for many requests at once, on no caller's goroutine, where a
// panic would end the process: one in the Observer or the Logger is
// recovered and dropped.
func (t *Transport) fetched(ev FetchEvent) {
	defer func() { recover() }()
	if ev.Outcome != OutcomeFromStore {
		t.counters.fetches.Add(1)
	}
	if ev.Outcome == OutcomeServedStale || ev.Outcome == OutcomeFailed {
		t.counters.failures.Add(1)
	}
	if t.Observer != nil && t.Observer.Fetched != nil {
		t.Observer.Fetched(ev)
	}
	if t.Logger == nil {
		return
	}
	if ev.Err != nil {
		t.Logger.Warn("robots.txt fetch failed", "url", ev.URL, "outcome", ev.Outcome.String(), "status", ev.Status, "error", ev.Err)
		return
	}
	if ev.Warning != nil {
		t.Logger.Warn("robots.txt fetched, but not a robots.txt", "url", ev.URL, "status", ev.Status, "warning", ev.Warning)
	}
	t.Logger.Debug("robots.txt fetched", "url", ev.URL, "outcome", ev.Outcome.String(), "status", ev.Status,
		"bytes", ev.Bytes, "duration", ev.Duration, "lifetime", ev.Lifetime, "lifetime_source", ev.LifetimeSource)
}

// delayCapped reports a Crawl-delay capped at MaxDelay, to the observer
// and, at Warn, the logger: the crawl of the origin is faster than its
// robots.txt asks. Like fetched, it runs for every request waiting on a
// fetch: a panic in the Observer or the Logger is recovered and dropped.
func (t *Transport) delayCapped(ev DelayEvent) {
	defer func() { recover() }()
	ev.Origin = strings.Clone(ev.Origin) // the state's name, in the state's allocation
	if t.Observer != nil && t.Observer.DelayCapped != nil {
		t.Observer.DelayCapped(ev)
	}
	if t.Logger != nil {
		t.Logger.Warn("robots.txt asks for a pause above MaxDelay: requests are paced at MaxDelay", "origin", ev.Origin,
			"agent", ev.Agent, "asked", ev.Asked, "applied", ev.Applied)
	}
}

// waited reports a pacing wait.
func (t *Transport) waited(ev WaitEvent) {
	if ev.Err == nil {
		t.counters.waits.Add(1)
		t.counters.waitNanos.Add(int64(ev.Wait))
	}
	if t.Observer != nil && t.Observer.Waited != nil {
		// ev.Origin is the state's name, in the state's allocation:
		// the Observer may keep it.
		ev.Origin = strings.Clone(ev.Origin)
		t.Observer.Waited(ev)
	}
}

// observed reports whether fetches are told to an Observer or a Logger.
func (t *Transport) observed() bool {
	return t.Observer != nil && t.Observer.Fetched != nil || t.Logger != nil
}

// withoutFragment returns u without the fragment that names the agent of a
// Store key (see stateKey.storeURL).
func withoutFragment(u string) string {
	u, _, _ = strings.Cut(u, "#")
	return u
}

// fetchEvent describes a fetch of url, with entry e as its result.
func (t *Transport) fetchEvent(url string, o origin, out FetchOutcome, e *cache.Entry, err error, d time.Duration) FetchEvent {
	ev := FetchEvent{URL: withoutFragment(url), Origin: o.String(), Outcome: out, Duration: d, Bytes: len(e.Body), Err: err}
	if out != OutcomeFailed && out != OutcomeServedStale {
		ev.Status = e.Status
		if out == OutcomeRevalidated {
			ev.Status = http.StatusNotModified
		}
		f := t.cachePolicy().Freshness(e)
		ev.Lifetime, ev.LifetimeSource = f.Until.Sub(e.Received), f.Source
		switch {
		case f.Capped:
			ev.LifetimeSource += " (capped)"
		case f.Floored:
			ev.LifetimeSource += " (floored)"
		}
	} else {
		var fe *FetchError
		if errors.As(err, &fe) {
			ev.Status = fe.Status
		}
	}
	return ev
}
