package robotsretry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/pay"
	"github.com/robotsguard/robotsguard/robotsretry"
	"github.com/robotsguard/robotsguard/robotstest"
)

const agent = "TestBot/1.0 (+https://example.com/bot)"

// start is the time of the tests' clocks.
var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newOrigin starts a robotstest Origin serving robots, and returns it with
// a Transport for it that paces (Delay -1: no pause unless robots.txt or a
// 429 or 503 asks for one) on the Origin's clock, which starts at start,
// moves itself and records the pauses (Clock.Sleeps).
func newOrigin(t *testing.T, robots string) (*robotstest.Origin, *robotsguard.Transport) {
	o := robotstest.NewUnstartedOrigin(t, robots)
	o.Clock = robotstest.NewClock(start)
	o.Clock.SetAutoAdvance(true)
	o.Start()
	tr := o.Transport(agent)
	tr.NoPacing = false
	tr.Delay = -1
	return o, tr
}

// newClient is NewClient(tr) as a test runs it: quiet, with short waits
// between attempts that are not a 429's or a 503's, and counting its
// attempts.
func newClient(tr *robotsguard.Transport, attempts *int) *retryablehttp.Client {
	var mu sync.Mutex
	c := robotsretry.NewClient(tr)
	c.Logger = nil
	c.HTTPClient.Timeout = 10 * time.Second
	c.RetryWaitMin = time.Millisecond
	c.RetryWaitMax = 10 * time.Millisecond
	c.RetryMax = 4
	c.RequestLogHook = func(retryablehttp.Logger, *http.Request, int) {
		mu.Lock()
		*attempts++
		mu.Unlock()
	}
	return c
}

// count returns how many requests for uri the Origin received.
func count(o *robotstest.Origin, uri string) int {
	n := 0
	for _, r := range o.Requests() {
		if r.URL == uri {
			n++
		}
	}
	return n
}

// TestCheckRetryRefusals: a refused URL, or a redirect into a refused
// path, is tried once: the allowed first hop is not sent again.
func TestCheckRetryRefusals(t *testing.T) {
	o, tr := newOrigin(t, "User-agent: *\nDisallow: /private\n")
	o.Fault("/r", robotstest.Redirect("/private/x"))
	for _, path := range []string{"/private/a", "/r"} {
		var attempts int
		_, err := newClient(tr, &attempts).Get(o.URL + path)
		if !errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("GET %s: %v, want ErrDisallowed", path, err)
		}
		if attempts != 1 {
			t.Errorf("GET %s: %d attempts, want 1", path, attempts)
		}
	}
	if n := count(o, "/r"); n != 1 {
		t.Errorf("the redirecting page was requested %d times, want once", n)
	}
	if n := count(o, "/private/x"); n != 0 {
		t.Errorf("the disallowed page was requested %d times", n)
	}
}

// TestCheckRetryUnsupportedURL: a URL the Transport does not handle is
// tried once.
func TestCheckRetryUnsupportedURL(t *testing.T) {
	_, tr := newOrigin(t, "User-agent: *\nDisallow: /private\n")
	var attempts int
	_, err := newClient(tr, &attempts).Get("ftp://example.com/file")
	if !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("GET ftp://…: %v, want ErrUnsupportedURL", err)
	}
	if attempts != 1 {
		t.Errorf("%d attempts, want 1", attempts)
	}
}

// TestCheckRetryPacing: a request whose deadline comes before its turn is
// not retried: it fails with the *PacingError for the caller to requeue.
func TestCheckRetryPacing(t *testing.T) {
	o, tr := newOrigin(t, "User-agent: *\nCrawl-delay: 15\n")
	var attempts int
	c := newClient(tr, &attempts)
	resp, err := c.Get(o.URL + "/1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	attempts = 0
	_, err = c.Get(o.URL + "/2")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want a *PacingError", err)
	}
	if attempts != 1 {
		t.Errorf("%d attempts, want 1", attempts)
	}
	if n := count(o, "/2"); n != 0 {
		t.Errorf("the paced page was requested %d times", n)
	}
}

