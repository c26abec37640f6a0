package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/robotsguard/robotsguard/cache"
)

// Access is what a robots.txt response allows.
type Access uint8

const (
	// UseRules: the rules of the file decide (a 2xx response).
	UseRules Access = iota
	// AllowAll: the file is unavailable, so there are no restrictions
	// (RFC 9309 §2.3.1.3). Cached like any response.
	AllowAll
	// DisallowAll: nothing may be fetched. Cached like any response.
	DisallowAll
	// Unreachable: a server error; nothing may be fetched for now, but a
	// cached copy of the file stands in for it, and the fetch is tried
	// again later (RFC 9309 §2.3.1.4).
	Unreachable
)

var accessNames = [...]string{
	UseRules:    "use rules",
	AllowAll:    "allow all",
	DisallowAll: "disallow all",
	Unreachable: "unreachable",
}

// String returns the access's name: "use rules", "allow all", …
func (a Access) String() string {
	if int(a) < len(accessNames) {
		return accessNames[a]
	}
	return "Access(" + strconv.Itoa(int(a)) + ")"
}

// A StatusPolicy tells what the status code of a robots.txt response means,
// after redirects. Transport.StatusPolicy plugs one in.
type StatusPolicy func(status int) Access

// DefaultStatusPolicy reads statuses as RFC 9309 §2.3.1 and Google do: 2xx
// is UseRules; 3xx (the end of a redirect chain that is too long or leaves
// HTTP) and 4xx are AllowAll, except 429 Too Many Requests, which like 5xx
// and anything else is Unreachable.
//
// Some answers cannot be the file whatever a StatusPolicy says, and the
// fetch fails (Unreachable, retried later, a cached copy standing in) before
// the policy is asked: an answer that cannot be the file is not the file
// (RFC 9110), and read as one it would allow everything. They are a 206
// Partial Content (a robots.txt request has no Range, so a part of the file
// is no file, RFC 9110 §15.3.7), a 304 Not Modified to a request that was
// not conditional (§15.4.5), and a 3xx that ends the chain although no
// redirect limit or scheme stopped it: a redirect without a Location, or
// one that cannot be followed (§15.4), says nothing about the file.
func DefaultStatusPolicy(status int) Access {
	switch {
	case status >= 200 && status < 300:
		return UseRules
	case status == http.StatusTooManyRequests:
		return Unreachable
	case status >= 300 && status < 500:
		return AllowAll
	}
	return Unreachable
}

// Koster1996StatusPolicy is DefaultStatusPolicy, except that 401
// Unauthorized and 403 Forbidden disallow everything, as the 1996 draft of
// the protocol says (section 3.1).
func Koster1996StatusPolicy(status int) Access {
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return DisallowAll
	}
	return DefaultStatusPolicy(status)
}

// fetchResult is the outcome of one fetch of a robots.txt.
type fetchResult struct {
	entry   *cache.Entry
	err     error // why the fetch failed; nil when entry holds a usable response
	outcome Outcome
}

// Backing off after failed fetches: no new fetch before a minute, doubling
// up to an hour, or the server's Retry-After, honoured up to a day.
const (
	failureBackoffMin = time.Minute
	failureBackoffMax = time.Hour
	maxRetryAfter     = 24 * time.Hour
)

// fetch fetches the robots.txt of o, revalidating old when it has a usable
// response, and returns the new entry. When dial is not empty the file is
// fetched from that host, with o's host in the Host header.
func (t *Transport) fetch(ctx context.Context, o origin, dial, userAgent string, old *cache.Entry) fetchResult {
	fetchURL, host := o.robotsURL(), ""
	if dial != "" {
		fetchURL, host = origin{https: o.https, host: dial}.robotsURL(), o.host
	}
	return t.get(ctx, o.robotsURL(), fetchURL, host, userAgent, old)
}

