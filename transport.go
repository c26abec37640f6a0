package robotsguard

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/internal/lru"
	"github.com/robotsguard/robotsguard/pay"
	"github.com/robotsguard/robotsguard/policy"
)

// Defaults of the Transport fields.
const (
	DefaultCacheSize            = 512 << 20 // bytes of robots.txt state kept in memory: 100,000 typical origins
	MinCacheSize                = 16 << 20
	DefaultDelay                = time.Second
	DefaultMaxDelay             = 30 * time.Second
	DefaultMaxThrottle          = 10 * time.Minute
	DefaultRetryMax             = 2
	DefaultFetchTimeout         = 30 * time.Second
	DefaultMaxRedirects         = 5  // RFC 9309 §2.3.1.2: at least five
	DefaultPrefetchConcurrency  = 16 // robots.txt files Prefetch fetches at once
	DefaultMaxRequestsPerOrigin = 1  // requests under way at once to one origin
	DefaultMinResponseTime      = time.Second
)

// Transport is an http.RoundTripper that obeys robots.txt. Before a request
// leaves, it checks the URL against the robots.txt of the URL's origin
// (scheme, host and port), fetching and caching that file as needed, and
// waits for the origin's pace; a disallowed request is not sent and fails
// with an error that matches ErrDisallowed. Use it as an http.Client's
// Transport: the Client calls it for every redirect too, so redirect
// targets are checked as well.
//
// Check asks the same question without pacing or sending, Snapshot returns an
// origin's rules as the Transport holds them, and Prefetch warms the cache
// for a list of origins.
//
// The zero Transport, with UserAgent set, is ready to use: it follows RFC
// 9309, sends through http.DefaultTransport, keeps up to 512 MiB of parsed
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

	// UserAgent names the crawler: robots.txt files are fetched with it,
	// its product token (see policy.ProductToken: the first product of the
	// value, as RFC 9110 reads it) selects the group of rules that applies
	// ("FooBot/2.1 (+https://example.com/bot)" follows the FooBot group),
	// and requests are sent with it, so that the agent the site sees is
	// the one its rules were decided for: a request that carries no
	// User-Agent, or one of another product (an HTTP library's default),
	// is sent as a copy that carries UserAgent; one whose product token is
	// UserAgent's ("FooBot/2.1 (mobile)") is sent as it is.
	//
	// If empty, each request's own User-Agent header plays every part
	// (net/http's default, Go-http-client/1.1, for a request without
	// one): the robots.txt is fetched with it, and cached for its product
	// token, so that a site that answers each agent with its own file is
	// obeyed for each. A request whose User-Agent is set and empty follows
	// the "*" group.
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
	// bytes; origins not used recently are dropped first. Zero
	// means DefaultCacheSize; values below MinCacheSize mean MinCacheSize,
	// and the bound is at least eight times Parser's MaxSize, so that a few
	// of the largest files fit.
	//
	// It bounds what the states hold, not the process: Go's collector
	// lets the heap grow past what is live (to about twice, with the
	// default GOGC), and fetches and parsing under way allocate beside
	// it. A process that must fit a memory budget sets GOMEMLIMIT (or
	// runtime/debug.SetMemoryLimit) too.
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
	//
	// A Store that is also a cache.Locker (package robotsredis has one)
	// elects one process of a fleet to fetch a file nobody holds fresh;
	// the others wait for its entry, a quarter of FetchTimeout at most,
	// and then fetch it themselves. A process whose own copy went stale
	// less than a quarter of FetchTimeout ago (and less than its lifetime)
	// does not wait while another revalidates the file: its copy stands
	// in (stale-while-revalidate), and it looks for the new entry in the
	// Store a second later. Under a Strict CachePolicy, a copy marked
	// must-revalidate or no-cache never stands in.
	Store cache.Store

	// DisallowWhileUnreachable keeps an origin disallowed for as long as
	// its robots.txt cannot be fetched and no copy can stand in. By
	// default, after CachePolicy.StaleLimit (30 days) of failures, over
	// three fetches at least, the file is treated as unavailable and
	// everything is allowed, as RFC 9309 §2.3.1.4 permits and Google does
	// (see cache.Policy.LongUnreachable).
	DisallowWhileUnreachable bool

	// Delay is the pause between two requests to the same origin when its
	// robots.txt gives no Crawl-delay or Request-rate for the agent. Zero
	// means DefaultDelay; negative means no pause (a file's Crawl-delay
	// is still obeyed: NoPacing turns pacing off).
	//
	// The pause counts from the end of the previous response (its body
	// read to the end or closed), as well as from its start: a slow
	// server is given the pause after each answer, not during it.
	Delay time.Duration

	// MaxDelay caps the pause a robots.txt may ask for. Zero (or
	// negative) means DefaultMaxDelay. A longer Crawl-delay or
	// Request-rate is capped, or, with RefuseAboveMaxDelay, refused.
	MaxDelay time.Duration

	// RefuseAboveMaxDelay refuses every request to an origin whose
	// robots.txt asks the agent for a pause above MaxDelay, with
	// ReasonDelay, rather than crawling it at MaxDelay: a site that asks
	// for one page a minute is not crawled faster than it asks.
	RefuseAboveMaxDelay bool

	// MaxRequestsPerOrigin is the number of requests to one origin that
	// may be under way at once, from the moment a request is sent until
	// its response body is read to the end or closed, or its context
	// ends; the others wait for their turn, in order. Zero means
	// DefaultMaxRequestsPerOrigin (one, as the crawlers that sites trust
	// keep one connection per host); negative means no limit. A response
	// is over once its whole Content-Length is read, even if the body is
	// closed later. A request that holds its place for more than
	// DefaultMaxHold (ten seconds) while others wait (a body left open)
	// loses it. As with http.Transport's MaxConnsPerHost, read or close
	// response bodies before sending the next request to their origin: a
	// goroutine that keeps one open, unread, and sends another request to
	// the same origin waits those ten seconds. (A Pacer of your own, such
	// as a LocalPacer with its MaxHold set, sets another bound.)
	MaxRequestsPerOrigin int

	// MaxThrottle caps the pause after a 429 or 503 response, whether it
	// comes from Retry-After or from doubling. Zero means
	// DefaultMaxThrottle.
	MaxThrottle time.Duration

	// NoPacing turns pacing off: requests are sent as soon as robots.txt
	// allows them, whatever Delay, Crawl-delay, Request-rate,
	// MaxRequestsPerOrigin and 429 or 503 answers say. For tests, and for
	// sites of your own; robots.txt is enforced all the same.
	NoPacing bool

	// MinResponseTime is the least time a request that waited for its
	// origin's turn must have left before its deadline to be sent: its
	// response needs it. One whose turn comes later fails at once,
	// unsent, with a *PacingError (requeue it), rather than go and time
	// out on its way, costing the site a response nobody reads and its
	// reader an error that blames the site. A request that did not wait
	// is sent whatever its deadline. A request waiting for its origin's
	// robots.txt to be read gives up likewise, with a *PacingError, once
	// MinResponseTime is all that is left before its deadline (50 ms, for
	// a deadline closer than twice MinResponseTime); the fetch goes on,
	// and the request sent again gets its verdict. Zero means
	// DefaultMinResponseTime; negative means 50 ms, the least a
	// LocalPacer leaves.
	MinResponseTime time.Duration

	// MaxRate caps the requests the Transport sends per second, all
	// origins together, NoPacing or not: a crawler's own bandwidth or
	// budget, where each origin's pace is the site's. Bursts of up to a
	// second's worth go at once. A request waits for it after its
	// origin's turn, within its deadline: one that cannot go in time fails
	// at once with a *PacingError. Robots.txt fetches are not counted.
	// Zero means no cap.
	MaxRate float64

	// Pacer decides when each request may be sent (see Pacer). Nil means
	// the Transport's own LocalPacer, on Clock, which paces the requests
	// of this Transport; a Pacer shared by several Transports, or by
	// processes (package robotsredis), paces them together.
	Pacer Pacer

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
	//
	// A request stops waiting for a fetch before its own deadline (a
	// *PacingError; the fetch goes on, and decides the requests sent
	// after it ends): behind an http.Client whose Timeout is shorter than
	// FetchTimeout (colly's is 10 seconds), a server that holds its
	// robots.txt costs each request to the origin its Timeout until then.
	// A FetchTimeout shorter than the Timeout (less MinResponseTime)
	// decides them instead.
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

	// NormalizePaths, if true, also decides each request by its path with
	// dot segments removed (RFC 3986 §5.2.4, "%2e" read as a dot) and runs
	// of slashes merged, and sends it only when robots.txt allows both
	// that path and the path as written: a server that resolves
	// /a/../private, /./private or //private to /private would otherwise
	// serve what "Disallow: /private" forbids. RFC 9309 matches the path
	// as written, so this refuses some requests the RFC allows; false,
	// the default, follows the RFC.
	NormalizePaths bool

	// Payment, if not nil, lets the Transport pay for pages that charge
	// crawlers (pay-per-crawl): each request is sent with a
	// crawler-max-price of the policy's MaxPrice, or less when a budget
	// has less left, and what the site charges (crawler-charged) is
	// counted against the budgets, reported to the Observer (Charged)
	// and in Stats. A response charged more than it was offered fails
	// with a *pay.OverchargeError. A URL charged once is not offered
	// payment again for the policy's RepayAfter, so that a retry is not
	// paid twice. See package pay.
	//
	// With a policy or without, a 402 answer with a crawler-price
	// (Cloudflare's pay-per-crawl) that was not paid fails with a
	// *pay.PaymentRequiredError (errors.Is pay.ErrPaymentRequired) that
	// holds the price and why it was not paid; its body is closed, and
	// the request is not sent again. A 402 without crawler-price is a
	// response as any other. The request's own crawler-max-price and
	// crawler-exact-price fields are dropped: no page is paid for
	// unless Payment says so. Nil means nothing is paid.
	//
	// Sites charge only crawlers that sign their requests (Web Bot Auth):
	// Base must be a signer that covers crawler-max-price, as package
	// botauth's does.
	//
	// Likewise, a 401 or 402 answer with a License challenge in its
	// WWW-Authenticate field (RSL 1.0: the site asks for a licence
	// token) fails with a *usage.LicenseRequiredError naming the licence
	// to obtain; its body is closed. A request that carries a token
	// (usage.SetLicenseToken) is sent with it.
	Payment *pay.Policy

	once        sync.Once
	token       string                             // product token of UserAgent
	uaField     []string                           // the User-Agent field of robots.txt fetches, with UserAgent
	storeSlots  chan struct{}                      // one per Store call under way
	states      *lru.Cache[stateKey, *originState] // origin states and ACAP references
	flights     singleflight.Group                 // robots.txt states being refreshed (see lookup)
	fileFlights singleflight.Group                 // site files being read (see siteFile)
	// servesRobots: a request for /robots.txt was answered, or tried
	// to be, from memory: states keep their entries whole.
	servesRobots atomic.Bool
	pacer        LocalPacer
	signals      []signal      // what the Transport reads beyond the rules (see signalsOf)
	limiter      *rate.Limiter // of MaxRate; nil for none
	counters     counters
	wallet       wallet // of Payment

	fetchOnce  sync.Once
	fetchRT    http.RoundTripper              // fetches robots.txt files (see fetchBase)
	fetchClone atomic.Pointer[http.Transport] // fetchRT, when it is a clone of Base

	// Test hook: the retry waits of robots.txt fetches.
	retryWaitMin, retryWaitMax time.Duration
}

