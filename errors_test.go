package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// TestRefusalReadsOnce: through an http.Client, which puts the method and
// URL before a transport's error, a refusal names the request once.
func TestRefusalReadsOnce(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /private\n")
	client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0", NoPacing: true}}
	_, err := client.Get(o.URL + "/private/a")
	want := fmt.Sprintf(`Get "%s/private/a": robotsguard: disallowed for "FooBot" by %s/robots.txt line 2 "Disallow: /private" (group "*")`, o.URL, o.URL)
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

// TestUnreachableFetchError: the refusal of a request whose robots.txt
// cannot be fetched holds the *FetchError that errors.As finds, as the
// package documentation says, and does not match the fetch's own
// time-out: the request did not time out.
func TestUnreachableFetchError(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow:\n")
	o.Fault("/robots.txt", robotstest.Status(http.StatusServiceUnavailable))
	tr := &robotsguard.Transport{UserAgent: "FooBot/1.0", NoPacing: true, RetryMax: -1}
	client := &http.Client{Transport: tr}
	_, err := client.Get(o.URL + "/a")
	var fe *robotsguard.FetchError
	if !errors.As(err, &fe) || fe.Status != http.StatusServiceUnavailable || fe.URL != o.URL+"/robots.txt" {
		t.Fatalf("err %v: errors.As finds %+v, want the *FetchError of a 503", err, fe)
	}
	want := fmt.Sprintf(`Get "%s/a": robotsguard: disallowed for "FooBot": %s/robots.txt is unreachable and no copy of it can stand in: status 503; it is fetched again in 1m0s`, o.URL, o.URL)
	if err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	// The refusal says when the rules are read again: the end of the
	// back-off after the failed fetch, a minute.
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || time.Until(d.NotBefore) < 50*time.Second || time.Until(d.NotBefore) > time.Minute {
		t.Errorf("NotBefore %v, want a minute from now", d.NotBefore)
	}

	// A connection that ends before an answer: the message names the
	// robots.txt once, not again in the http.Client's "Get" error.
	closing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	defer closing.Close()
	err = (&robotsguard.Transport{UserAgent: "FooBot/1.0", NoPacing: true, RetryMax: -1}).Check(httptestRequest(t, closing.URL+"/a"))
	if want := closing.URL + "/robots.txt"; !errors.As(err, &fe) || strings.Count(err.Error(), want) != 1 {
		t.Errorf("error %v: want a *FetchError naming %s once", err, want)
	}

	// A fetch that times out: the refusal holds the time-out, but is no
	// time-out of the request's.
	slow := robotstest.NewOrigin(t, "User-agent: *\nDisallow:\n")
	gate := make(chan struct{})
	defer close(gate)
	slow.Fault("/robots.txt", robotstest.SlowBody(gate))
	tr = &robotsguard.Transport{UserAgent: "FooBot/1.0", NoPacing: true, RetryMax: -1, FetchTimeout: 400 * time.Millisecond} // a budget of 500ms: room for a loaded machine to return the time-out
	err = tr.Check(httptestRequest(t, slow.URL+"/a"))
	if !errors.As(err, &fe) || !errors.Is(fe, context.DeadlineExceeded) {
		t.Fatalf("err %v: want a *FetchError of a time-out", err)
	}
	if errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("err %v matches context.DeadlineExceeded, or not ErrDisallowed", err)
	}
	// It says whose deadline it was: "context deadline exceeded" alone
	// could be the request's.
	if want := "robots.txt is unreachable and no copy of it can stand in: status 200: no complete answer within FetchTimeout (400ms): "; !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant it to say %q", err, want)
	}
}

// TestUnsupportedURLMessages: a URL that has no robots.txt says why in
// words that fit it, and Prefetch says the package's name once.
func TestUnsupportedURLMessages(t *testing.T) {
	tr := &robotsguard.Transport{UserAgent: "FooBot/1.0"}
	for _, tc := range []struct{ url, want string }{
		{"/relative/path", "robotsguard: URL cannot be checked against robots.txt: it is relative (no scheme, no host): only absolute http and https URLs have a robots.txt"},
		{"ftp://example.com/a", `robotsguard: URL cannot be checked against robots.txt: its scheme is "ftp": only http and https URLs have a robots.txt`},
		{"http:///a", "robotsguard: URL cannot be checked against robots.txt: it has no host"},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		err = tr.Check(&http.Request{Method: "GET", URL: u, Header: http.Header{}})
		if !errors.Is(err, robotsguard.ErrUnsupportedURL) || err.Error() != tc.want {
			t.Errorf("%s: %v\nwant %s", tc.url, err, tc.want)
		}
	}
	err := tr.Prefetch(context.Background(), "ftp://example.com")
	if !errors.Is(err, robotsguard.ErrUnsupportedURL) || strings.Count(err.Error(), "robotsguard:") != 1 {
		t.Errorf("Prefetch: %v: want ErrUnsupportedURL, the package named once", err)
	}
}

func httptestRequest(t *testing.T, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
