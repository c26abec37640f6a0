package robotsguard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/policy"
)

// seedURLs returns URLs to start fuzzing from: the first of each URL list
// of the corpus subset, and spellings that name one origin differently.
func seedURLs(tb testing.TB) []string {
	out := []string{
		"http://[0:0:0:0:0:0:0:1]:8080/a", "http://[::1]/", "https://[fe80::1%25en0]/x",
		"http://[::ffff:1.2.3.4]/", "http://Example.COM.:80/private", "http://example.com../",
		"https://bücher.example/a/../private", "http://x//private", "http://x/./a/%2E%2e/private",
		"HTTP://EXAMPLE.com:0080/a//b/", "http://:80/", "http://[]/", "http://./",
	}
	files, _ := filepath.Glob("policy/testdata/corpus/urls/*.urls")
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for i := 0; i < 3 && sc.Scan(); i++ {
			out = append(out, sc.Text())
		}
		fh.Close()
	}
	return out
}

// FuzzOrigin: any URL has one origin, which names itself; its robots.txt
// URL has the same origin; and normalising a path gives a path with no
// dot segment and no repeated slash, which normalises to itself.
func FuzzOrigin(f *testing.F) {
	for _, s := range seedURLs(f) {
		f.Add(s, "")
	}
	f.Add("http://a.example/x", "A.EXAMPLE.")
	f.Fuzz(func(t *testing.T, raw, host string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		p := u.EscapedPath()
		n := normalizePath(p)
		if normalizePath(n) != n {
			t.Fatalf("normalizePath(%q) = %q, which normalises to %q", p, n, normalizePath(n))
		}
		if needsNormalizing(n) {
			t.Fatalf("normalizePath(%q) = %q, still with a dot segment or //", p, n)
		}
		if strings.HasPrefix(p, "/") && !strings.HasPrefix(n, "/") {
			t.Fatalf("normalizePath(%q) = %q, not absolute", p, n)
		}
		if nu, changed := normalizedURL(u); changed != (n != p) || nu.EscapedPath() != n {
			t.Fatalf("normalizedURL(%q) = %q (changed %v), want path %q", raw, nu.EscapedPath(), changed, n)
		}
		req := &http.Request{URL: u, Host: host}
		o, dial, err := requestOrigin(req)
		if err != nil {
			return
		}
		if dial != "" {
			if _, err := originAt(u.Scheme, dial); err != nil {
				t.Fatalf("dial host %q of %q has no origin: %v", dial, raw, err)
			}
		}
		again, err := originAt(map[bool]string{true: "https", false: "http"}[o.https], o.host)
		if err != nil || again != o {
			t.Fatalf("origin %v of %q, read again: %v, %v", o, raw, again, err)
		}
		ru, err := url.Parse(o.robotsURL())
		if err != nil {
			t.Fatalf("robots.txt URL %q of %q: %v", o.robotsURL(), raw, err)
		}
		if ro, err := originOf(ru); err != nil || ro != o {
			t.Fatalf("robots.txt URL %q of %q has origin %v, %v; want %v", o.robotsURL(), raw, ro, err, o)
		}
	})
}