// TestBackoffOnce: after a 503 with Retry-After, the retry waits once, in
// the Transport (on its clock), not also in the client; a Retry-After
// beyond MaxThrottle is capped.
func TestBackoffOnce(t *testing.T) {
	o, tr := newOrigin(t, "User-agent: *\nDisallow: /private\n")
	o.Fault("/page",
		robotstest.Status(503, "Retry-After: 7"),
		robotstest.Status(503, "Retry-After: 45"),
		robotstest.Pass())
	tr.MaxThrottle = 30 * time.Second
	var attempts int
	c := newClient(tr, &attempts)
	c.HTTPClient.Timeout = 0 // the clock waits the back-off, past any deadline
	var clientWaits []time.Duration
	c.Backoff = func(min, max time.Duration, n int, resp *http.Response) time.Duration {
		d := robotsretry.Backoff(nil)(min, max, n, resp)
		clientWaits = append(clientWaits, d)
		return d
	}
	resp, err := c.Get(o.URL + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || attempts != 3 {
		t.Errorf("status %d after %d attempts, want 200 after 3", resp.StatusCode, attempts)
	}
	if got := o.Clock.Sleeps(); !slices.Equal(got, []time.Duration{7 * time.Second, 30 * time.Second}) {
		t.Errorf("the Transport waited %v, want [7s 30s]", got)
	}
	if got := o.Clock.Now().Sub(start); got != 37*time.Second {
		t.Errorf("the Transport's clock moved %v, want 37s", got)
	}
	if !slices.Equal(clientWaits, []time.Duration{0, 0}) {
		t.Errorf("the client waited %v itself too: the waits add up", clientWaits)
	}
}

// TestCheckRetryLongRetryAfter: a 429 whose Retry-After asks for more than
// a minute is returned at once, for the caller to requeue, rather than
// each attempt waiting up to MaxThrottle.
func TestCheckRetryLongRetryAfter(t *testing.T) {
	o, tr := newOrigin(t, "User-agent: *\nDisallow: /private\n")
	o.Fault("/page", robotstest.Status(429, "Retry-After: 31536000"))
	var attempts int
	resp, err := newClient(tr, &attempts).Get(o.URL + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || attempts != 1 {
		t.Errorf("status %d after %d attempts, want the 429 after 1", resp.StatusCode, attempts)
	}
	if got := o.Clock.Sleeps(); len(got) != 0 {
		t.Errorf("waited %v", got)
	}
}

// TestCheckRetryRetryAfter: a 429 or 503 is final when its Retry-After
// asks for more than a minute, in seconds or as a date; otherwise, and for
// other statuses, next decides.
func TestCheckRetryRetryAfter(t *testing.T) {
	inTwoMinutes := time.Now().Add(2 * time.Minute).UTC().Format(http.TimeFormat)
	inHalfAMinute := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		status     int
		retryAfter string
		final      bool
	}{
		{429, "60", false},
		{429, "61", true},
		{503, "61", true},
		{503, " 3600 ", true},
		{503, "18446744073709551615", true}, // no overflow into the past
		{429, inTwoMinutes, true},
		{429, inHalfAMinute, false},
		{503, "Mon, 01 Jan 2001 00:00:00 GMT", false},
		{503, "", false},
		{503, "-120", false},
		{503, "soon", false},
		{500, "3600", false},
		{502, "3600", false},
	} {
		resp := &http.Response{StatusCode: tc.status, Header: http.Header{}}
		if tc.retryAfter != "" {
			resp.Header.Set("Retry-After", tc.retryAfter)
		}
		var asked bool
		next := func(context.Context, *http.Response, error) (bool, error) {
			asked = true
			return true, nil
		}
		retry, err := robotsretry.CheckRetry(next)(context.Background(), resp, nil)
		if err != nil {
			t.Errorf("%d, Retry-After %q: error %v", tc.status, tc.retryAfter, err)
		}
		if tc.final && (retry || asked) {
			t.Errorf("%d, Retry-After %q: retried (next asked: %v), want the response returned", tc.status, tc.retryAfter, asked)
		}
		if !tc.final && (!retry || !asked) {
			t.Errorf("%d, Retry-After %q: not retried (next asked: %v), want next to decide", tc.status, tc.retryAfter, asked)
		}
	}
}

// TestCheckRetryNext: errors and responses that are not the Transport's
// concern are next's to decide, and a nil next is go-retryablehttp's
// default policy.
func TestCheckRetryNext(t *testing.T) {
	ctx := context.Background()
	netErr := errors.New("connection reset")
	var got error
	next := func(_ context.Context, _ *http.Response, err error) (bool, error) {
		got = err
		return false, nil
	}
	if retry, _ := robotsretry.CheckRetry(next)(ctx, nil, netErr); retry || got != netErr {
		t.Errorf("a network error: retry %v, next saw %v; want next to decide", retry, got)
	}
	for _, tc := range []struct {
		resp *http.Response
		err  error
	}{
		{nil, netErr},
		{&http.Response{StatusCode: 500, Header: http.Header{}}, nil},
		{&http.Response{StatusCode: 429, Header: http.Header{}}, nil},
		{&http.Response{StatusCode: 404, Header: http.Header{}}, nil},
	} {
		want, wantErr := retryablehttp.DefaultRetryPolicy(ctx, tc.resp, tc.err)
		retry, err := robotsretry.CheckRetry(nil)(ctx, tc.resp, tc.err)
		if retry != want || (err == nil) != (wantErr == nil) {
			t.Errorf("CheckRetry(nil)(%v, %v) = %v, %v; DefaultRetryPolicy says %v, %v", tc.resp, tc.err, retry, err, want, wantErr)
		}
	}
}

// TestBackoff: no wait after a 429 or a 503, next's wait after anything
// else; a nil next is go-retryablehttp's default back-off.
func TestBackoff(t *testing.T) {
	next := func(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
		return time.Duration(attempt) * time.Hour
	}
	for _, tc := range []struct {
		resp *http.Response
		want time.Duration
	}{
		{&http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"5"}}}, 0},
		{&http.Response{StatusCode: 503}, 0},
		{&http.Response{StatusCode: 500}, 3 * time.Hour},
		{nil, 3 * time.Hour},
	} {
		if got := robotsretry.Backoff(next)(time.Second, time.Minute, 3, tc.resp); got != tc.want {
			t.Errorf("Backoff(next) after %v: %v, want %v", tc.resp, got, tc.want)
		}
	}
	resp := &http.Response{StatusCode: 500, Header: http.Header{}}
	if got, want := robotsretry.Backoff(nil)(time.Second, time.Minute, 2, resp), retryablehttp.DefaultBackoff(time.Second, time.Minute, 2, resp); got != want {
		t.Errorf("Backoff(nil) after a 500: %v, DefaultBackoff says %v", got, want)
	}
}

