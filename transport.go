package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/policy"
)

// Defaults of the Transport fields.
const (
	DefaultCacheSize    = 64 << 20 // bytes of parsed robots.txt files kept in memory
	MinCacheSize        = 16 << 20
	DefaultDelay        = time.Second
	DefaultMaxDelay     = 30 * time.Second
	DefaultMaxBackoff   = 10 * time.Minute
	DefaultRetryMax     = 2
	DefaultFetchTimeout = 30 * time.Second
	DefaultMaxRedirects = 5 // RFC 9309 §2.3.1.2: at least five
)

// Transport is an http.RoundTripper that obeys robots.txt. Before a request
// leaves, it checks the URL against the robots.txt of the URL's origin
// (scheme, host and port), fetching and caching that file as needed, and
// waits for the origin's pace; a disallowed request is not sent and fails
// with an error that matches ErrDisallowed. Use it as an http.Client's
// Transport: the Client calls it for every redirect too, so redirect
// targets are checked as well.
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
	// files. Nil means http.DefaultTransport.
	Base http.RoundTripper

	// UserAgent is the User-Agent sent when fetching robots.txt files; its
	// product token (see policy.ProductToken) selects the group of rules
	// that applies ("FooBot/2.1 (+https://example.com/bot)" follows the
	// FooBot group). If empty, each request's own User-Agent header plays
	// both parts. The Transport does not change the headers of requests.
	UserAgent string

	// Now is the clock for cache freshness and pacing. Nil means time.Now.
	Now func() time.Time

	// Parser parses robots.txt files: its Dialect (RFC9309 by default, or
	// Google) and MaxSize, the part of a file that is read (500 KiB by
	// default and at least; the rest of the body is not downloaded).
	Parser policy.Parser

	// StatusPolicy tells what a robots.txt response's status means. Nil
	// means DefaultStatusPolicy (RFC 9309 §2.3.1), or Koster1996StatusPolicy
	// when Parser.Dialect is policy.Koster1996.
	StatusPolicy StatusPolicy

	// CachePolicy decides how long a fetched robots.txt is used (see
	// package cache). The zero value applies RFC 9111, with a lifetime of
	// at most 24 hours and at least one minute, and uses a copy for up to
	// 30 days while the file is unreachable; when Parser.Dialect is
	// policy.Koster1996, it keeps a response without cache directives for
	// 7 days (MaxAge and DefaultAge of 7 days), as that draft asks.
	CachePolicy cache.Policy

	// CacheSize bounds the memory held by parsed robots.txt files, in
	// bytes; the least recently used origins are dropped first. Zero
	// means DefaultCacheSize; values below MinCacheSize mean MinCacheSize,
	// and the bound is at least eight times Parser's MaxSize, so that a few
	// of the largest files fit.
	CacheSize int64

	// Store, if not nil, shares fetched robots.txt files with other
	// Transports and processes (a disk, memcache or Redis store; see
	// package cache): a Transport that finds a fresh entry there does not
	// fetch the file itself.
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

	// MaxDelay caps the pause a robots.txt may ask for. Zero means
	// DefaultMaxDelay.
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

	// FetchTimeout bounds a robots.txt fetch, retries included. Zero
	// means DefaultFetchTimeout.
	FetchTimeout time.Duration

	// MaxRedirects is the number of redirects followed when fetching a
	// robots.txt; past that, or on a redirect to another scheme, the file
	// is unavailable. Zero means DefaultMaxRedirects.
	MaxRedirects int

	// ACAP turns on the ACAP 1.1 extensions of robots.txt (see package
	// acap): a request is sent only if the ACAP records of its origin's
	// robots.txt, pooled with the conventional ones, permit crawling its
	// URL for the agent (UserAgent, or the request's User-Agent, whose
	// whole value is matched against ACAP-crawler names); refusals have
	// ReasonACAP. The resources that ACAP-permissions-reference fields
	// name (at most MaxACAPReferences) are fetched with the robots.txt, as
	// it is (retries, redirects, StatusPolicy, CachePolicy; within a
	// FetchTimeout of their own), and kept in memory with it, not in
	// Store. While a reference that applies to the agent cannot be read,
	// the agent's requests to the origin are refused (ReasonACAPReference).
	// A reference may name any http or https URL, on any host: the
	// robots.txt chooses where Base sends those requests, so a crawler
	// that must not reach some hosts filters them in Base. A
	// robots.txt without ACAP records is obeyed as without ACAP, in
	// Parser's dialect; one with ACAP records has its conventional records
	// read as RFC 9309 says. ACAPPolicy gives the policy for the other
	// usages (index, present, …). Off by default.
	ACAP bool

	// ACAPPurpose is the usage purpose the crawler acts for (a name or
	// URI, ACAP 1.1 section 2.3.3): ACAP sub-records whose
	// ACAP-usage-purpose pattern matches it apply. Empty means none.
	ACAPPurpose string

	// Logger receives robots.txt fetches (Debug) and failures (Warn). Nil
	// means no logging.
	Logger *slog.Logger

	once   sync.Once
	token  string // product token of UserAgent
	states *cache.LRU[origin, *originState]
	flight singleflight.Group
	pacers pacers

	// Test hooks.
	sleep                      func(context.Context, time.Duration) error
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
		t.states = cache.NewLRU[origin](size, (*originState).memSize)
		t.pacers.idle = time.Minute
		if t.sleep == nil {
			t.sleep = sleepContext
		}
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

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Transport) statusPolicy() StatusPolicy {
	switch {
	case t.StatusPolicy != nil:
		return t.StatusPolicy
	case t.Parser.Dialect == policy.Koster1996:
		return Koster1996StatusPolicy
	}
	return DefaultStatusPolicy
}

