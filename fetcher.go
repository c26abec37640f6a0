package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/robotsguard/robotsguard/cache"
)

// fetchResult is the outcome of one fetch of a robots.txt.
type fetchResult struct {
	entry   *cache.Entry
	err     error // why the fetch failed; nil when entry holds a usable response
	warn    error // what is wrong with a usable response (FetchEvent.Warning)
	outcome FetchOutcome
	// buf holds entry's body when it came from bodyBufs: it goes back
	// there once the state is built, unless the state keeps the body.
	buf *[]byte
	// until, when not zero, is when the result is used until in place of
	// entry's own freshness: a stale copy standing in while another
	// process revalidates it (see standIn).
	until time.Time
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
	u := &url.URL{Scheme: "http", Host: o.host, Path: "/robots.txt"}
	if o.https {
		u.Scheme = "https"
	}
	host := ""
	if dial != "" {
		u.Host, host = dial, o.host
	}
	return t.getURL(ctx, fetchTarget{o: o}, u, host, userAgent, old)
}

// fetchError returns the error of a fetch of target that err ended,
// after status was received (0 for none): one that says FetchTimeout ran
// out, when ctx, the fetch's, ended it by its deadline.
func (t *Transport) fetchError(ctx context.Context, target fetchTarget, status int, err error) *FetchError {
	fe := &FetchError{URL: target.String(), Status: status, Err: err}
	if errors.Is(err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		fe.timeout = t.fetchTimeout()
	}
	return fe
}

// fetchTarget names the resource a fetch is for, in its errors: the
// robots.txt of o, or raw when it is not empty. The name is built only
// when a fetch fails.
type fetchTarget struct {
	o   origin
	raw string
}

func (f fetchTarget) String() string {
	if f.raw != "" {
		return f.raw
	}
	return f.o.robotsURL()
}

// get fetches the resource at robotsURL as a robots.txt is fetched
// (retries, redirects, status policy, size limit), from fetchURL with host
// in the Host header when host is not empty, revalidating old when it has
// a usable response.
func (t *Transport) get(ctx context.Context, robotsURL, fetchURL, host, userAgent string, old *cache.Entry) fetchResult {
	u, err := url.Parse(fetchURL)
	if err != nil {
		return t.failed(old, nil, &FetchError{URL: robotsURL, Err: &url.Error{Op: "Get", URL: fetchURL, Err: err}})
	}
	return t.getURL(ctx, fetchTarget{raw: robotsURL}, u, host, userAgent, old)
}

