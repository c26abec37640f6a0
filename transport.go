package robotsguard

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/internal/lru"
	"github.com/robotsguard/robotsguard/policy"
)

// Defaults of the Transport fields.
const (
	DefaultCacheSize           = 64 << 20 // bytes of parsed robots.txt files kept in memory
	MinCacheSize               = 16 << 20
	DefaultDelay               = time.Second
	DefaultMaxDelay            = 30 * time.Second
	DefaultMaxBackoff          = 10 * time.Minute
	DefaultRetryMax            = 2
	DefaultFetchTimeout        = 30 * time.Second
	DefaultMaxRedirects        = 5  // RFC 9309 §2.3.1.2: at least five
	DefaultPrefetchConcurrency = 16 // robots.txt files Prefetch fetches at once
)

// Transport is an http.RoundTripper that obeys robots.txt. Before a request
// leaves, it checks the URL against the robots.txt of the URL's origin
// (scheme, host and port), fetching and caching that file as needed, and
// waits for the origin's pace; a disallowed request is not sent and fails
// with an error that matches ErrDisallowed. Use it as an http.Client's
// Transport: the Client calls it for every redirect too, so redirect
// targets are checked as well.
//
// Check asks the same question without pacing or sending, Robots returns an
// origin's rules as the Transport holds them, and Prefetch warms the cache
// for a list of origins.
//
// The zero Transport, with UserAgent set, is ready to use: it follows RFC
// 9309, sends through http.DefaultTransport, keeps up to 64 MiB of parsed
// robots.txt files, and leaves a second between requests to an origin
// unless its robots.txt asks for more. The fields below change that; set
// them before the first request and do not change them afterwards.
//
// A Transport is safe for concurrent use by multiple goroutines, and, like
// http.Transport, should be reused rather than created per request: it holds
// the cache and the pacing state. It must not be copied after first use.
type Transport struct {
	// Base sends the requests that are allowed, and fetches robots.txt
	// files. Nil means http.DefaultTransport. A panic in Base while it
	// fetches a robots.txt fails that fetch (with a *PanicError); a panic
	// while it sends a request reaches the caller of RoundTrip.
	Base http.RoundTripper

	// UserAgent is the User-Agent sent when fetching robots.txt files; its
	// product token (see policy.ProductToken) selects the group of rules
	// that applies ("FooBot/2.1 (+https://example.com/bot)" follows the
	// FooBot group). If empty, each request's own User-Agent header plays
	// both parts. The Transport does not change the headers of requests.
	UserAgent string

	// Clock tells the time for cache freshness, fetch back-off and
	// pacing, and sleeps the pacing pauses. Nil means SystemClock{}.
	Clock Clock

	// Parser parses robots.txt files: its Dialect (RFC9309 by default,
	// Google, or Koster1996) and MaxSize, the part of a file that is read
	// (500 KiB by default and at least; the rest of the body is not
	// downloaded).
	Parser policy.Parser

	// StatusPolicy tells what a robots.txt response's status means. Nil
	// means the dialect's: DefaultStatusPolicy (RFC 9309 §2.3.1), or
	// Koster1996StatusPolicy under policy.Koster1996.
	StatusPolicy StatusPolicy

	// CachePolicy decides how long a fetched robots.txt is used (see
	// package cache). The zero value means the dialect's: RFC 9111, with
	// a lifetime of at most 24 hours and at least one minute, and a copy
	// used for up to 30 days while the file is unreachable; under
	// policy.Koster1996, a response without cache directives is kept for
	// 7 days (MaxAge and DefaultAge of 7 days), as that draft asks.
	CachePolicy cache.Policy

	// CacheSize bounds the memory held by parsed robots.txt files, in
	// bytes; the least recently used origins are dropped first. Zero
	// means DefaultCacheSize; values below MinCacheSize mean MinCacheSize,
	// and the bound is at least eight times Parser's MaxSize, so that a few
	// of the largest files fit.
	CacheSize int64

	// Store, if not nil, shares fetched robots.txt files with other
	// Transports and processes (see cache.Store; cache.FromLegacy adapts
	// the backends of github.com/gregjones/httpcache): a Transport that
	// finds a fresh entry there does not fetch the file itself. A Get and
	// a Set take a quarter of FetchTimeout each at most, leaving the rest
	// to the fetch: the Transport stops waiting for a call then, whether
	// it returns or not. A Store that fails, hangs or panics costs a
	// fetch, never a request that the rules refuse: its failures are
	// logged and counted (Stats.StoreErrors), and the robots.txt is
	// fetched. At most 64 calls are under way at once (a call that hangs
	// keeps its goroutine until it returns); more are skipped.
	Store cache.Store

	// DisallowWhileUnreachable keeps an origin disallowed for as long as
	// its robots.txt cannot be fetched and no copy can stand in. By
	// default, after CachePolicy.StaleLimit (30 days) of failures the
	// file is treated as unavailable and everything is allowed, as RFC
	// 9309 §2.3.1.4 permits and Google does.
	DisallowWhileUnreachable bool

	// Delay is the pause between two requests to the same origin when its
	// robots.txt gives no Crawl-delay or Request-rate for the agent. Zero
	// means DefaultDelay; negative means no pause.
	Delay time.Duration

	// MaxDelay caps the pause a robots.txt may ask for. Zero (or
	// negative) means DefaultMaxDelay.
	MaxDelay time.Duration

	// MaxBackoff caps the pause after a 429 or 503 response, whether it
	// comes from Retry-After or from doubling. Zero means
	// DefaultMaxBackoff.
	MaxBackoff time.Duration

	// RetryMax is the number of retries of a failed robots.txt fetch, with
	// exponential back-off (honouring Retry-After). Zero means
	// DefaultRetryMax; negative means none. After a fetch fails, the
	// origin's robots.txt is not fetched again for a minute, doubling up
	// to an hour, so a failing server is not hammered.
	RetryMax int

	// FetchTimeout bounds a robots.txt fetch, retries and Store calls
	// included (ACAP permissions references get a budget of their own).
	// Should Base or the Store not honour their contexts, requests stop
	// waiting a quarter of it later, and the stale copy of the file, or
	// else nothing, is allowed. Zero means DefaultFetchTimeout.
	FetchTimeout time.Duration

	// MaxRedirects is the number of redirects followed when fetching a
	// robots.txt; past that, or on a redirect to another scheme, the file
	// is unavailable. Zero means DefaultMaxRedirects; negative means none
	// is followed.
	MaxRedirects int

	// PrefetchConcurrency is the number of robots.txt files Prefetch
	// fetches at once. Zero (or negative) means DefaultPrefetchConcurrency.
	PrefetchConcurrency int

	// ACAP, if not nil, turns on the ACAP 1.1 extensions of robots.txt
	// (see ACAPOptions and package acap). Nil means off.
	ACAP *ACAPOptions

	// Observer, if not nil, is told of every robots.txt fetch, refusal
	// and pacing wait.
	Observer *Observer

	// Logger receives robots.txt fetches and refusals (Debug), and
	// failures (Warn). Nil means no logging.
	Logger *slog.Logger

	once       sync.Once
	token      string                     // product token of UserAgent
	storeSlots chan struct{}              // one per Store call under way
	states     *lru.Cache[stateKey, held] // origin states and ACAP references
	flight     singleflight.Group
	pacers     pacers
	counters   counters

	// Test hook: the retry waits of robots.txt fetches.
	retryWaitMin, retryWaitMax time.Duration
}