// kosterCachePolicy keeps a response without cache directives for 7 days,
// as the 1996 draft asks (section 3.4).
var kosterCachePolicy = cache.Policy{MaxAge: 7 * 24 * time.Hour, DefaultAge: 7 * 24 * time.Hour}

func (t *Transport) cachePolicy() cache.Policy {
	if t.CachePolicy == (cache.Policy{}) && t.Parser.Dialect == policy.Koster1996 {
		return kosterCachePolicy
	}
	return t.CachePolicy
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

func (t *Transport) maxRedirects() int { return orDefault(t.MaxRedirects, DefaultMaxRedirects) }

// RoundTrip checks req against robots.txt, waits for the origin's pace,
// and sends it through Base. It returns an error matching ErrDisallowed,
// without sending anything, when robots.txt disallows the URL or cannot be
// fetched; an error wrapping the context's when req's context ends while it
// waits. As the http.RoundTripper contract asks, it does not change req,
// and closes req.Body when it does not send it.
//
// GET and HEAD requests for /robots.txt itself are sent as they are.
//
// The origin of a request is that of its URL, or of its Host header when
// req.Host names another host: the robots.txt of that host decides, fetched
// from the URL's address with the same Host header.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.init()
	if req.URL == nil {
		closeBody(req)
		return nil, errors.New("robotsguard: nil Request.URL")
	}
	o, dial, err := requestOrigin(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if isRobotsTxt(req) {
		return t.base().RoundTrip(req)
	}
	ctx := req.Context()
	now := t.now() // once: reading the clock is not free
	st, waited, err := t.robots(ctx, o, dial, req, now)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if waited {
		now = t.now()
	}
	every, err := t.check(req, st, now)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if err := t.pace(ctx, o, every, now); err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.base().RoundTrip(req)
	if err == nil {
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			t.pacers.backoff(o, resp.Header.Get("Retry-After"), t.now(), orDefault(t.MaxBackoff, DefaultMaxBackoff))
		} else {
			t.pacers.succeeded(o)
		}
	}
	return resp, err
}

