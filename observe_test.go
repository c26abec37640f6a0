package robotsguard_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
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