// get fetches the resource at robotsURL as a robots.txt is fetched
// (retries, redirects, status policy, size limit), from fetchURL with host
// in the Host header when host is not empty, revalidating old when it has
// a usable response.
func (t *Transport) get(ctx context.Context, robotsURL, fetchURL, host, userAgent string, old *cache.Entry) fetchResult {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, fetchURL, nil)
	if err != nil {
		return t.failed(old, nil, &FetchError{URL: robotsURL, Err: err})
	}
	if host != "" {
		req.Host = host
	}
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	conditional := false
	if old != nil {
		for k, v := range old.Validators() {
			req.Header[k] = v
			conditional = true
		}
	}
	var requested time.Time
	var stopped bool // checkRedirect ended a chain: the final 3xx is the policy's
	client := t.retryClient(func() { requested, stopped = t.now(), false }, &stopped)
	resp, err := client.Do(req)
	received := t.now()
	if err != nil {
		if resp != nil {
			resp.Body.Close() // retryablehttp may return both
		}
		var pe *PanicError
		if errors.As(err, &pe) {
			err = pe // not the url.Error around it
		}
		return t.failed(old, nil, &FetchError{URL: robotsURL, Err: err})
	}
	defer resp.Body.Close()

	if resp.StatusCode == http.StatusNotModified && conditional && old.Status != 0 {
		return fetchResult{entry: old.Revalidated(resp.Header, requested, received), outcome: Revalidated}
	}
	if why := notTheFile(resp, stopped); why != "" {
		return t.failed(old, resp, &FetchError{URL: robotsURL, Status: resp.StatusCode, Err: errors.New("robotsguard: " + why)})
	}
	access := t.statusPolicy()(resp.StatusCode)
	if access == Unreachable {
		return t.failed(old, resp, &FetchError{URL: robotsURL, Status: resp.StatusCode})
	}
	e := &cache.Entry{
		Status:    resp.StatusCode,
		Header:    cache.KeepCaching(resp.Header),
		Requested: requested,
		Received:  received,
	}
	if access == UseRules {
		e.Body, err = readBody(resp, t.maxSize())
		if err != nil {
			// Incomplete data is a server error (Google's spec), and so
			// is a body that cannot be decoded: read as text, it would
			// hold no rules and allow everything.
			return t.failed(old, nil, &FetchError{URL: robotsURL, Status: resp.StatusCode, Err: err})
		}
	}
	return fetchResult{entry: e, outcome: Fetched}
}

// notTheFile says why resp, the final answer to a robots.txt request
// whose redirects checkRedirect stopped or not, and which is not a 304
// revalidating the response held, cannot be the file (see
// DefaultStatusPolicy), or "" when it can.
func notTheFile(resp *http.Response, stopped bool) string {
	switch s := resp.StatusCode; {
	case s == http.StatusPartialContent:
		return "206 Partial Content to a request without Range: a part of a file is not the file"
	case s == http.StatusNotModified:
		return "304 Not Modified to a request that was not conditional"
	case s >= 300 && s < 400 && s != http.StatusNotModified && !stopped:
		if resp.Header.Get("Location") == "" {
			return fmt.Sprintf("%d redirect without a Location", s)
		}
		return fmt.Sprintf("%d redirect that cannot be followed (Location %q)", s, resp.Header.Get("Location"))
	}
	return ""
}

// failed returns old updated with one more failure: the usable response it
// holds is kept, and the next fetch waits for a back-off.
func (t *Transport) failed(old *cache.Entry, resp *http.Response, err error) fetchResult {
	now := t.now()
	var e cache.Entry
	if old != nil {
		e = *old
	}
	if e.Failures == 0 {
		e.FailingSince = now
	}
	e.Failures++
	e.Err = err.Error()
	wait := failureBackoffMin << min(e.Failures-1, 10)
	wait = min(wait, failureBackoffMax)
	if resp != nil {
		if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After"), now); ok {
			wait = max(wait, min(ra, maxRetryAfter))
		}
	}
	e.RetryAt = now.Add(wait)
	out := Failed
	if e.Status != 0 && t.cachePolicy().UsableStale(&e, now) {
		out = ServedStale
	}
	return fetchResult{entry: &e, err: err, outcome: out}
}

// MaxFetchHeaderBytes bounds the response header of a robots.txt fetch
// (status line and fields, each redirect's), when Base is an
// *http.Transport or nil: the fetch goes through a clone of it with
// MaxResponseHeaderBytes at most this. An endless header then fails the
// fetch after 64 KiB instead of 10 MB (net/http's default) or more. Other
// Bases bound the header as they do; FetchTimeout bounds its time.
const MaxFetchHeaderBytes = 64 << 10