// TestNewClient: the client sends through the Transport with CheckRetry
// and Backoff, and keeps go-retryablehttp's other defaults.
func TestNewClient(t *testing.T) {
	tr := &robotsguard.Transport{UserAgent: agent}
	c := robotsretry.NewClient(tr)
	if c.HTTPClient.Transport != tr {
		t.Errorf("HTTPClient.Transport is %T, want the Transport", c.HTTPClient.Transport)
	}
	refusal := &url.Error{Op: "Get", URL: "https://example.com/private", Err: robotsguard.ErrDisallowed}
	if retry, err := c.CheckRetry(context.Background(), nil, refusal); retry || err != refusal {
		t.Errorf("CheckRetry after a refusal: %v, %v; want false and the refusal", retry, err)
	}
	if d := c.Backoff(time.Second, time.Minute, 1, &http.Response{StatusCode: 503}); d != 0 {
		t.Errorf("Backoff after a 503: %v, want 0", d)
	}
	def := retryablehttp.NewClient()
	if c.RetryMax != def.RetryMax || c.RetryWaitMin != def.RetryWaitMin || c.RetryWaitMax != def.RetryWaitMax || c.HTTPClient.Timeout != def.HTTPClient.Timeout {
		t.Errorf("RetryMax %d, waits %v-%v, timeout %v; go-retryablehttp's defaults are %d, %v-%v, %v",
			c.RetryMax, c.RetryWaitMin, c.RetryWaitMax, c.HTTPClient.Timeout, def.RetryMax, def.RetryWaitMin, def.RetryWaitMax, def.HTTPClient.Timeout)
	}
}

// TestNewClientNil: NewClient panics at once on a nil Transport, rather
// than at the first request.
func TestNewClientNil(t *testing.T) {
	defer func() {
		if r := recover(); r != "robotsretry: NewClient needs a Transport" {
			t.Errorf("recovered %v", r)
		}
	}()
	robotsretry.NewClient(nil)
}

// TestRetryNotPaidTwice: a site charges for a 500 (a liar: pay-per-crawl
// bills successes only); go-retryablehttp retries it, the Transport does
// not offer payment again for the URL, and the 402 that answers is final.
func TestRetryNotPaidTwice(t *testing.T) {
	var mu sync.Mutex
	var offers []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			return // empty: everything allowed
		}
		offer := r.Header.Get("Crawler-Max-Price")
		mu.Lock()
		offers = append(offers, offer)
		mu.Unlock()
		if offer == "" {
			w.Header().Set("Crawler-Price", "USD 0.01")
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		w.Header().Set("Crawler-Charged", "USD 0.01")
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	tr := &robotsguard.Transport{
		UserAgent: agent, NoPacing: true,
		Payment: &pay.Policy{MaxPrice: pay.MustParsePrice("USD 0.05"), Budget: pay.MustParsePrice("USD 1")},
	}
	var attempts int
	c := newClient(tr, &attempts)
	_, err := c.Get(srv.URL + "/page")
	var e *pay.PaymentRequiredError
	if !errors.As(err, &e) || e.Reason != pay.ReasonPaid {
		t.Fatalf("Get: %v, want a PaymentRequiredError for ReasonPaid", err)
	}
	if !slices.Equal(offers, []string{"USD 0.05", ""}) || attempts != 2 {
		t.Errorf("%d attempts, offers %q; want two, the second without an offer", attempts, offers)
	}
	if st := tr.Stats(); st.Charges != 1 || st.Spent != pay.MustParsePrice("USD 0.01") {
		t.Errorf("Stats: %d charges, spent %v", st.Charges, st.Spent)
	}
}
