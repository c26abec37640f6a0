package robotsguard

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// FuzzRetryAfter: any Retry-After field, on a failed robots.txt fetch,
// gives a back-off of at least a minute and at most a day, and the parsed
// pause is never negative.
func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"0", "120", "31536000", "99999999999999999999", "-1", " 5 ", "1.5",
		now.Add(time.Hour).Format(http.TimeFormat), "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Fri, 31 Dec 9999 23:59:59 GMT", ""} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, v string, failures int) {
		d, ok := parseRetryAfter(v, now)
		if d < 0 || !ok && d != 0 {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", v, d, ok)
		}
		tr := &Transport{Clock: fixedClock{now}}
		resp := &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {v}}}
		res := tr.failed(nil, resp, context.DeadlineExceeded)
		old := *res.entry
		old.Failures = max(0, failures%1000)
		for _, e := range []*Transport{tr} {
			for _, r := range []fetchResult{res, e.failed(&old, resp, context.DeadlineExceeded)} {
				wait := r.entry.RetryAt.Sub(now)
				if wait < failureBackoffMin || wait > maxRetryAfter {
					t.Fatalf("Retry-After %q after %d failures: back-off %v", v, r.entry.Failures, wait)
				}
			}
		}
	})
}