// getURL is get, from u; target names the resource in errors.
func (t *Transport) getURL(ctx context.Context, target fetchTarget, u *url.URL, host, userAgent string, old *cache.Entry) fetchResult {
	h := make(http.Header, 3)
	switch userAgent {
	case "":
	case t.UserAgent:
		h["User-Agent"] = t.uaField // shared: a RoundTripper does not change a request
	default:
		h["User-Agent"] = []string{userAgent}
	}
	conditional := false
	if old != nil && old.Status != 0 {
		if v := field(old.Header, "Etag"); v != "" {
			h["If-None-Match"] = []string{v}
			conditional = true
		}
		if v := field(old.Header, "Last-Modified"); v != "" {
			h["If-Modified-Since"] = []string{v}
			conditional = true
		}
	}
	req := (&http.Request{
		Method: http.MethodGet, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Host: host,
	}).WithContext(ctx)
	requested, resp, stopped, err := t.send(ctx, req)
	received := t.now()
	if err != nil {
		if resp != nil {
			resp.Body.Close() // a retry cut short by the context may leave both
		}
		var pe *PanicError
		if errors.As(err, &pe) {
			err = pe // not the url.Error around it
		}
		return t.failed(old, nil, t.fetchError(ctx, target, 0, err))
	}
	defer resp.Body.Close()

	if resp.StatusCode == http.StatusNotModified && conditional && old.Status != 0 {
		return fetchResult{entry: old.Revalidated(resp.Header, requested, received), outcome: OutcomeRevalidated}
	}
	if why := notTheFile(resp, stopped); why != "" {
		return t.failed(old, resp, &FetchError{URL: target.String(), Status: resp.StatusCode, Err: errors.New("robotsguard: " + why)})
	}
	if nr := notRobotsTxt(resp, target); nr != nil {
		// A bot challenge is no file, whatever its status (challenge.go).
		return t.failed(old, resp, &FetchError{URL: target.String(), Status: resp.StatusCode, Err: nr})
	}
	access := t.statusPolicy()(resp.StatusCode)
	if access == AccessUnreachable {
		return t.failed(old, resp, &FetchError{URL: target.String(), Status: resp.StatusCode})
	}
	// A robots.txt's entry holds the response's own header until its state
	// packs the caching fields (see newState), unless the entry is kept
	// whole or shared through the Store: then it holds them alone.
	hdr := resp.Header
	if target.raw != "" || t.keepWhole() {
		hdr = cache.KeepCaching(resp.Header)
	}
	e := &cache.Entry{
		Status:    resp.StatusCode,
		Header:    hdr,
		Requested: requested,
		Received:  received,
	}
	var buf *[]byte
	if access == AccessRules {
		// The body of a robots.txt that no Store shares is read into a
		// buffer of bodyBufs: its state keeps the parsed rules, not the
		// body, unless it keeps entries whole (see refresh).
		if target.raw == "" && t.Store == nil && !t.signalsKeepBody() && !t.keepWhole() {
			buf = getBodyBuf()
		}
		e.Body, err = t.readBody(resp, buf)
		if err != nil {
			// Incomplete data is a server error (Google's spec), and so
			// is a body that cannot be decoded: read as text, it would
			// hold no rules and allow everything.
			putBodyBuf(buf)
			return t.failed(old, nil, t.fetchError(ctx, target, resp.StatusCode, err))
		}
		if nr := htmlNotRobotsTxt(resp, e.Body, target); nr != nil {
			if nr.Challenge != "" {
				putBodyBuf(buf)
				return t.failed(old, resp, &FetchError{URL: target.String(), Status: resp.StatusCode, Err: nr})
			}
			if target.raw == "" {
				// A page served for robots.txt: read as no rules, as
				// RFC 9309 and Google read it, and said.
				return fetchResult{entry: e, outcome: OutcomeFetched, buf: buf, warn: nr}
			}
		}
	}
	return fetchResult{entry: e, outcome: OutcomeFetched, buf: buf}
}

// send sends req, a robots.txt request, following redirects as
// checkRedirect lets it and retrying as go-retryablehttp's default policy
// does (with back-off, honouring Retry-After), within ctx. It returns the
// time the last attempt was sent, and its final response, unless the
// error tells why there is none; stopped tells whether checkRedirect
// ended a redirect chain, so that the final 3xx is the policy's. Like a
// retryablehttp.Client with PassthroughErrorHandler, it returns the last
// response when the retries are spent, and may return both a response and
// ctx's error.
func (t *Transport) send(ctx context.Context, req *http.Request) (requested time.Time, resp *http.Response, stopped bool, err error) {
	rt := recoverer{t.fetchBase()}
	waitMax := t.retryWaitMax
	for attempt := 0; ; attempt++ {
		requested = t.now()
		resp, stopped, err = t.follow(rt, req)
		retry, checkErr := t.retryFetch(ctx, resp, err, waitMax)
		if !retry || attempt >= t.retryMax() {
			if !retry && checkErr != nil {
				err = checkErr
			}
			return requested, resp, stopped, err
		}
		if resp != nil {
			drain(resp.Body)
		}
		wait := retryablehttp.DefaultBackoff(t.retryWaitMin, waitMax, attempt, resp)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return requested, nil, false, ctx.Err()
		case <-timer.C:
		}
	}
}

// retryFetch reports whether a robots.txt request that ended with resp or
// err is tried again, as go-retryablehttp's DefaultRetryPolicy says, with
// two exceptions: a panicking Base is not tried again, and a server that
// asks for a pause longer than waitMax gets it (the back-off after the
// failure honours it). The error is ctx's when it ended.
func (t *Transport) retryFetch(ctx context.Context, resp *http.Response, err error, waitMax time.Duration) (bool, error) {
	if err != nil && isPanic(err) {
		return false, nil
	}
	if resp != nil {
		if v := field(resp.Header, "Retry-After"); v != "" { // the clock is read for one alone
			if ra, ok := parseRetryAfter(v, t.now()); ok && ra > waitMax {
				return false, nil
			}
		}
	}
	return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
}