// isRobotsTxt reports whether req fetches /robots.txt, and nothing else.
func isRobotsTxt(req *http.Request) bool {
	u := req.URL
	return (req.Method == "" || req.Method == http.MethodGet || req.Method == http.MethodHead) &&
		u.Opaque == "" && u.RawQuery == "" && !u.ForceQuery && u.EscapedPath() == "/robots.txt"
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// agent returns the product token that req is decided for.
func (t *Transport) agent(req *http.Request) string {
	if t.UserAgent != "" {
		return t.token
	}
	return policy.ProductToken(req.Header.Get("User-Agent"))
}

// check decides req against the origin's robots.txt at now. It returns the
// interval to keep between requests to the origin, or the refusal.
func (t *Transport) check(req *http.Request, st *originState, now time.Time) (time.Duration, error) {
	refuse := func(r Reason) *DisallowedError {
		return &DisallowedError{
			Method: req.Method, URL: req.URL.Redacted(), Agent: t.agent(req),
			RobotsURL: st.origin.robotsURL(), Reason: r, Status: st.entry.Status,
		}
	}
	switch t.access(st, now) {
	case AllowAll:
		return t.interval(nil), nil
	case DisallowAll:
		return 0, refuse(ReasonStatus)
	case Unreachable:
		e := refuse(ReasonUnreachable)
		e.Err = st.err
		return 0, e
	}
	g := st.group
	if t.UserAgent == "" {
		g = st.robots.Group(req.Header.Get("User-Agent"))
	}
	if st.acap != nil && st.acap.HasRecords() {
		if err := t.checkACAP(req, st, refuse); err != nil {
			return 0, err
		}
	} else if d := g.DecideURL(req.URL); !d.Allowed {
		e := refuse(ReasonRule)
		e.Decision = d
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
			return min(d, orDefault(t.MaxDelay, DefaultMaxDelay))
		}
	}
	if t.Delay < 0 {
		return 0
	}
	return orDefault(t.Delay, DefaultDelay)
}

// originState is what the Transport knows of an origin's robots.txt. It is
// immutable: a fetch replaces it.
type originState struct {
	origin origin
	entry  *cache.Entry
	err    error          // why the last fetch failed, when it did
	access Access         // what entry's status means, when it has one
	robots *policy.Robots // the parsed body, when access is UseRules
	group  *policy.Group  // the group of the Transport's UserAgent
	every  time.Duration  // the interval that group asks for
	until  time.Time      // used without a new fetch until then
	size   int64          // memory held, for the cache bound

	// With ACAP on: the ACAP records of the body, with those of its
	// permissions references, and the state of each reference.
	acap     *acap.Policy
	acapSize int // acap.MemSize(), counted in size
	refs     []*acapRef
}

func (st *originState) memSize() int64 { return st.size }

// newState builds the state of origin o from entry e.
func (t *Transport) newState(o origin, e *cache.Entry, err error) *originState {
	st := &originState{origin: o, entry: e, err: err}
	if err == nil && e.Err != "" {
		st.err = errors.New(e.Err) // a failure loaded from a Store
	}
	if e.Status != 0 {
		st.access = t.statusPolicy()(e.Status)
		if st.access == UseRules {
			st.robots = t.Parser.Parse(e.Body)
			if t.UserAgent != "" {
				st.group = st.robots.Group(t.UserAgent)
				st.group.Allowed("/") // build its matcher now, to count it
				st.every = t.interval(st.group)
			}
		}
	}
	// The body is kept (to revalidate and share the entry) besides its
	// parsed form. Matchers built later, for agents other than UserAgent,
	// are not counted.
	st.size = int64(len(e.Body)) + 1024
	if st.robots != nil {
		st.size += int64(st.robots.MemSize())
		if t.ACAP {
			st.acap = t.acapPolicy(e.Body)
			st.acapSize = st.acap.MemSize()
			st.size += int64(st.acapSize)
		}
	}
	if e.Failures > 0 {
		st.until = e.RetryAt
	} else if e.Status != 0 {
		st.until = t.cachePolicy().FreshUntil(e)
	}
	return st
}

// robots returns the state of origin o's robots.txt at now, fetching the
// file (from host dial, if not empty) when the cache has no usable state,
// and whether it waited for a fetch. Concurrent requests for an origin
// share one fetch; each stops waiting when its own context ends.
func (t *Transport) robots(ctx context.Context, o origin, dial string, req *http.Request, now time.Time) (st *originState, waited bool, err error) {
	if st, ok := t.states.Get(o); ok && now.Before(st.until) {
		return st, false, nil
	}
	ua := t.UserAgent
	if ua == "" {
		ua = req.Header.Get("User-Agent")
	}
	// The fetch outlives the request that started it, as others may wait
	// on it, so it takes neither its cancellation nor its values (such as
	// an httptrace.ClientTrace that belongs to that request).
	ch := t.flight.DoChan(o.String(), func() (any, error) {
		return t.refresh(context.Background(), o, dial, ua), nil
	})
	select {
	case r := <-ch:
		return r.Val.(*originState), true, nil
	case <-ctx.Done():
		return nil, true, fmt.Errorf("robotsguard: waiting for %s: %w", o.robotsURL(), ctx.Err())
	}
}