// fixedClock is a clock that does not move.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time                                   { return c.t }
func (c fixedClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// FuzzResponse: whatever a server answers for a robots.txt (status,
// header fields, body), the Transport decides as the answer says, and no
// more: 2xx but 206 apply the rules of the body (as package policy reads
// them, when no content coding hides them), 4xx but 429 allow everything,
// and everything else, a 304 to an unconditional request and a 3xx
// without a Location included, refuses. The file is used for between a
// minute and a day (RFC 9111 with the policy's bounds); after a failure,
// the next fetch waits between a minute and a day, whatever Retry-After
// asks. The parsed Retry-After pause is never negative.
func FuzzResponse(f *testing.F) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rules := []byte("User-agent: *\nDisallow: /x\n")
	for _, ra := range []string{"0", "120", "31536000", "99999999999999999999", "-1", " 5 ", "1.5",
		now.Add(time.Hour).Format(http.TimeFormat), "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Fri, 31 Dec 9999 23:59:59 GMT", ""} {
		f.Add(503, "Retry-After: "+ra, []byte(nil))
		f.Add(429, "Retry-After: "+ra, []byte(nil))
	}
	for _, st := range []int{200, 204, 206, 301, 302, 304, 308, 404, 410, 500} {
		f.Add(st, "Cache-Control: max-age=600", rules)
	}
	f.Add(302, "Location: /robots.txt", rules)
	f.Add(301, "Location: ftp://example.com/robots.txt", rules)
	f.Add(200, "Content-Encoding: br", rules)
	f.Add(200, "Cache-Control: no-store, max-age=\"9\"\nExpires: 0\nAge: 999999999999", rules)
	f.Add(200, "Expires: Fri, 31 Dec 9999 23:59:59 GMT\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT", rules)
	f.Add(200, "Content-Type: text/plain\nSet-Cookie: a=b\nEtag: \"x\"\nCache-Control: public, max-age=60\nCache-Control: no-cache", rules)
	f.Add(404, "Content-Type: text/html\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\nPragma: no-cache\nAge: 5", rules)
	f.Add(200, "Content-Type: text/html", []byte(`<html><script src="/.within.website/x/cmd/anubis/static/js/main.mjs"></script></html>`))
	f.Add(403, "Content-Type: text/html; charset=UTF-8\nCf-Mitigated: challenge", []byte("<title>Just a moment...</title>"))
	// Dates a state packs in 8 bytes, and some it keeps as they came (a
	// wrong weekday, another zone, year 0).
	f.Add(200, "Date: Sun, 01 Mar 2026 12:00:00 GMT\nEtag: W/\"5f3a-2c4\"\nDate: Mon, 01 Mar 2026 12:00:00 GMT\nExpires: Sun, 01 Mar 2026 12:00:00 UTC\nLast-Modified: Sat, 01 Jan 0000 00:00:00 GMT", rules)
	f.Fuzz(func(t *testing.T, status int, fields string, body []byte) {
		if d, ok := parseRetryAfter(strings.TrimPrefix(fields, "Retry-After: "), now); d < 0 || !ok && d != 0 {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", fields, d, ok)
		}
		if status < 200 || status > 999 {
			return // net/http hands no such final status to a client
		}
		header := http.Header{}
		for _, l := range strings.Split(fields, "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && k != "" && !strings.ContainsAny(k, " \t\r") {
				header.Add(k, strings.TrimSpace(v))
			}
		}
		clk := fixedClock{now}
		tr := &Transport{
			UserAgent: "TestBot/1.0",
			Clock:     clk,
			RetryMax:  -1,
			Base: roundTripper(func(req *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: status, Header: header.Clone(), Request: req,
					Body: io.NopCloser(bytes.NewReader(body)), ContentLength: -1}, nil
			}),
		}
		req, _ := http.NewRequest(http.MethodGet, "http://example.com/x", nil)
		err := tr.Check(req)
		var d *DisallowedError
		if err != nil && !errors.As(err, &d) {
			t.Fatalf("Check: %v", err)
		}
		allowed := err == nil
		codings := len(contentCodings(&http.Response{Header: header})) > 0
		// A bot challenge is no file, whatever its status (challenge.go).
		challenge := challengeHeader(header) != "" || htmlAnswer(header) &&
			(status < 300 && !codings && challengeBody(body) != "" ||
				(status == http.StatusUnauthorized || status == http.StatusForbidden) && challengeBody(body[:min(len(body), challengePeek)]) != "")
		switch {
		case challenge:
			if allowed {
				t.Fatalf("status %d %q: a challenge allowed", status, fields)
			}
		case status == http.StatusPartialContent, status == http.StatusNotModified,
			status >= 300 && status < 400 && header.Get("Location") == "",
			status == http.StatusTooManyRequests, status >= 500:
			if allowed {
				t.Fatalf("status %d %q: allowed", status, fields)
			}
		case status < 300 && !codings:
			want := policy.Parser{}.Parse(body).Allowed("TestBot", "/x")
			if allowed != want {
				t.Fatalf("status %d %q: allowed=%v, the body's rules say %v (%v)", status, fields, allowed, want, err)
			}
		case status >= 400 && status < 500:
			if !allowed {
				t.Fatalf("status %d %q: refused (%v)", status, fields, err)
			}
		}
		snap, serr := tr.Snapshot(context.Background(), req.URL)
		if serr != nil {
			t.Fatalf("Robots: %v", serr)
		}
		if snap.Status == status {
			// The state holds the response's caching fields, and no others.
			got, want := snap.st.full().Header, cache.KeepCaching(header)
			if len(got) != len(want) {
				t.Fatalf("status %d %q: the state holds the header %q, want %q", status, fields, got, want)
			}
			for k, vs := range want {
				if !slices.Equal(got[k], vs) {
					t.Fatalf("status %d %q: the state holds %s: %q, want %q", status, fields, k, got[k], vs)
				}
			}
		}
		wait := snap.FreshUntil.Sub(now)
		if wait < failureBackoffMin || wait > maxRetryAfter {
			t.Fatalf("status %d %q: the next fetch in %v (err %v)", status, fields, wait, snap.Err)
		}
	})
}

// roundTripper is a RoundTripper that is a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