// field returns the first value of h's field name, as h.Get(name) does,
// name being in canonical form already (see http.CanonicalHeaderKey).
func field(h http.Header, name string) string {
	if vs := h[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// isPanic reports whether err is, or wraps, a *PanicError.
func isPanic(err error) bool {
	var pe *PanicError
	return errors.As(err, &pe)
}

// drain reads what is left of a body that is not used, a little at most,
// so that its connection may be reused, and closes it.
func drain(b io.ReadCloser) {
	defer b.Close()
	io.Copy(io.Discard, io.LimitReader(b, 4096))
}

// follow sends req through rt and follows the redirects of its answers as
// an http.Client does a GET without a body (the same Host header, header
// fields, Referer and errors), as long as checkRedirect lets it; stopped
// tells whether checkRedirect ended the chain.
func (t *Transport) follow(rt recoverer, req *http.Request) (resp *http.Response, stopped bool, err error) {
	first := req
	var via []*http.Request
	uerr := func(err error) error {
		u := req.URL
		if resp != nil && resp.Request != nil {
			u = resp.Request.URL
		}
		return &url.Error{Op: "Get", URL: u.Redacted(), Err: err}
	}
	for {
		if len(via) > 0 {
			loc := field(resp.Header, "Location")
			if loc == "" {
				return resp, false, nil
			}
			u, err := req.URL.Parse(loc)
			if err != nil {
				resp.Body.Close()
				resp = nil
				return nil, false, uerr(fmt.Errorf("failed to parse Location header %q: %v", loc, err))
			}
			host := ""
			if req.Host != "" && req.Host != req.URL.Host {
				if lu, _ := url.Parse(loc); lu != nil && !lu.IsAbs() {
					host = req.Host
				}
			}
			next := (&http.Request{
				Method: http.MethodGet, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: first.Header.Clone(), Host: host, Response: resp,
			}).WithContext(first.Context())
			if ref := referer(via[len(via)-1].URL, u); ref != "" {
				next.Header.Set("Referer", ref)
			}
			req = next
			if t.checkRedirect(req, via) != nil {
				return resp, true, nil
			}
			const maxBodySlurpSize = 2 << 10
			if resp.ContentLength == -1 || resp.ContentLength <= maxBodySlurpSize {
				io.CopyN(io.Discard, resp.Body, maxBodySlurpSize)
			}
			resp.Body.Close()
		}
		via = append(via, req)
		sent := req
		if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
			// As an http.Client does: the URL's user information is
			// sent as Basic authentication, on a copy of the request.
			sent = req.Clone(req.Context())
			pw, _ := u.Password()
			sent.SetBasicAuth(u.Username(), pw)
		}
		resp, err = rt.RoundTrip(sent)
		if err != nil {
			resp = nil
			return nil, false, uerr(err)
		}
		if resp == nil {
			return nil, false, uerr(fmt.Errorf("http: RoundTripper implementation (%T) returned a nil *Response with a nil error", t.fetchBase()))
		}
		if resp.Body == nil {
			if resp.ContentLength > 0 {
				r := resp
				resp = nil
				return nil, false, uerr(fmt.Errorf("http: RoundTripper implementation (%T) returned a *Response with content length %d but a nil Body", t.fetchBase(), r.ContentLength))
			}
			resp.Body = http.NoBody
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			return resp, false, nil
		}
	}
}

// referer is the Referer of a request that follows a redirect from last
// to next, as an http.Client sends it: none from https to http, and no
// user information.
func referer(last, next *url.URL) string {
	if last.Scheme == "https" && next.Scheme == "http" {
		return ""
	}
	if last.User != nil {
		l := *last
		l.User = nil
		return l.String()
	}
	return last.String()
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
		if ra, ok := parseRetryAfter(field(resp.Header, "Retry-After"), now); ok {
			wait = max(wait, min(ra, maxRetryAfter))
		}
	}
	e.RetryAt = now.Add(wait)
	out := OutcomeFailed
	if e.Status != 0 && t.cachePolicy().UsableStale(&e, now) {
		out = OutcomeServedStale
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

// recoverer is a RoundTripper that turns a panic of the one it wraps into
// an error, a *PanicError.
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
