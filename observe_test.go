package robotsguard_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
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

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	fetches  []robotsguard.FetchEvent
	refusals []*robotsguard.DisallowedError
	waits    []robotsguard.WaitEvent
}

func (r *recorder) observer() *robotsguard.Observer {
	return &robotsguard.Observer{
		Fetched: func(e robotsguard.FetchEvent) { r.mu.Lock(); r.fetches = append(r.fetches, e); r.mu.Unlock() },
		Refused: func(e *robotsguard.DisallowedError) { r.mu.Lock(); r.refusals = append(r.refusals, e); r.mu.Unlock() },
		Waited:  func(e robotsguard.WaitEvent) { r.mu.Lock(); r.waits = append(r.waits, e); r.mu.Unlock() },
	}
}

func (r *recorder) outcomes() []robotsguard.FetchOutcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []robotsguard.FetchOutcome
	for _, f := range r.fetches {
		out = append(out, f.Outcome)
	}
	return out
}

// TestObserver: every fetch is reported with its outcome, status, size
// and the lifetime chosen with what set it; every refusal and pacing
// wait too.
func TestObserver(t *testing.T) {
	var failing bool
	var mu sync.Mutex
	body := "User-agent: *\nDisallow: /no\nCrawl-delay: 2\n"
	rec := &recorder{}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Observer = rec.observer(); tr.RetryMax = -1 })
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case failing:
			w.WriteHeader(http.StatusBadGateway)
		case r.Header.Get("If-None-Match") == `"v1"`:
			w.WriteHeader(http.StatusNotModified)
		default:
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Cache-Control", "max-age=300")
			w.Write([]byte(body))
		}
	}))
	h.allowed(s.URL + "/a")
	h.allowed(s.URL + "/b")
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	h.clock.Advance(6 * time.Minute)
	h.allowed(s.URL + "/c") // revalidated
	mu.Lock()
	failing = true
	mu.Unlock()
	h.clock.Advance(6 * time.Minute)
	h.allowed(s.URL + "/d") // served stale

	if got, want := rec.outcomes(), []robotsguard.FetchOutcome{robotsguard.OutcomeFetched, robotsguard.OutcomeRevalidated, robotsguard.OutcomeServedStale}; !slices.Equal(got, want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	f := rec.fetches[0]
	if f.URL != s.URL+"/robots.txt" || f.Origin != s.URL || f.Status != 200 || f.Bytes != len(body) ||
		f.Lifetime != 5*time.Minute || f.LifetimeSource != "max-age" || f.Err != nil {
		t.Errorf("first fetch %+v", f)
	}
	if f := rec.fetches[1]; f.Status != 304 || f.Lifetime != 5*time.Minute {
		t.Errorf("revalidation %+v", f)
	}
	if f := rec.fetches[2]; f.Status != 502 || f.Err == nil {
		t.Errorf("stale fetch %+v", f)
	}
	if len(rec.refusals) != 1 || !strings.HasSuffix(rec.refusals[0].URL, "/no") {
		t.Errorf("refusals %v", rec.refusals)
	}
	// a, b (2s), c after 6 minutes, d after 6 more: one wait.
	if len(rec.waits) != 1 || rec.waits[0].Wait != 2*time.Second || rec.waits[0].Origin != s.URL || rec.waits[0].Throttled {
		t.Errorf("waits %+v", rec.waits)
	}

	st := h.tr.Stats()
	want := robotsguard.Stats{Checked: 5, Refused: 1, CacheMisses: 3, Fetches: 3, Failures: 1, Waits: 1, WaitTime: 2 * time.Second, Entries: 1}
	st.CacheBytes = 0
	if st != want {
		t.Errorf("Stats\n\t%+v, want\n\t%+v", st, want)
	}
}

// TestObserverPacingGivenUp: a wait given up is reported with its error.
func TestObserverPacingGivenUp(t *testing.T) {
	rec := &recorder{}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Observer = rec.observer() })
	s := h.origin("User-agent: *\nCrawl-delay: 10\n")
	h.allowed(s.URL + "/1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.do(ctx, s.URL+"/2"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	if len(rec.waits) != 1 || rec.waits[0].Wait != 10*time.Second || !errors.Is(rec.waits[0].Err, context.DeadlineExceeded) {
		t.Errorf("waits %+v", rec.waits)
	}
	if st := h.tr.Stats(); st.Waits != 0 {
		t.Errorf("a wait given up counted as taken: %+v", st)
	}
}

// TestRefusalLogged: refusals are logged at Debug level.
func TestRefusalLogged(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Logger = logger })
	s := h.origin("User-agent: *\nDisallow: /no\n")
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	if out := buf.String(); !strings.Contains(out, "request refused") || !strings.Contains(out, "/no") {
		t.Errorf("log:\n%s", out)
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

// TestObserverWaited: the Observer is told of each pause, whether a
// back-off set it, and of the request that gave up; Stats count the
// pauses taken.
func TestObserverWaited(t *testing.T) {
	var mu sync.Mutex
	var events []robotsguard.WaitEvent
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Observer = &robotsguard.Observer{Waited: func(ev robotsguard.WaitEvent) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}}
	})
	s := newOrigin(t, h.clock, "User-agent: *\nCrawl-delay: 2\n", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			w.Header().Set("Retry-After", "10")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	})
	h.allowed(s.URL + "/1")
	h.allowed(s.URL + "/busy")
	h.allowed(s.URL + "/2")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := h.do(ctx, s.URL+"/3"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("request with a deadline before its turn: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	o := s.URL
	want := []robotsguard.WaitEvent{
		{Origin: o, Wait: 2 * time.Second},                   // /busy, after /1
		{Origin: o, Wait: 10 * time.Second, Throttled: true}, // /2, after the 429
	}
	if len(events) != 3 || !slices.Equal(events[:2], want) {
		t.Fatalf("events %+v, want %+v and the one given up", events, want)
	}
	if ev := events[2]; ev.Origin != o || ev.Wait != 2*time.Second || ev.Throttled || !errors.Is(ev.Err, context.DeadlineExceeded) {
		t.Errorf("given up: %+v, want a 2s wait with context.DeadlineExceeded", ev)
	}
	if st := h.tr.Stats(); st.Waits != 2 || st.WaitTime != 12*time.Second {
		t.Errorf("%d waits for %v, want 2 for 12s", st.Waits, st.WaitTime)
	}
}

// TestObserverPanics: a panic in the Observer's Fetched, which runs for
// every request waiting on a fetch, neither kills the process nor the
// fetch.
func TestObserverPanics(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Observer = &robotsguard.Observer{Fetched: func(robotsguard.FetchEvent) { panic("observer bug") }}
	})
	s := h.origin("User-agent: *\nDisallow: /no\n")
	h.allowed(s.URL + "/yes")
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
}
