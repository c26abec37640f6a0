package robotsguard_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
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

// TestCacheSizeBound: the in-memory cache holds at most CacheSize bytes of
// parsed files (at least MinCacheSize); the least recently used origin is
// dropped and fetched again when needed.
func TestCacheSizeBound(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("User-agent: *\n")
	for i := 0; sb.Len() < 400<<10; i++ {
		fmt.Fprintf(&sb, "Disallow: /section-%d/page\n", i)
	}
	base := &countingRoundTripper{robots: sb.String()}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = base; tr.CacheSize = 1 })
	// Each parsed file holds over a MiB: 30 origins overflow 16 MiB.
	for i := range 30 {
		h.allowed(fmt.Sprintf("http://site%d.example/", i))
	}
	h.allowed("http://site29.example/again")
	h.allowed("http://site0.example/again")
	if n := base.robotsFetches("site29.example"); n != 1 {
		t.Errorf("the most recent origin was fetched %d times, want once", n)
	}
	if n := base.robotsFetches("site0.example"); n != 2 {
		t.Errorf("the oldest origin was fetched %d times, want again after eviction", n)
	}
}

// TestObserverFetched: the Observer is told how each fetch ended, with the
// lifetime given to the file and what set it; Stats count fetches and
// failures once each, however many requests waited.
func TestObserverFetched(t *testing.T) {
	const body = "User-agent: *\nDisallow: /private\n"
	var failing atomic.Bool
	var h *harness
	robots := robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Date", h.clock.Now().Format(http.TimeFormat))
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, body)
	})
	var mu sync.Mutex
	var events []robotsguard.FetchEvent
	observe := func(tr *robotsguard.Transport) {
		tr.RetryMax = -1
		tr.Store = cache.NewMemoryStore(1 << 20)
		tr.Observer = &robotsguard.Observer{Fetched: func(ev robotsguard.FetchEvent) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}}
	}
	h = newHarness(t, observe)
	s := h.origin("")
	s.Fault("/robots.txt", robots)
	last := func() robotsguard.FetchEvent {
		mu.Lock()
		defer mu.Unlock()
		if len(events) == 0 {
			t.Fatal("no fetch event")
		}
		ev := events[len(events)-1]
		events = events[:0]
		return ev
	}
	robotsURL := s.URL + "/robots.txt"

	h.allowed(s.URL + "/a")
	if ev := last(); ev.URL != robotsURL || ev.Origin != s.URL || ev.Outcome != robotsguard.OutcomeFetched || ev.Status != 200 ||
		ev.Bytes != len(body) || ev.Lifetime != 10*time.Minute || ev.LifetimeSource != "max-age" || ev.Err != nil {
		t.Errorf("first fetch: %+v", ev)
	}
	h.clock.Advance(11 * time.Minute)
	h.allowed(s.URL + "/a")
	if ev := last(); ev.Outcome != robotsguard.OutcomeRevalidated || ev.Lifetime != 10*time.Minute {
		t.Errorf("revalidation: %+v", ev)
	}
	// Another Transport sharing the Store takes the file from it.
	store := h.tr.Store
	h2 := newHarness(t, observe, func(tr *robotsguard.Transport) { tr.Store = store })
	h2.clock.Advance(h.clock.Now().Sub(h2.clock.Now()))
	h2.refused(s.URL+"/private", robotsguard.ReasonRule)
	if ev := last(); ev.Outcome != robotsguard.OutcomeFromStore || ev.Status != 200 || ev.Bytes != len(body) {
		t.Errorf("from the Store: %+v", ev)
	}
	failing.Store(true)
	h.clock.Advance(11 * time.Minute)
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	var fe *robotsguard.FetchError
	if ev := last(); ev.Outcome != robotsguard.OutcomeServedStale || !errors.As(ev.Err, &fe) || fe.Status != 500 || ev.Status != 500 {
		t.Errorf("failure with a copy: %+v", ev)
	}
	if st := h.tr.Stats(); st.Fetches != 3 || st.Failures != 1 || st.CacheMisses != 3 || st.Checked != 3 || st.Refused != 1 || st.StoreErrors != 0 {
		t.Errorf("stats %+v, want 3 fetches, 1 failure, 3 misses, 3 checks, 1 refusal", st)
	}

	down := h.origin("")
	down.Fault("/robots.txt", robotstest.Status(503))
	h.allowed(s.URL + "/a") // nothing fetched: the copy stands in during the back-off
	h.refused(down.URL+"/a", robotsguard.ReasonUnreachable)
	if ev := last(); ev.Outcome != robotsguard.OutcomeFailed || ev.Status != 503 || ev.Err == nil || ev.Lifetime != 0 {
		t.Errorf("failure without a copy: %+v", ev)
	}
}
