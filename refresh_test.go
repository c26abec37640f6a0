package robotsguard_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotstest"
)

// These tests drive the cache through the Transport with a manual clock,
// and assert exactly which robots.txt requests the origin sees.

// fetchesAt returns the number of robots.txt requests the site has seen
// after a request for /page at each offset from the start.
func fetchesAt(h *harness, s *robotstest.Origin, offsets ...time.Duration) []int {
	start := h.clock.Now()
	var out []int
	for _, off := range offsets {
		h.clock.Advance(start.Add(off).Sub(h.clock.Now()))
		h.get(s.URL + "/page")
		out = append(out, count(s, "/robots.txt"))
	}
	return out
}

func TestFreshness(t *testing.T) {
	date := func(h *harness, d time.Duration) string {
		return "Date: " + h.clock.Now().Add(d).Format(http.TimeFormat)
	}
	min, hour, day := time.Minute, time.Hour, 24*time.Hour
	tests := []struct {
		name    string
		fields  func(h *harness) []string
		policy  cache.Policy
		offsets []time.Duration
		want    []int
	}{
		{"max-age", func(*harness) []string { return []string{"Cache-Control: max-age=3600"} },
			cache.Policy{}, []time.Duration{0, 59 * min, 61 * min, 61*min + 30*time.Second}, []int{1, 1, 2, 2}},
		{"max-age capped at 24 hours", func(*harness) []string { return []string{"Cache-Control: max-age=604800"} },
			cache.Policy{}, []time.Duration{0, 23 * hour, day + time.Second}, []int{1, 1, 2}},
		{"max-age=0 raised to the one-minute floor", func(*harness) []string { return []string{"Cache-Control: max-age=0"} },
			cache.Policy{}, []time.Duration{0, 30 * time.Second, 59 * time.Second, 61 * time.Second}, []int{1, 1, 1, 2}},
		{"no-cache: floor", func(*harness) []string { return []string{"Cache-Control: no-cache"} },
			cache.Policy{}, []time.Duration{0, 59 * time.Second, 61 * time.Second}, []int{1, 1, 2}},
		{"no-store: floor", func(*harness) []string { return []string{"Cache-Control: no-store"} },
			cache.Policy{}, []time.Duration{0, 59 * time.Second, 61 * time.Second}, []int{1, 1, 2}},
		{"strict: max-age=0 is fetched every time", func(*harness) []string { return []string{"Cache-Control: max-age=0"} },
			cache.Policy{Strict: true}, []time.Duration{0, 0, time.Second}, []int{1, 2, 3}},
		{"strict: no-store is never stored", func(*harness) []string { return []string{"Cache-Control: no-store, max-age=600"} },
			cache.Policy{Strict: true}, []time.Duration{0, time.Second}, []int{1, 2}},
		{"floor raised by MinAge", func(*harness) []string { return []string{"Cache-Control: no-cache"} },
			cache.Policy{MinAge: 10 * min}, []time.Duration{0, 9 * min, 11 * min}, []int{1, 1, 2}},
		{"cap lowered by MaxAge", func(*harness) []string { return []string{"Cache-Control: max-age=7200"} },
			cache.Policy{MaxAge: hour}, []time.Duration{0, 59 * min, 61 * min}, []int{1, 1, 2}},
		{"max-age over Expires", func(h *harness) []string {
			return []string{"Cache-Control: max-age=600", date(h, 0), "Expires: " + h.clock.Now().Add(5*hour).Format(http.TimeFormat)}
		}, cache.Policy{}, []time.Duration{0, 9 * min, 11 * min}, []int{1, 1, 2}},
		{"Expires minus Date", func(h *harness) []string {
			return []string{date(h, -hour), "Expires: " + h.clock.Now().Add(time.Hour).Format(http.TimeFormat)}
		}, cache.Policy{}, []time.Duration{0, 59 * min, 61 * min}, []int{1, 1, 2}}, // an hour left
		{"invalid Expires: stale, floor", func(h *harness) []string { return []string{date(h, 0), "Expires: 0"} },
			cache.Policy{}, []time.Duration{0, 59 * time.Second, 61 * time.Second}, []int{1, 1, 2}},
		{"Age counts", func(*harness) []string { return []string{"Cache-Control: max-age=3600", "Age: 3000"} },
			cache.Policy{}, []time.Duration{0, 9 * min, 11 * min}, []int{1, 1, 2}},
		{"Date in the past counts (apparent age)", func(h *harness) []string {
			return []string{"Cache-Control: max-age=3600", date(h, -50*min)}
		}, cache.Policy{}, []time.Duration{0, 9 * min, 11 * min}, []int{1, 1, 2}},
		{"Age beyond max-age: floor", func(*harness) []string { return []string{"Cache-Control: max-age=60", "Age: 86400"} },
			cache.Policy{}, []time.Duration{0, 59 * time.Second, 61 * time.Second}, []int{1, 1, 2}},
		{"heuristic: a tenth since Last-Modified", func(h *harness) []string {
			return []string{date(h, 0), "Last-Modified: " + h.clock.Now().Add(-5*hour).Format(http.TimeFormat)}
		}, cache.Policy{}, []time.Duration{0, 29 * min, 31 * min}, []int{1, 1, 2}},
		{"heuristic without Last-Modified: 24 hours", func(*harness) []string { return nil },
			cache.Policy{}, []time.Duration{0, 23 * hour, day + time.Second}, []int{1, 1, 2}},
		{"Cache-Control that does not parse: stale, floor", func(*harness) []string { return []string{"Cache-Control: max-age=soon"} },
			cache.Policy{}, []time.Duration{0, 59 * time.Second, 61 * time.Second}, []int{1, 1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(tr *robotsguard.Transport) { tr.CachePolicy = tc.policy })
			s := h.origin("User-agent: *\nDisallow: /private\n")
			fields := tc.fields(h)
			s.Fault("/robots.txt", robotstest.Status(200, fields...))
			if got := fetchesAt(h, s, tc.offsets...); !slices.Equal(got, tc.want) {
				t.Errorf("robots.txt requests seen after each page request: %v, want %v (fields %q)", got, tc.want, fields)
			}
		})
	}
}