// refresh fetches o's robots.txt, unless a usable state appeared meanwhile
// (in memory or in the Store), and caches the result.
func (t *Transport) refresh(ctx context.Context, o origin, dial, ua string) *originState {
	now := t.now()
	var old *cache.Entry
	prev, ok := t.states.Get(o)
	if ok {
		if now.Before(prev.until) {
			return prev
		}
		old = prev.entry
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(t.FetchTimeout, DefaultFetchTimeout))
	defer cancel()
	// Another Transport sharing the Store may have fetched it since; and
	// with ACAP on, a fresh file may be here only for its references.
	if e := t.load(o, now); e != nil && (old == nil || e.Received.After(old.Received)) {
		st := t.newState(o, e, nil)
		if now.Before(st.until) {
			t.attachReferences(ctx, st, prev, dial, ua)
			t.states.Set(o, st)
			return st
		}
		old = e
	}
	if old != nil && old.Failures == 0 && old.Status != 0 && now.Before(t.cachePolicy().FreshUntil(old)) {
		st := t.newState(o, old, nil)
		t.attachReferences(ctx, st, prev, dial, ua)
		t.states.Set(o, st)
		return st
	}
	res := t.fetch(ctx, o, dial, ua, old)
	st := t.newState(o, res.entry, res.err)
	t.attachReferences(ctx, st, prev, dial, ua)
	if res.err != nil {
		t.log(slog.LevelWarn, "robots.txt fetch failed", o, "error", res.err, "failures", res.entry.Failures, "retry_at", res.entry.RetryAt)
	} else {
		t.log(slog.LevelDebug, "robots.txt fetched", o, "status", res.entry.Status, "bytes", len(res.entry.Body), "fresh_until", st.until)
	}
	if !t.cachePolicy().Storable(res.entry) {
		t.states.Delete(o)
		return st
	}
	t.states.Set(o, st)
	if res.err != nil {
		// A failure does not replace a newer success another process
		// stored meanwhile.
		if e := t.load(o, t.now()); e != nil && e.Received.After(res.entry.Received) {
			return st
		}
	}
	t.save(o, res.entry)
	return st
}

// maxSkew is how far ahead of the clock an entry in the Store may have been
// received: clocks of a fleet differ a little.
const maxSkew = 5 * time.Minute

// load reads o's entry from the Store, if there is one. An entry is data
// from elsewhere: one received further ahead of now than maxSkew is
// ignored, other times ahead of now are brought back to now (a retry
// time, to the longest back-off), so that a skewed clock or a bad entry
// cannot keep a copy fresh, or an origin blocked, for long.
func (t *Transport) load(o origin, now time.Time) *cache.Entry {
	if t.Store == nil {
		return nil
	}
	b, ok := t.Store.Get(o.String())
	if !ok {
		return nil
	}
	var e cache.Entry
	if err := e.UnmarshalBinary(b); err != nil {
		t.log(slog.LevelWarn, "dropping unreadable cache entry", o, "error", err)
		t.Store.Delete(o.String())
		return nil
	}
	if e.Received.Sub(now) > maxSkew || e.FailingSince.Sub(now) > maxSkew {
		t.log(slog.LevelWarn, "ignoring cache entry from the future", o, "received", e.Received)
		return nil
	}
	for _, tm := range []*time.Time{&e.Requested, &e.Received, &e.FailingSince} {
		if tm.After(now) {
			*tm = now
		}
	}
	if limit := now.Add(maxRetryAfter); e.RetryAt.After(limit) {
		e.RetryAt = limit
	}
	return &e
}

// save writes o's entry to the Store, if there is one.
func (t *Transport) save(o origin, e *cache.Entry) {
	if t.Store == nil {
		return
	}
	if b, err := e.MarshalBinary(); err == nil {
		t.Store.Set(o.String(), b)
	}
}

func (t *Transport) log(level slog.Level, msg string, o origin, args ...any) {
	if t.Logger == nil {
		return
	}
	t.Logger.Log(context.Background(), level, msg, append([]any{"origin", o.String()}, args...)...)
}
