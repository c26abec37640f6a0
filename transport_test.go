package robotsguard_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/robotstest"
)

var _ http.RoundTripper = (*robotsguard.Transport)(nil)

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

// TestUnsupportedURLError: URLs that have no robots.txt fail with
// ErrUnsupportedURL, unsent.
func TestUnsupportedURLError(t *testing.T) {
	h := newHarness(t)
	for _, u := range []*url.URL{
		{Scheme: "ftp", Host: "example.com", Path: "/x"},
		{Scheme: "http", Path: "/x"},
		{Scheme: "http", Host: "example.com", Opaque: "//other.example/x"},
		{Scheme: "file", Path: "/etc/passwd"},
	} {
		_, err := h.tr.RoundTrip(&http.Request{Method: "GET", URL: u, Header: http.Header{}})
		if !errors.Is(err, robotsguard.ErrUnsupportedURL) || errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("%s: %v, want ErrUnsupportedURL", u, err)
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