// TestRevalidation: a stale robots.txt is revalidated with its validators;
// a 304 keeps the rules and takes the new caching fields.
func TestRevalidation(t *testing.T) {
	h := newHarness(t)
	var served atomic.Int32
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.Header().Set("Cache-Control", "max-age=7200")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		served.Add(1)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		w.Header().Set("Cache-Control", "max-age=600")
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	h.clock.Advance(11 * time.Minute)
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	r := lastRobots(t, s)
	if r.Header.Get("If-None-Match") != `"v1"` || r.Header.Get("If-Modified-Since") != "Mon, 02 Jan 2006 15:04:05 GMT" {
		t.Errorf("revalidation sent %v", r.Header)
	}
	// The 304's max-age=7200 now applies.
	h.clock.Advance(119 * time.Minute)
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 2 || served.Load() != 1 {
		t.Errorf("%d robots.txt requests, %d full responses; want 2 and 1", n, served.Load())
	}
	h.clock.Advance(2 * time.Minute)
	h.allowed(s.URL + "/public")
	if n := count(s, "/robots.txt"); n != 3 {
		t.Errorf("%d robots.txt requests, want a third past the 304's lifetime", n)
	}
}

// TestUnavailableCached: a 4xx outcome is cached like a 2xx one.
func TestUnavailableCached(t *testing.T) {
	h := newHarness(t)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Status(404))
	if got := fetchesAt(h, s, 0, time.Hour, 23*time.Hour, 24*time.Hour+time.Second); !slices.Equal(got, []int{1, 1, 1, 2}) {
		t.Errorf("robots.txt requests %v, want one per 24 hours", got)
	}
	s2 := h.origin("")
	s2.Fault("/robots.txt", robotstest.Status(403, "Cache-Control: max-age=600"))
	if got := fetchesAt(h, s2, 0, 9*time.Minute, 11*time.Minute); !slices.Equal(got, []int{1, 1, 2}) {
		t.Errorf("robots.txt requests %v for a 403 with max-age=600", got)
	}
}

