package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/robotstest"
)

const rules = "User-agent: *\nDisallow: /private/\n\nUser-agent: TestBot\nDisallow: /secret\nAllow: /secret/ok\n"

func TestEnforcesRules(t *testing.T) {
	h := newHarness(t)
	s := h.origin(rules)
	h.allowed(s.URL + "/")
	h.allowed(s.URL + "/private/x") // TestBot has its own group
	h.allowed(s.URL + "/secret/ok/1")
	d := h.refused(s.URL+"/secret/plans?id=1", robotsguard.ReasonRule)

	want := robotsguard.DisallowedError{
		Method: "GET", URL: s.URL + "/secret/plans?id=1", Agent: "TestBot",
		RobotsURL: s.URL + "/robots.txt", Reason: robotsguard.ReasonRule, Status: 200,
		Decision: policy.Decision{Allowed: false, Basis: policy.BasisRule, GroupAgent: "testbot", GroupLine: 4,
			Rule: policy.Rule{Pattern: "/secret", Line: 5}},
	}
	if !reflect.DeepEqual(*d, want) {
		t.Errorf("refusal\n\t%+v, want\n\t%+v", *d, want)
	}
	wantMsg := fmt.Sprintf(`robotsguard: disallowed for "TestBot" by %s/robots.txt line 5 "Disallow: /secret" (group "testbot")`, s.URL)
	if d.Error() != wantMsg {
		t.Errorf("message %q, want %q", d.Error(), wantMsg)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/", "/private/x", "/secret/ok/1"}) {
		t.Errorf("origin saw %q", got)
	}
}

// closeRecorder is a request body that records whether it was closed.
type closeRecorder struct {
	io.Reader
	closed atomic.Bool
}

func (c *closeRecorder) Close() error { c.closed.Store(true); return nil }

// TestRefusalClosesBody: the RoundTripper contract asks the transport to
// close the body of a request it does not send.
func TestRefusalClosesBody(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /upload\n")
	body := &closeRecorder{Reader: strings.NewReader("data")}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/upload", body)
	_, err := h.client.Do(req)
	if !errors.Is(err, robotsguard.ErrDisallowed) || !body.closed.Load() {
		t.Errorf("err %v, body closed %v; want ErrDisallowed and a closed body", err, body.closed.Load())
	}
	if n := count(s, "/upload"); n != 0 {
		t.Errorf("origin got %d requests for /upload", n)
	}
}

// TestRedirectTargetsChecked: http.Client calls RoundTrip for every hop, so
// a redirect into a disallowed path, on the same origin or another, is
// refused before the hop is sent.
func TestRedirectTargetsChecked(t *testing.T) {
	h := newHarness(t)
	other := h.origin("User-agent: *\nDisallow: /closed\n")
	s := newOrigin(t, h.clock, "User-agent: *\nDisallow: /private\n", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, "/private/x", http.StatusFound)
		case "/to-other":
			http.Redirect(w, r, other.URL+"/closed/y", http.StatusMovedPermanently)
		case "/to-other-open":
			http.Redirect(w, r, other.URL+"/open", http.StatusFound)
		default:
			io.WriteString(w, "ok")
		}
	})
	d := h.refused(s.URL+"/to-private", robotsguard.ReasonRule)
	if d.URL != s.URL+"/private/x" {
		t.Errorf("refused %s, want the redirect target", d.URL)
	}
	d = h.refused(s.URL+"/to-other", robotsguard.ReasonRule)
	if d.URL != other.URL+"/closed/y" || d.RobotsURL != other.URL+"/robots.txt" {
		t.Errorf("refused %s by %s, want the other origin's target and robots.txt", d.URL, d.RobotsURL)
	}
	h.allowed(s.URL + "/to-other-open")
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/to-private", "/to-other", "/to-other-open"}) {
		t.Errorf("origin saw %q", got)
	}
	if got := seen(other); !slices.Equal(got, []string{"/robots.txt", "/open"}) {
		t.Errorf("other origin saw %q", got)
	}
}