func (t *Transport) init() {
	t.once.Do(func() {
		if t.UserAgent != "" {
			t.token = policy.ProductToken(t.UserAgent)
		}
		size := t.CacheSize
		switch {
		case size == 0:
			size = DefaultCacheSize
		case size < MinCacheSize:
			size = MinCacheSize
		}
		size = max(size, 8*int64(t.maxSize())) // room for a few files of the largest size
		t.states = lru.New[stateKey](size, held.memSize)
		t.pacers.idle = time.Minute
		t.storeSlots = make(chan struct{}, maxStoreCalls)
		if t.retryWaitMin == 0 {
			t.retryWaitMin, t.retryWaitMax = time.Second, 10*time.Second
		}
	})
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) clock() Clock {
	if t.Clock != nil {
		return t.Clock
	}
	return SystemClock{}
}

func (t *Transport) now() time.Time {
	if t.Clock != nil {
		return t.Clock.Now()
	}
	return time.Now()
}

func (t *Transport) maxSize() int {
	if t.Parser.MaxSize < policy.DefaultMaxSize {
		return policy.DefaultMaxSize
	}
	return t.Parser.MaxSize
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

func (t *Transport) retryMax() int {
	if t.RetryMax < 0 {
		return 0
	}
	return orDefault(t.RetryMax, DefaultRetryMax)
}

func (t *Transport) maxRedirects() int { return max(orDefault(t.MaxRedirects, DefaultMaxRedirects), 0) }

func (t *Transport) maxDelay() time.Duration {
	if t.MaxDelay <= 0 {
		return DefaultMaxDelay
	}
	return t.MaxDelay
}

func (t *Transport) fetchTimeout() time.Duration {
	return orDefault(t.FetchTimeout, DefaultFetchTimeout)
}

// RoundTrip checks req against robots.txt, as Check does, waits for the
// origin's pace, and sends it through Base. It returns an error matching
// ErrDisallowed, without sending anything, when robots.txt disallows the
// URL or cannot be fetched; an error wrapping the context's when req's
// context ends while it waits, or its deadline comes before the origin's
// pace lets it go. As the http.RoundTripper contract asks, it does not
// change req, and closes req.Body when it does not send it.
//
// GET and HEAD requests for /robots.txt itself are sent as they are.
//
// The origin of a request is that of its URL, or of its Host header when
// req.Host names another host: the robots.txt of that host decides, fetched
// from the URL's address with the same Host header.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.init()
	if isRobotsTxt(req) {
		if _, _, err := requestOrigin(req); err != nil {
			closeBody(req)
			return nil, err
		}
		return t.base().RoundTrip(req)
	}
	st, every, now, err := t.check(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if err := t.pace(req.Context(), st.origin, every, now); err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.base().RoundTrip(req)
	if err == nil {
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			t.pacers.backoff(st.origin, resp.Header.Get("Retry-After"), t.now(), orDefault(t.MaxBackoff, DefaultMaxBackoff))
		} else {
			t.pacers.succeeded(st.origin)
		}
	}
	return resp, err
}