// TestStaleCopyWhileUnreachable: while the robots.txt answers 5xx, the last
// good copy is used for 30 days after its last successful fetch; then,
// with no copy, nothing is allowed, until the file has been unreachable for
// 30 days, when it is treated as unavailable.
func TestStaleCopyWhileUnreachable(t *testing.T) {
	var failing atomic.Bool
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
	day := 24 * time.Hour
	// The Origin lets the Transport take a file unreachable for 30 days
	// for unavailable, as RFC 9309 permits.
	s := robotstest.NewUnstartedOrigin(t, "")
	s.Clock = h.clock
	s.UnreachableLimit = 30 * day
	s.Start()
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Cache-Control", "max-age=3600")
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))

	h.allowed(s.URL + "/page")
	failing.Store(true)
	h.clock.Advance(2 * time.Hour) // stale: the fetch fails, the copy stands in
	h.allowed(s.URL + "/page")
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 2 {
		t.Fatalf("%d robots.txt requests, want 2", n)
	}
	// Failed fetches back off: a minute, doubling, up to an hour.
	h.clock.Advance(30 * time.Second)
	h.allowed(s.URL + "/page")
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("%d robots.txt requests within the back-off, want 2", n)
	}
	h.clock.Advance(31 * time.Second)
	h.allowed(s.URL + "/page")
	if n := count(s, "/robots.txt"); n != 3 {
		t.Errorf("%d robots.txt requests after the back-off, want 3", n)
	}
	// 30 days after the last success, the copy is dropped.
	h.clock.Advance(30*day - 3*time.Hour)
	h.allowed(s.URL + "/page")
	h.clock.Advance(time.Hour + time.Minute)
	d := h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	if d.Status != 200 || d.Err == nil {
		t.Errorf("refusal %+v: want the last status and the fetch error", d)
	}
	// 30 days after the failures began, the file counts as unavailable.
	h.clock.Advance(2*time.Hour + time.Minute)
	h.allowed(s.URL + "/private")
	// It is fetched again when it comes back.
	failing.Store(false)
	h.clock.Advance(time.Hour + time.Minute)
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
}

// TestNoCopyWhileUnreachable: with no copy, an unreachable robots.txt
// disallows everything, and fetches back off.
func TestNoCopyWhileUnreachable(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1 })
	s := h.origin("") // a failure's Date is not read: h2 may fetch from it too
	s.Fault("/robots.txt", robotstest.Status(503))
	got := []int{}
	for _, step := range []time.Duration{0, 30 * time.Second, 31 * time.Second, time.Minute, 61 * time.Second, 2 * time.Minute} {
		h.clock.Advance(step)
		h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		got = append(got, count(s, "/robots.txt"))
	}
	// Back-offs of 1, 2 and 4 minutes after the 1st, 2nd and 3rd failure.
	if want := []int{1, 1, 2, 2, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("robots.txt requests %v, want %v", got, want)
	}
	if n := count(s, "/page"); n != 0 {
		t.Errorf("origin got %d page requests", n)
	}
	// DisallowWhileUnreachable: still refused after 30 days.
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.RetryMax = -1; tr.DisallowWhileUnreachable = true })
	h2.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	h2.clock.Advance(31 * 24 * time.Hour)
	h2.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
}

// TestRetryAfterOnRobots: a 503 with Retry-After holds off the next fetch
// until then.
func TestRetryAfterOnRobots(t *testing.T) {
	h := newHarness(t)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Status(503, "Retry-After: 7200"))
	h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	h.clock.Advance(119 * time.Minute)
	h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("%d robots.txt requests before Retry-After, want 1", n)
	}
	h.clock.Advance(2 * time.Minute)
	h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("%d robots.txt requests after Retry-After, want 2", n)
	}
}