// TestQueryMatchedAndNotReordered: the query is part of the match, and the
// request goes out with its query exactly as given.
func TestQueryMatchedAndNotReordered(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /search?q=\nDisallow: /*&sort=\nDisallow: /*b=2&a=1\n")
	h.refused(s.URL+"/search?q=robots", robotsguard.ReasonRule)
	h.refused(s.URL+"/list?page=2&sort=asc", robotsguard.ReasonRule)
	h.refused(s.URL+"/x?b=2&a=1", robotsguard.ReasonRule)
	h.allowed(s.URL + "/search?lang=en&q=robots")
	h.allowed(s.URL + "/x?a=1&b=2")
	h.allowed(s.URL + "/x?z=%2F&y=1")
	want := []string{"/robots.txt", "/search?lang=en&q=robots", "/x?a=1&b=2", "/x?z=%2F&y=1"}
	if got := seen(s); !slices.Equal(got, want) {
		t.Errorf("origin saw %q, want %q", got, want)
	}
}

// TestAgentFromRequestHeader: without UserAgent, each request's
// User-Agent header selects the group, and is sent for the robots.txt.
func TestAgentFromRequestHeader(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "" })
	s := h.origin(rules)
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/secret", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; TestBot/2.0)")
	_, err := h.client.Do(req)
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.Agent != "TestBot" {
		t.Fatalf("TestBot on /secret: %v", err)
	}
	if ua := lastRobots(t, s).Header.Get("User-Agent"); ua != "Mozilla/5.0 (compatible; TestBot/2.0)" {
		t.Errorf("robots.txt fetched with User-Agent %q", ua)
	}
	req.Header.Set("User-Agent", "OtherBot/1.0")
	if resp, err := h.client.Do(req); err != nil {
		t.Errorf("OtherBot on /secret: %v", err)
	} else {
		resp.Body.Close()
	}
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want once for each agent", n)
	}
}

// TestAgentsGetTheirOwnFile: without UserAgent, a site that answers each
// agent with its own robots.txt is obeyed for each: the file fetched for
// one agent does not decide for another.
func TestAgentsGetTheirOwnFile(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "" })
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("User-Agent"), "colly") {
			io.WriteString(w, "User-agent: *\nDisallow: /b\n")
			return
		}
		io.WriteString(w, "User-agent: *\nDisallow: /a\n")
	}))
	get := func(ua, path string) error {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("User-Agent", ua)
		resp, err := h.client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for range 2 { // the second time from the cache
		if err := get("OtherBot/1.0", "/b"); err != nil {
			t.Errorf("OtherBot on /b: %v, want allowed by its file", err)
		}
		if err := get("colly - https://github.com/gocolly/colly", "/b"); !errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("colly on /b: %v, want refused by its file", err)
		}
		if err := get("colly/2.1", "/a"); err != nil {
			t.Errorf("colly/2.1 on /a: %v, want allowed by colly's file", err)
		}
	}
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want once for each agent", n)
	}
}

func TestRobotsFetchSendsUserAgent(t *testing.T) {
	h := newHarness(t)
	s := h.origin(rules)
	h.allowed(s.URL + "/")
	if ua := lastRobots(t, s).Header.Get("User-Agent"); ua != h.tr.UserAgent {
		t.Errorf("robots.txt fetched with User-Agent %q, want %q", ua, h.tr.UserAgent)
	}
}

// TestHerd: a thousand concurrent requests to a cold origin cause exactly
// one robots.txt request; all of them wait for it and then proceed.
func TestHerd(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Base = &http.Transport{MaxConnsPerHost: 8}
	})
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		<-release
		io.WriteString(w, "User-agent: *\nDisallow: /no\n")
	}))
	free := sync.OnceFunc(func() { close(release) })
	t.Cleanup(free) // before s.Close, which waits for the handler
	const n = 1000
	// Each request tells, through its context, when it first waits on
	// something: on the robots.txt fetch, since that cannot end before
	// release. One that returns without waiting tells too.
	var waiting sync.WaitGroup
	waiting.Add(n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/page"
			if i%10 == 0 {
				path = "/no"
			}
			ctx := &waitingContext{Context: context.Background(), waiting: sync.OnceFunc(waiting.Done)}
			_, err := h.do(ctx, s.URL+path)
			ctx.waiting()
			if (path == "/no") != errors.Is(err, robotsguard.ErrDisallowed) || path != "/no" && err != nil {
				errs <- fmt.Errorf("%s: %v", path, err)
			}
		}()
	}
	allWaiting := make(chan struct{})
	go func() { waiting.Wait(); close(allWaiting) }()
	select {
	case <-allWaiting:
	case <-time.After(time.Minute): // a bound on failure, not a pause: this is never reached when the Transport works
		t.Error("the requests did not all wait on the robots.txt fetch")
	}
	free()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := count(s, "/robots.txt"); got != 1 {
		t.Errorf("robots.txt requested %d times, want 1", got)
	}
	if got := count(s, "/page"); got != n-n/10 {
		t.Errorf("origin got %d page requests, want %d", got, n-n/10)
	}
	if got := count(s, "/no"); got != 0 {
		t.Errorf("origin got %d disallowed requests", got)
	}
	if st := h.tr.Stats(); st.CacheMisses != n || st.Fetches != 1 {
		t.Errorf("%d cache misses and %d fetches, want all %d requests waiting on one fetch", st.CacheMisses, st.Fetches, n)
	}
}

// waitingContext is a context that calls waiting when it is first asked
// for its Done channel: when whoever holds it is about to wait.
type waitingContext struct {
	context.Context
	waiting func()
}

func (c *waitingContext) Done() <-chan struct{} {
	c.waiting()
	return c.Context.Done()
}

// TestContextCancelledWhileFetching: a request whose context ends while
// the robots.txt is being fetched returns at once with the context's
// error; the fetch goes on and serves the next request.
func TestContextCancelledWhileFetching(t *testing.T) {
	fetching := make(chan struct{}, 1)
	release := make(chan struct{})
	h := newHarness(t)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		select {
		case fetching <- struct{}{}:
		default: // told once is enough
		}
		<-release
		io.WriteString(w, "User-agent: *\nDisallow: /no\n")
	}))
	free := sync.OnceFunc(func() { close(release) })
	t.Cleanup(free) // before s.Close, which waits for the handler
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := h.do(ctx, s.URL+"/page")
		done <- err
	}()
	select {
	case <-fetching:
	case err := <-done:
		t.Fatalf("request returned before the robots.txt was fetched: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatalf("cancelled request: %v, want context.Canceled", err)
	}
	free()
	h.allowed(s.URL + "/page")
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/page"}) {
		t.Errorf("origin saw %q", got)
	}
}

func TestUnreachableErrors(t *testing.T) {
	t.Run("network error", func(t *testing.T) {
		h := newHarness(t)
		s := h.origin("")
		url := s.URL
		s.Close()
		d := h.refused(url+"/page", robotsguard.ReasonUnreachable)
		var fe *robotsguard.FetchError
		if !errors.As(d.Err, &fe) || fe.URL != url+"/robots.txt" || fe.Err == nil {
			t.Errorf("refusal %v: want a FetchError with the network error", d)
		}
	})
	t.Run("truncated body", func(t *testing.T) {
		h := newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
		s := h.origin("")
		s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, "User-agent: *\nAllow: /\n") // then the connection closes
		}))
		d := h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		if !errors.Is(d.Err, io.ErrUnexpectedEOF) {
			t.Errorf("refusal %v: want io.ErrUnexpectedEOF inside", d)
		}
		if got := seen(s); !slices.Equal(got, []string{"/robots.txt"}) {
			t.Errorf("origin saw %q", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		h := newHarness(t, func(tr *robotsguard.Transport) {
			tr.FetchTimeout = 500 * time.Millisecond // its quarter more is the margin the fetch has to report its time-out, on a busy machine too
			tr.RetryMax = -1
		})
		s := h.origin("")
		s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) { <-release }))
		d := h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		if !errors.Is(d.Err, context.DeadlineExceeded) || errors.Is(d, context.DeadlineExceeded) {
			t.Errorf("refusal %v: want context.DeadlineExceeded in Err, and not matched by the refusal", d)
		}
	})
}

// TestBodyCap: only the parser's size limit of a robots.txt is read; a
// body that never ends does not hang the fetch, and rules past the limit
// are not applied.
func TestBodyCap(t *testing.T) {
	const total = 1 << 30 // what the server would send if it were read to the end
	type wrote struct {
		n   int64
		err error // the write that failed, nil if all of total went out
	}
	result := make(chan wrote, 1)
	h := newHarness(t)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		// A client that stops reading without hanging up would block a
		// write for good: the deadline bounds the handler whatever the
		// Transport does.
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))
		// The first write holds a rule, 500 KiB of comments, a rule just
		// past them, and more comments: all of it in the stream before the
		// client can have read 500 KiB.
		var b strings.Builder
		b.WriteString("User-agent: *\nDisallow: /early\n")
		line := strings.Repeat("#", 1023) + "\n"
		for b.Len() < policy.DefaultMaxSize {
			b.WriteString(line)
		}
		b.WriteString("Disallow: /late\n")
		for b.Len() < 600<<10 {
			b.WriteString(line)
		}
		n, err := io.WriteString(w, b.String())
		written := int64(n)
		block := strings.Repeat(line, 64)
		for err == nil && written < total { // at most total/64 KiB writes
			n, err = io.WriteString(w, block)
			written += int64(n)
		}
		result <- wrote{written, err}
	}))
	h.refused(s.URL+"/early", robotsguard.ReasonRule)
	h.allowed(s.URL + "/late")
	got := <-result
	if got.err == nil {
		t.Errorf("the server wrote all of its %d bytes: the body was read to the end", got.n)
	}
	if errors.Is(got.err, os.ErrDeadlineExceeded) {
		t.Errorf("the server's writes blocked after %d bytes: the client stopped reading without hanging up", got.n)
	}
	if got.n >= total {
		t.Errorf("the server wrote %d bytes, want the client to hang up before %d", got.n, total)
	}
}

// TestRedirects: the robots.txt fetch follows up to five redirects, across
// hosts, and the rules found apply to the original origin; more, a loop,
// or a redirect out of HTTP make the file unavailable.
func TestRedirects(t *testing.T) {
	target := newOrigin(t, newAutoClock(), "User-agent: *\nDisallow: /blocked\n", nil)
	chain := func(hops int, last string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			n := 0
			fmt.Sscan(r.URL.Query().Get("hop"), &n)
			if n < hops-1 {
				http.Redirect(w, r, fmt.Sprintf("/robots.txt?hop=%d", n+1), http.StatusFound)
				return
			}
			http.Redirect(w, r, last, http.StatusMovedPermanently)
		}
	}
	tests := []struct {
		name    string
		robots  http.HandlerFunc
		blocked bool // whether /blocked is refused: the target's rules apply
		fetches int  // robots.txt requests to the first origin
	}{
		{"one hop to another host", chain(1, target.URL+"/robots.txt"), true, 1},
		{"five hops", chain(5, target.URL+"/robots.txt"), true, 5},
		{"six hops: unavailable", chain(6, target.URL+"/robots.txt"), false, 6},
		{"loop: unavailable", chain(1, "/robots.txt"), false, 6},
		{"to ftp: unavailable", chain(1, "ftp://example.com/robots.txt"), false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			s := h.origin("")
			s.Fault("/robots.txt", robotstest.Handler(tc.robots))
			if tc.blocked {
				d := h.refused(s.URL+"/blocked", robotsguard.ReasonRule)
				if d.RobotsURL != s.URL+"/robots.txt" {
					t.Errorf("rules attributed to %s, want the original origin", d.RobotsURL)
				}
			} else {
				h.allowed(s.URL + "/blocked")
			}
			if got := countQuery(s, "/robots.txt"); got != tc.fetches {
				t.Errorf("origin saw %q, want %d robots.txt requests", seen(s), tc.fetches)
			}
		})
	}
}

// countQuery counts the requests whose URI starts with prefix (a path and
// any query).
func countQuery(s *robotstest.Origin, prefix string) int {
	n := 0
	for _, u := range seen(s) {
		if strings.HasPrefix(u, prefix) {
			n++
		}
	}
	return n
}

// TestUnsupportedURLs: only http and https URLs with a host can be checked;
// anything else fails with ErrUnsupportedURL, is not taken for a refusal,
// and is not sent. Check says the same, and closes no body.
func TestUnsupportedURLs(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = failingRoundTripper{t} })
	for _, u := range []*url.URL{
		{Scheme: "ftp", Host: "example.com", Path: "/x"},
		{Scheme: "http", Path: "/x"},
		{Scheme: "file", Path: "/etc/passwd"},
		{Scheme: "http", Host: "example.com", Opaque: "//other.example/x"},
	} {
		body := &closeRecorder{Reader: strings.NewReader("data")}
		req := &http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}, Body: body}
		if err := h.tr.Check(req); !errors.Is(err, robotsguard.ErrUnsupportedURL) || errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("Check %s: %v, want ErrUnsupportedURL alone", u, err)
		}
		if body.closed.Load() {
			t.Errorf("Check %s closed the body", u)
		}
		if _, err := h.tr.RoundTrip(req); !errors.Is(err, robotsguard.ErrUnsupportedURL) || errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("RoundTrip %s: %v, want ErrUnsupportedURL alone", u, err)
		}
		if !body.closed.Load() {
			t.Errorf("RoundTrip %s left the body of an unsent request open", u)
		}
	}
	if st := h.tr.Stats(); st.Checked != 0 || st.Refused != 0 {
		t.Errorf("stats %+v, want no check and no refusal counted", st)
	}
}

// failingRoundTripper fails the test if anything is sent through it.
type failingRoundTripper struct{ t *testing.T }

func (f failingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	f.t.Errorf("%s %s sent", req.Method, req.URL)
	return nil, errors.New("nothing may be sent")
}

func TestOriginKey(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://example.com/a", "http://example.com"},
		{"http://Example.COM:80/a", "http://example.com"},
		{"https://example.com:443/", "https://example.com"},
		{"https://example.com:80/", "https://example.com:80"},
		{"http://example.com:8181/", "http://example.com:8181"},
		{"http://example.com:08181/", "http://example.com:8181"},
		{"HTTP://example.com/", "http://example.com"},
		{"http://www.müller.eu/", "http://www.xn--mller-kva.eu"},
		{"http://www.MÜLLER.eu:80/", "http://www.xn--mller-kva.eu"},
		{"http://212.96.82.21/robots.txt", "http://212.96.82.21"},
		{"http://[2001:DB8::1]:8080/", "http://[2001:db8::1]:8080"},
		{"http://[2001:db8::1]:80/", "http://[2001:db8::1]"},
	}
	for _, tc := range tests {
		if got, err := robotsguard.OriginOf(tc.url); err != nil || got != tc.want {
			t.Errorf("origin of %s = %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
}

// TestZeroValue: the zero Transport works.
func TestZeroValue(t *testing.T) {
	s := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /no\n")
	client := &http.Client{Transport: &robotsguard.Transport{}}
	resp, err := client.Get(s.URL + "/yes")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := client.Get(s.URL + "/no"); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("GET /no: %v", err)
	}
}

// TestRefusalRedactsPassword: a refusal's URL, and so its message, never
// holds the password of the request's URL.
func TestRefusalRedactsPassword(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /\n")
	u := strings.Replace(s.URL, "http://", "http://user:hunter2@", 1) + "/x"
	_, err := h.get(u)
	if !errors.Is(err, robotsguard.ErrDisallowed) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("refusal %v leaks the password or is not a refusal", err)
	}
}

// TestNoBypass: a request can neither slip past the check as a request for
// /robots.txt, nor through an Opaque URL naming another host.
func TestNoBypass(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /private\nDisallow: /robots.txt\n")
	u, _ := url.Parse(s.URL + "/robots.txt")
	u.Opaque = "/private/secret" // sent as the request path
	if _, err := h.tr.RoundTrip(&http.Request{Method: "GET", URL: u, Header: http.Header{}}); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("Opaque path behind /robots.txt: %v, want a refusal", err)
	}
	u2, _ := url.Parse(s.URL + "/x")
	u2.Opaque = "//other.example/private"
	if _, err := h.tr.RoundTrip(&http.Request{Method: "GET", URL: u2, Header: http.Header{}}); !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("absolute-form Opaque URL: %v, want ErrUnsupportedURL", err)
	}
	u3, _ := url.Parse(s.URL + "/robots.txt")
	u3.Opaque = "//other.example/robots.txt"
	if _, err := h.tr.RoundTrip(&http.Request{Method: "GET", URL: u3, Header: http.Header{}}); !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("absolute-form Opaque URL for /robots.txt: %v, want ErrUnsupportedURL", err)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("origin saw %q, want only the transport's robots.txt fetch", got)
	}
}

// TestHostHeaderOrigin: a request that dials one address with another Host
// is checked against the robots.txt of that Host, fetched from the same
// address with the same Host header.
func TestHostHeaderOrigin(t *testing.T) {
	h := newHarness(t)
	s := h.origin("")
	var mu sync.Mutex
	var hosts []string // the Host of each robots.txt request
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		if r.Host == "victim.example" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	}))
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/private", nil)
	req.Host = "victim.example"
	_, err := h.client.Do(req)
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.RobotsURL != "http://victim.example/robots.txt" {
		t.Fatalf("err %v, want a refusal by victim.example's robots.txt", err)
	}
	mu.Lock()
	if host := hosts[len(hosts)-1]; host != "victim.example" {
		t.Errorf("robots.txt fetched with Host %q", host)
	}
	mu.Unlock()
	h.allowed(s.URL + "/private") // the address's own origin allows it
}

func TestUnderscoreHost(t *testing.T) {
	if got, err := robotsguard.OriginOf("http://My_Host.Example.com/"); err != nil || got != "http://my_host.example.com" {
		t.Errorf("origin %q, %v", got, err)
	}
}

// TestCheck: Check decides as RoundTrip does, fetching the robots.txt, but
// sends nothing else, does not pace, and leaves the body alone.
func TestCheck(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /no\nCrawl-delay: 10\n")
	for range 3 {
		body := &closeRecorder{Reader: strings.NewReader("data")}
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/yes", body)
		if err := h.tr.Check(req); err != nil {
			t.Errorf("Check /yes: %v", err)
		}
		req, _ = http.NewRequest(http.MethodPost, s.URL+"/no", body)
		err := h.tr.Check(req)
		var d *robotsguard.DisallowedError
		if !errors.As(err, &d) || d.Reason != robotsguard.ReasonRule || d.Decision.Rule.Line != 2 || d.Method != http.MethodPost {
			t.Errorf("Check /no: %v, want a refusal by line 2", err)
		}
		if body.closed.Load() {
			t.Error("Check closed the request's body")
		}
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/robots.txt", nil)
	if err := h.tr.Check(req); err != nil {
		t.Errorf("Check /robots.txt: %v", err)
	}
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("origin saw %q, want only the robots.txt fetch", got)
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("Check paused %v", got)
	}
	if st := h.tr.Stats(); st.Checked != 6 || st.Refused != 3 || st.CacheMisses != 1 || st.Fetches != 1 || st.Waits != 0 {
		t.Errorf("stats %+v, want 6 checked, 3 refused, 1 miss, 1 fetch, no wait", st)
	}
	// Check then RoundTrip: the request is not paced as if Check had sent it.
	h.allowed(s.URL + "/yes")
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("the first request sent paused %v", got)
	}
}

// TestCheckContext: Check waits for the robots.txt within the request's
// context, and returns the context's error, not a refusal.
func TestCheckContext(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		<-release
		io.WriteString(w, "User-agent: *\nDisallow: /no\n")
	}))
	t.Cleanup(sync.OnceFunc(func() { close(release) }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/no", nil)
	if err := h.tr.Check(req); !errors.Is(err, context.Canceled) || errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("Check with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestRobotsSnapshot: Robots gives an origin's rules as the Transport
// holds them, fetched once, and an unreachable robots.txt as a Snapshot,
// not an error.
func TestRobotsSnapshot(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /no\n\nUser-agent: TestBot\nCrawl-delay: 3\n\nSitemap: https://example.com/sitemap.xml\n")
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=600"))
	u, _ := url.Parse(s.URL + "/any/page")
	snap, err := h.tr.Snapshot(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Origin != s.URL || snap.URL != s.URL+"/robots.txt" || snap.Access != robotsguard.AccessRules || snap.Status != 200 ||
		snap.Delay != 3*time.Second || snap.Err != nil || !snap.Received.Equal(h.clock.Now()) ||
		!snap.FreshUntil.Equal(h.clock.Now().Add(10*time.Minute)) {
		t.Errorf("snapshot %+v", snap)
	}
	if got := snap.Rules.Sitemaps(); !slices.Equal(got, []string{"https://example.com/sitemap.xml"}) {
		t.Errorf("sitemaps %q", got)
	}
	h.allowed(s.URL + "/no/1") // TestBot follows only its group
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once for Robots and RoundTrip", n)
	}

	h = newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
	down := h.origin("")
	down.Fault("/robots.txt", robotstest.Status(503))
	u, _ = url.Parse(down.URL)
	snap, err = h.tr.Snapshot(context.Background(), u)
	var fe *robotsguard.FetchError
	if err != nil || snap.Access != robotsguard.AccessUnreachable || !errors.As(snap.Err, &fe) || fe.Status != 503 {
		t.Errorf("unreachable: %+v, %v; want Access Unreachable and the FetchError", snap, err)
	}

	h = newHarness(t, func(tr *robotsguard.Transport) { tr.Delay = 2 * time.Second })
	gone := h.origin("")
	gone.Fault("/robots.txt", robotstest.Status(404))
	u, _ = url.Parse(gone.URL)
	if snap, err = h.tr.Snapshot(context.Background(), u); err != nil || snap.Access != robotsguard.AccessAllowAll || snap.Status != 404 || snap.Delay != 2*time.Second {
		t.Errorf("404: %+v, %v; want AllowAll, status 404 and Delay", snap, err)
	}

	if _, err := h.tr.Snapshot(context.Background(), &url.URL{Scheme: "ftp", Host: "example.com"}); !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("ftp URL: %v, want ErrUnsupportedURL", err)
	}
}

// TestPrefetch: Prefetch fetches each origin's robots.txt once, whatever
// URL of it is given; later requests use them; arguments that are not
// http or https URLs are reported, and do not stop the others.
func TestPrefetch(t *testing.T) {
	h := newHarness(t)
	a := h.origin("User-agent: *\nDisallow: /no\n")
	b := h.origin("")
	b.Fault("/robots.txt", robotstest.Status(404))
	err := h.tr.Prefetch(context.Background(), a.URL, a.URL+"/page", b.URL+"/", "ftp://example.com", "::")
	if !errors.Is(err, robotsguard.ErrUnsupportedURL) {
		t.Errorf("Prefetch: %v, want ErrUnsupportedURL among the errors", err)
	}
	if err == nil || !strings.Contains(err.Error(), "ftp://example.com") || !strings.Contains(err.Error(), `"::"`) {
		t.Errorf("Prefetch: %v, want both bad arguments named", err)
	}
	if na, nb := count(a, "/robots.txt"), count(b, "/robots.txt"); na != 1 || nb != 1 {
		t.Errorf("robots.txt fetched %d and %d times, want once each", na, nb)
	}
	h.refused(a.URL+"/no", robotsguard.ReasonRule)
	h.allowed(b.URL + "/no")
	if st := h.tr.Stats(); st.Fetches != 2 {
		t.Errorf("%d fetches, want the prefetched files used", st.Fetches)
	}
	// Fresh origins are not fetched again.
	if err := h.tr.Prefetch(context.Background(), a.URL, b.URL); err != nil {
		t.Errorf("Prefetch again: %v", err)
	}
	if na, nb := count(a, "/robots.txt"), count(b, "/robots.txt"); na != 1 || nb != 1 {
		t.Errorf("robots.txt fetched %d and %d times, want once each", na, nb)
	}
}

// TestPanicInBase: a panic in Base while it fetches a robots.txt fails the
// fetch, and the requests waiting on it are refused; the process lives.
func TestPanicInBase(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Base = panickingRoundTripper{}
		tr.RetryMax = -1
	})
	d := h.refused("http://example.com/page", robotsguard.ReasonUnreachable)
	var fe *robotsguard.FetchError
	var pe *robotsguard.PanicError
	if !errors.As(d.Err, &fe) || !errors.As(d.Err, &pe) || pe.Value != "base is broken" || len(pe.Stack) == 0 {
		t.Errorf("refusal %v: want a FetchError holding the PanicError", d)
	}
	if st := h.tr.Stats(); st.Fetches != 1 || st.Failures != 1 {
		t.Errorf("stats %+v, want one failed fetch", st)
	}
}

type panickingRoundTripper struct{}

func (panickingRoundTripper) RoundTrip(*http.Request) (*http.Response, error) {
	panic("base is broken")
}

// TestCloseIdleConnections: the Transport forwards CloseIdleConnections to
// Base, so http.Client.CloseIdleConnections reaches it.
func TestCloseIdleConnections(t *testing.T) {
	base := &closeIdleRecorder{}
	client := &http.Client{Transport: &robotsguard.Transport{Base: base}}
	client.CloseIdleConnections()
	if base.calls.Load() != 1 {
		t.Errorf("Base's CloseIdleConnections called %d times, want once", base.calls.Load())
	}
	(&robotsguard.Transport{Base: staticRoundTripper{}}).CloseIdleConnections() // no such method: nothing to do
}

type closeIdleRecorder struct {
	staticRoundTripper
	calls atomic.Int32
}

func (c *closeIdleRecorder) CloseIdleConnections() { c.calls.Add(1) }

// TestAgentWithoutUserAgentHeader: without UserAgent, a request that
// carries no User-Agent is decided for the one net/http sends for it.
func TestAgentWithoutUserAgentHeader(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "" })
	s := h.origin("User-agent: Go-http-client\nDisallow: /go\n\nUser-agent: *\nDisallow: /other\n")
	if d := h.refused(s.URL+"/go", robotsguard.ReasonRule); d.Agent != "Go-http-client" {
		t.Errorf("refused for %q, want Go-http-client", d.Agent)
	}
	h.allowed(s.URL + "/other")
	if ua := lastRobots(t, s).Header.Get("User-Agent"); ua != "Go-http-client/1.1" {
		t.Errorf("robots.txt fetched as %q", ua)
	}
}

// TestCloseIdleConnectionsFirst: closing idle connections before the first
// request leaves the Transport ready to fetch robots.txt files.
func TestCloseIdleConnectionsFirst(t *testing.T) {
	s := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /private\n")
	tr := &robotsguard.Transport{UserAgent: "TestBot/1.0", NoPacing: true}
	tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	defer c.CloseIdleConnections()
	resp, err := c.Get(s.URL + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := c.Get(s.URL + "/private"); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("GET /private: %v, want ErrDisallowed", err)
	}
}

var _ http.RoundTripper = (*robotsguard.Transport)(nil)

// TestUserAgentSent: the Transport decides for UserAgent, and the site
// sees it: a request without a User-Agent, or with another product's, is
// sent with UserAgent; one with UserAgent's product token is sent as it
// is. The caller's request is left as it was.
func TestUserAgentSent(t *testing.T) {
	for _, tc := range []struct{ carried, sent string }{
		{"", "TestBot/1.0 (+https://example.com/bot)"},
		{"colly - https://github.com/gocolly/colly", "TestBot/1.0 (+https://example.com/bot)"},
		{"Go-http-client/1.1", "TestBot/1.0 (+https://example.com/bot)"},
		{"testbot/2.0 (mobile)", "testbot/2.0 (mobile)"},
	} {
		h := newHarness(t)
		s := h.origin("User-agent: *\nDisallow: /private\n")
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/page", nil)
		if tc.carried != "" {
			req.Header.Set("User-Agent", tc.carried)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		rs := s.Requests()
		got := rs[len(rs)-1].Header.Get("User-Agent")
		if got != tc.sent {
			t.Errorf("a request carrying %q was sent as %q, want %q", tc.carried, got, tc.sent)
		}
		if ua := req.Header.Get("User-Agent"); ua != tc.carried {
			t.Errorf("the caller's request was changed: User-Agent %q, was %q", ua, tc.carried)
		}
	}
}

// TestQuickStartUserAgent: the quick start as a newcomer writes it, a
// plain http.Client whose requests carry no User-Agent, against a site
// that lets FooBot in and every other agent out: the site sees FooBot.
func TestQuickStartUserAgent(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\nAllow: /\n")
	client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)", NoPacing: true}}
	for _, p := range []string{"/page", "/other"} {
		resp, err := client.Get(o.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, r := range o.Requests() {
		if r.UserAgent != "FooBot/1.0 (+https://example.com/bot)" {
			t.Errorf("%s sent as %q", r.URL, r.UserAgent)
		}
	}
}