// Check returns the error RoundTrip would return for req before pacing
// it: nil when robots.txt allows it, an error matching ErrDisallowed (a
// *DisallowedError) when it does not, an error matching ErrUnsupportedURL
// for a URL that has no robots.txt, or the context's error. It fetches and
// caches the robots.txt as RoundTrip does, within req's context, but does
// not wait for the origin's pace and sends nothing else; req.Body is left
// alone. A frontier calls it to filter URLs before it queues them.
func (t *Transport) Check(req *http.Request) error {
	t.init()
	if isRobotsTxt(req) {
		_, _, err := requestOrigin(req)
		return err
	}
	_, _, _, err := t.check(req)
	return err
}

// CloseIdleConnections closes the idle connections of Base, if it has
// such a method (as *http.Transport does). http.Client.CloseIdleConnections
// calls it.
func (t *Transport) CloseIdleConnections() {
	if ci, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// isRobotsTxt reports whether req fetches /robots.txt, and nothing else.
func isRobotsTxt(req *http.Request) bool {
	u := req.URL
	return u != nil && (req.Method == "" || req.Method == http.MethodGet || req.Method == http.MethodHead) &&
		u.Opaque == "" && u.RawQuery == "" && !u.ForceQuery && u.EscapedPath() == "/robots.txt"
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// check decides req against its origin's robots.txt, fetched as needed. It
// returns the origin's state, the interval to keep between requests that
// the agent makes to the origin, and the time of the decision.
func (t *Transport) check(req *http.Request) (st *originState, every time.Duration, now time.Time, err error) {
	if req.URL == nil {
		return nil, 0, now, unsupportedURL("the request has no URL")
	}
	o, dial, err := requestOrigin(req)
	if err != nil {
		return nil, 0, now, err
	}
	t.counters.checked.Add(1)
	ua := t.UserAgent
	if ua == "" {
		ua = req.Header.Get("User-Agent")
	}
	now = t.now() // once: reading the clock is not free
	st, waited, err := t.lookup(req.Context(), o, dial, ua, now)
	if err != nil {
		return nil, 0, now, err
	}
	if waited {
		now = t.now()
	}
	every, e := t.decide(req, st, ua, now)
	if e != nil {
		return nil, 0, now, t.refused(e)
	}
	return st, every, now, nil
}

// decide returns the interval the agent ua keeps between requests to st's
// origin when st allows req at now, or the refusal.
func (t *Transport) decide(req *http.Request, st *originState, ua string, now time.Time) (time.Duration, *DisallowedError) {
	var e *DisallowedError
	g := st.group
	switch t.access(st, now) {
	case AllowAll:
		return t.interval(nil), nil
	case DisallowAll:
		e = &DisallowedError{Reason: ReasonStatus}
	case Unreachable:
		e = &DisallowedError{Reason: ReasonUnreachable, Err: st.err}
	default:
		if t.UserAgent == "" {
			g = st.robots.Group(ua)
		}
		e = st.decider.decide(req.URL, ua, g)
	}
	if e != nil {
		e.Method, e.URL, e.Agent = req.Method, req.URL.Redacted(), t.token
		if t.UserAgent == "" {
			e.Agent = policy.ProductToken(ua)
		}
		e.RobotsURL, e.Status = st.origin.robotsURL(), st.entry.Status
		return 0, e
	}
	if g == st.group {
		return st.every, nil
	}
	return t.interval(g), nil
}

// access returns what the origin's robots.txt allows at now: the last
// usable response, while it is fresh or, when fetches fail, for as long as
// the cache policy lets a copy stand in; Unreachable without one; and
// AllowAll after a long time unreachable (RFC 9309 §2.3.1.4).
func (t *Transport) access(st *originState, now time.Time) Access {
	e := st.entry
	if e.Status != 0 && (e.Failures == 0 || t.cachePolicy().UsableStale(e, now)) {
		return st.access
	}
	if !t.DisallowWhileUnreachable && t.cachePolicy().LongUnreachable(e, now) {
		return AllowAll
	}
	return Unreachable
}

// interval returns the pause to keep between requests that follow g (nil
// for no rules): its Crawl-delay, or else the interval of its
// Request-rate, capped at MaxDelay; Delay when it gives neither.
func (t *Transport) interval(g *policy.Group) time.Duration {
	if g != nil {
		d, ok := g.CrawlDelay()
		if !ok {
			if r, rok := g.RequestRate(); rok {
				d, ok = r.Interval(), true
			}
		}
		if ok {
			return min(d, t.maxDelay())
		}
	}
	if t.Delay < 0 {
		return 0
	}
	return orDefault(t.Delay, DefaultDelay)
}