// panicReader is a body that panics when read.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("body exploded") }

func response(req *http.Request, status int, body io.Reader) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{"Cache-Control": {"max-age=60"}},
		Body: io.NopCloser(body), Request: req}
}

// TestPanicDuringRefreshKeepsRules: a panic while a stale robots.txt is
// fetched again (here, reading its body) fails that fetch; the last rules
// stand in, as for any failure, and keep refusing what they refuse.
func TestPanicDuringRefreshKeepsRules(t *testing.T) {
	var fetches, pages atomic.Int32
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.RetryMax = -1
		tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Path != "/robots.txt" {
				pages.Add(1)
				return response(req, 200, strings.NewReader("page")), nil
			}
			if fetches.Add(1) == 1 {
				return response(req, 200, strings.NewReader("User-agent: *\nDisallow: /secret\n")), nil
			}
			return response(req, 200, panicReader{}), nil
		})
	})
	h.refused("http://example.com/secret", robotsguard.ReasonRule)
	h.clock.Advance(2 * time.Minute) // stale: fetched again, and the body panics
	h.refused("http://example.com/secret", robotsguard.ReasonRule)
	h.allowed("http://example.com/open")
	if n := fetches.Load(); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2", n)
	}
	if n := pages.Load(); n != 1 {
		t.Errorf("%d pages sent, want only /open", n)
	}
	snap := robotsOf(t, h, "http://example.com/")
	var pe *robotsguard.PanicError
	if !errors.As(snap.Err, &pe) || pe.Value != "body exploded" {
		t.Errorf("the failure %v does not hold the panic", snap.Err)
	}
}

// TestDelayCappedNoticed: a Crawl-delay above MaxDelay is not capped
// without a word: the Observer hears it once per origin (not on every
// request, nor when the same file is fetched again), the Logger says it
// at Warn, and the Snapshot shows the pause asked beside the one kept.
func TestDelayCappedNoticed(t *testing.T) {
	for _, ua := range []string{"TestBot/1.0", ""} {
		var events []robotsguard.DelayEvent
		var mu sync.Mutex
		var logged bytes.Buffer
		h := newHarness(t, func(tr *robotsguard.Transport) {
			tr.UserAgent = ua
			tr.Delay = 0
			tr.Observer = &robotsguard.Observer{DelayCapped: func(ev robotsguard.DelayEvent) {
				mu.Lock()
				events = append(events, ev)
				mu.Unlock()
			}}
			tr.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
		})
		s := h.origin("User-agent: *\nCrawl-delay: 86400\n")
		for range 3 {
			h.allowed(s.URL + "/page")
		}
		h.clock.Advance(25 * time.Hour) // the file is fetched again: the same delay
		h.allowed(s.URL + "/page")
		mu.Lock()
		want := []robotsguard.DelayEvent{{Origin: s.URL, Agent: "testbot", Asked: 24 * time.Hour, Applied: robotsguard.DefaultMaxDelay}}
		if ua == "" {
			want[0].Agent = "go-http-client"
		}
		if !reflect.DeepEqual(events, want) {
			t.Errorf("UserAgent %q: events %+v, want %+v", ua, events, want)
		}
		mu.Unlock()
		if n := strings.Count(logged.String(), "level=WARN"); n != 1 || !strings.Contains(logged.String(), "asked=24h0m0s applied=30s") {
			t.Errorf("UserAgent %q: logged %q: want one warning with the pause asked and kept", ua, logged.String())
		}
		if ua == "" {
			continue
		}
		u, _ := url.Parse(s.URL)
		snap, err := h.tr.Snapshot(context.Background(), u)
		if err != nil || snap.Delay != robotsguard.DefaultMaxDelay || snap.DelayAsked != 24*time.Hour {
			t.Errorf("Snapshot %+v, %v: want Delay 30s, DelayAsked 24h", snap, err)
		}
	}
}