func (t *Transport) init() {
	t.once.Do(func() {
		if t.UserAgent != "" {
			t.token = policy.ProductToken(t.UserAgent)
			t.uaField = []string{t.UserAgent}
		}
		size := t.CacheSize
		switch {
		case size == 0:
			size = DefaultCacheSize
		case size < MinCacheSize:
			size = MinCacheSize
		}
		size = max(size, 8*int64(t.maxSize())) // room for a few files of the largest size
		seed := maphash.MakeSeed()
		t.states = lru.New(size, (*originState).memSize, func(k stateKey) uint64 { return k.hash(seed) }, (*originState).is)
		t.pacer.Clock = t.Clock
		t.limiter = t.newLimiter()
		t.signals = signalsOf(t)
		t.storeSlots = make(chan struct{}, maxStoreCalls)
		t.wallet.init(t.Payment)
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

func (t *Transport) minResponseTime() time.Duration {
	if t.MinResponseTime < 0 {
		return minSendTime
	}
	return orDefault(t.MinResponseTime, DefaultMinResponseTime)
}

func (t *Transport) fetchTimeout() time.Duration {
	return orDefault(t.FetchTimeout, DefaultFetchTimeout)
}

// RoundTrip checks req against robots.txt, as Check does, waits for the
// origin's pace, and sends it through Base; a request whose wait outlived
// the robots.txt it was checked by is checked again, by the file as it is
// then, and waits for its turn once more. It returns an error matching
// ErrDisallowed, without sending anything, when robots.txt disallows the
// URL or cannot be fetched; an error wrapping the context's when req's
// context ends while it waits, or its deadline comes before the origin's
// pace lets it go. A 402 answer with a crawler-price that is not paid
// fails with a *pay.PaymentRequiredError, a charge above the offer with
// a *pay.OverchargeError, and a 401 or 402 asking for an RSL licence with
// a *usage.LicenseRequiredError, their bodies closed (see Payment). As the
// http.RoundTripper contract asks, it does not change req, and closes
// req.Body when it does not send it.
//
// GET and HEAD requests for /robots.txt itself are not checked: a plain
// GET is answered from the cache (fetching the file as requests do) when
// it holds the whole file, fresh; anything else is sent as it is. The
// cache holds files whole once a request for /robots.txt was made, or
// with a Store; otherwise it keeps only their parsed rules.
//
// The origin of a request is that of its URL, or of its Host header when
// req.Host names another host: the robots.txt of that host decides, fetched
// from the URL's address with the same Host header.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.init()
	if isRobotsTxt(req) {
		return t.robotsTxt(req)
	}
	if t.wallet.err != nil {
		closeBody(req)
		return nil, t.wallet.err
	}
	st, every, now, err := t.check(req, t.minResponseTime())
	if err != nil {
		closeBody(req)
		return nil, err
	}
	ctx := req.Context()
	if t.NoPacing {
		waited, err := t.waitRate(ctx, st.name())
		if err != nil {
			return nil, t.gaveUp(req, st, now, err)
		}
		if waited > 0 {
			t.waited(WaitEvent{Origin: st.name(), Wait: waited})
			if !st.fresh(now.Add(waited)) {
				if st, _, now, err = t.recheck(req); err != nil {
					closeBody(req)
					return nil, err
				}
			}
		}
		o := t.wallet.offer(req, st.name(), now)
		resp, err := t.base().RoundTrip(t.outgoing(req, o.price))
		return t.paid(req, o, resp, err)
	}
	lease, err := t.acquire(ctx, st, every)
	if err != nil {
		return nil, t.gaveUp(req, st, now, err)
	}
	waited, err := t.waitRate(ctx, st.name())
	if err != nil {
		lease.abandon()
		return nil, t.gaveUp(req, st, now, err)
	}
	if waited += lease.Waited; waited > 0 {
		t.waited(WaitEvent{Origin: st.name(), Wait: waited, Throttled: lease.Throttled})
		if !st.fresh(now.Add(waited)) {
			// The wait outlived the rules req was decided by: it gives
			// its turn back, is decided as a request made now would be
			// (the file fetched with no turn held, so that the origin's
			// pace counts from what is sent), and waits for a turn
			// again, once.
			lease.abandon()
			if st, every, now, err = t.recheck(req); err != nil {
				closeBody(req)
				return nil, err
			}
			if lease, err = t.acquire(ctx, st, every); err != nil {
				return nil, t.gaveUp(req, st, now, err)
			}
			if lease.Waited > 0 {
				t.waited(WaitEvent{Origin: st.name(), Wait: lease.Waited, Throttled: lease.Throttled})
			}
		}
	}
	var end *turnBody // releases the lease, when there is one
	switch {
	case lease.h != nil:
		end = &lease.h.body
	case lease.OnRelease != nil:
		end = &turnBody{done: lease.OnRelease}
	}
	o := t.wallet.offer(req, st.name(), now)
	resp, err := t.base().RoundTrip(t.outgoing(req, o.price))
	if err != nil {
		if end != nil {
			end.ended()
		}
		return t.paid(req, o, nil, err)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		t.throttle(ctx, st, resp.Header.Get("Retry-After"))
	} else if st.strikes.Load() != 0 {
		st.strikes.Store(0) // only then: the state stays clean in other cores' caches
	}
	if end != nil {
		endTurn(ctx, resp, end)
	}
	return t.paid(req, o, resp, nil)
}

// acquire waits for the turn of a request to st's origin, every apart.
func (t *Transport) acquire(ctx context.Context, st *originState, every time.Duration) (Lease, error) {
	return t.pacerFor().Acquire(ctx, PaceRequest{Origin: st.name(), Interval: every, Limit: t.maxRequests(), MinTimeLeft: t.minResponseTime(), kept: &st.pace})
}

// recheck decides req again, as check does but not counted as a request
// checked: its wait for its turn outlived the state it was decided by, so
// that it would go by rules older than the cache lets a request use (RFC
// 9309 §2.4). The state is fetched as needed.
func (t *Transport) recheck(req *http.Request) (*originState, time.Duration, time.Time, error) {
	o, dial, err := requestOrigin(req)
	if err != nil {
		return nil, 0, time.Time{}, err // it was read before: cannot happen
	}
	return t.checkAt(req, o, dial, t.minResponseTime())
}

// gaveUp closes the body of req, which waited for its origin's pace (or
// MaxRate) and gave up with err at now, reports it, and returns err.
func (t *Transport) gaveUp(req *http.Request, st *originState, now time.Time, err error) error {
	closeBody(req)
	ev := WaitEvent{Origin: st.name(), Err: err}
	var pe *PacingError
	if errors.As(err, &pe) {
		ev.Throttled = pe.Throttled
		if !pe.NotBefore.IsZero() {
			ev.Wait = pe.NotBefore.Sub(now)
		}
	}
	t.waited(ev)
	return err
}

// outgoing returns req as it is sent: a copy that carries UserAgent when
// req carries no User-Agent, or one of another product (see UserAgent),
// and the crawler-max-price of offer, if not zero, but no price fields of
// req's own (see Payment). The copy is shallow, with a header of its own:
// a RoundTripper changes nothing of the request it is given.
func (t *Transport) outgoing(req *http.Request, offer pay.Price) *http.Request {
	setUA := t.UserAgent != ""
	if v := req.Header["User-Agent"]; setUA && len(v) > 0 && v[0] != "" && (v[0] == t.UserAgent || strings.EqualFold(policy.ProductToken(v[0]), t.token)) {
		setUA = false
	}
	_, max := req.Header[hdrMaxPrice]
	_, exact := req.Header[hdrExactPrice]
	if !setUA && offer.IsZero() && !max && !exact {
		return req
	}
	r := new(http.Request)
	*r = *req
	h := make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		h[k] = v
	}
	if setUA {
		h["User-Agent"] = t.uaField
	}
	delete(h, hdrExactPrice)
	delete(h, hdrMaxPrice)
	if !offer.IsZero() {
		h[hdrMaxPrice] = []string{offer.String()}
	}
	r.Header = h
	return r
}

func (t *Transport) pacerFor() Pacer {
	if t.Pacer != nil {
		return t.Pacer
	}
	return &t.pacer
}

func (t *Transport) maxRequests() int {
	if t.MaxRequestsPerOrigin < 0 {
		return 0
	}
	return orDefault(t.MaxRequestsPerOrigin, DefaultMaxRequestsPerOrigin)
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
	_, _, _, err := t.check(req, 0)
	return err
}

// CloseIdleConnections closes the idle connections of Base, if it has
// such a method (as *http.Transport does). http.Client.CloseIdleConnections
// calls it.
func (t *Transport) CloseIdleConnections() {
	if ci, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
	if c := t.fetchClone.Load(); c != nil {
		c.CloseIdleConnections()
	}
}

// isRobotsTxt reports whether req fetches /robots.txt, and nothing else.
func isRobotsTxt(req *http.Request) bool {
	u := req.URL
	// EscapedPath is "/robots.txt" only when Path is: most requests are
	// told apart without escaping their path.
	return u != nil && u.Path == "/robots.txt" && (req.Method == "" || req.Method == http.MethodGet || req.Method == http.MethodHead) &&
		u.Opaque == "" && u.RawQuery == "" && !u.ForceQuery && u.EscapedPath() == "/robots.txt"
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// check decides req against its origin's robots.txt, fetched as needed. It
// returns the origin's state, the interval to keep between requests that
// the agent makes to the origin, and the time of the decision. A request
// to be sent leaves its response leave before its deadline (see lookup).
func (t *Transport) check(req *http.Request, leave time.Duration) (st *originState, every time.Duration, now time.Time, err error) {
	if req.URL == nil {
		return nil, 0, now, unsupportedURL("the request has no URL")
	}
	o, dial, err := requestOrigin(req)
	if err != nil {
		return nil, 0, now, err
	}
	t.counters.check(o.host)
	return t.checkAt(req, o, dial, leave)
}

// checkAt is check, for req to origin o, reached at dial.
func (t *Transport) checkAt(req *http.Request, o origin, dial string, leave time.Duration) (st *originState, every time.Duration, now time.Time, err error) {
	ua := t.requestAgent(req)
	now = t.now() // once: reading the clock is not free
	st, waited, err := t.lookup(req.Context(), o, dial, ua, now, leave)
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