// fetchBase returns the RoundTripper that fetches robots.txt files: Base,
// or, when Base is an *http.Transport (nil meaning
// http.DefaultTransport) that lets a response header be larger than
// MaxFetchHeaderBytes, a clone of it that does not, made once and kept, so
// that its connections are reused from one fetch to the next
// (CloseIdleConnections closes them).
func (t *Transport) fetchBase() http.RoundTripper {
	t.fetchOnce.Do(func() {
		b := t.base()
		ht, ok := b.(*http.Transport)
		if !ok || ht.MaxResponseHeaderBytes > 0 && ht.MaxResponseHeaderBytes <= MaxFetchHeaderBytes {
			t.fetchRT = b
			return
		}
		c := ht.Clone()
		c.MaxResponseHeaderBytes = MaxFetchHeaderBytes
		t.fetchRT = c
		t.fetchClone.Store(c)
	})
	return t.fetchRT
}

// retryClient returns the client that fetches robots.txt files, retrying
// with back-off through go-retryablehttp; onAttempt runs before each
// attempt, and *stopped is set when checkRedirect ends a redirect chain.
func (t *Transport) retryClient(onAttempt func(), stopped *bool) *retryablehttp.Client {
	waitMax := t.retryWaitMax
	return &retryablehttp.Client{
		HTTPClient: &http.Client{
			// The base transport, not the Transport itself: robots.txt
			// is not subject to robots.txt.
			Transport: recoverer{t.fetchBase()},
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				err := t.checkRedirect(req, via)
				*stopped = err != nil
				return err
			},
		},
		RetryMax:       t.retryMax(),
		RetryWaitMin:   t.retryWaitMin,
		RetryWaitMax:   waitMax,
		RequestLogHook: func(retryablehttp.Logger, *http.Request, int) { onAttempt() },
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			var pe *PanicError
			if errors.As(err, &pe) {
				return false, nil // a panicking Base is not tried again
			}
			if resp != nil {
				// A server that asks for a long pause gets it: no retry
				// now, the back-off after the failure honours it.
				if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.now()); ok && ra > waitMax {
					return false, nil
				}
			}
			return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
		},
		Backoff:      retryablehttp.DefaultBackoff,          // honours Retry-After, at most waitMax (see CheckRetry)
		ErrorHandler: retryablehttp.PassthroughErrorHandler, // the last response is ours to read
		// Logger nil: silent.
	}
}

// recoverer is a RoundTripper that turns a panic of the one it wraps into
// an error, a *PanicError. It also hides the wrapped one's
// CloseIdleConnections from the retry client, which calls it after a
// failure and would drop the connections of every origin.
type recoverer struct{ rt http.RoundTripper }

func (r recoverer) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	defer func() {
		if v := recover(); v != nil {
			resp, err = nil, &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	resp, err = r.rt.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = recoveringBody{resp.Body}
	}
	return resp, err
}

// recoveringBody turns a panic of the body it wraps into an error.
type recoveringBody struct{ io.ReadCloser }

func (b recoveringBody) Read(p []byte) (n int, err error) {
	defer func() {
		if v := recover(); v != nil {
			n, err = 0, &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return b.ReadCloser.Read(p)
}

// checkRedirect follows at most maxRedirects redirects, to HTTP(S) URLs
// only, across hosts (RFC 9309 §2.3.1.2). Past that the 3xx response is the
// final one, and the StatusPolicy reads it (as unavailable, by default).
func (t *Transport) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > t.maxRedirects() {
		return http.ErrUseLastResponse
	}
	if s := strings.ToLower(req.URL.Scheme); s != "http" && s != "https" {
		return http.ErrUseLastResponse
	}
	return nil
}

// parseRetryAfter reads a Retry-After field (RFC 9110 §10.2.3): a number
// of seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		return time.Duration(min(n, uint64(maxRetryAfter/time.Second))) * time.Second, true
	}
	if d, err := http.ParseTime(v); err == nil {
		return max(d.Sub(now), 0), true
	}
	return 0, false
}
