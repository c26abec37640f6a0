package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// TestHerd: a thousand concurrent requests to a cold origin cause exactly
// one robots.txt request; all of them wait for it and then proceed.
func TestHerd(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Base = &http.Transport{MaxConnsPerHost: 8}
	})
	s := h.origin("")
	free := heldRobots(t, s, nil)
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
// the robots.txt is being fetched returns at once with a *PacingError that
// matches the context's error; the fetch goes on and serves the next
// request, and its answer reaches no other.
func TestContextCancelledWhileFetching(t *testing.T) {
	fetching := make(chan struct{}, 1)
	h := newHarness(t)
	s := h.origin("")
	free := heldRobots(t, s, fetching)
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
	err := <-done
	if !errors.Is(err, context.Canceled) || errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatalf("cancelled request: %v, want context.Canceled", err)
	}
	// Not sent, not refused: a *PacingError, which a crawler requeues as
	// it requeues any request that could not go in time.
	var pe *robotsguard.PacingError
	if want := "robotsguard: request to " + s.URL + " given up while its robots.txt was being read (the fetch goes on, and the request sent again gets its verdict): context canceled"; !errors.As(err, &pe) || pe.Origin != s.URL || pe.Error() != want {
		t.Errorf("error %v: want a *PacingError, %q", err, want)
	}
	free()
	h.allowed(s.URL + "/page")
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/page"}) {
		t.Errorf("origin saw %q", got)
	}
	// The fetch's answer, which the request that gave up did not take,
	// reaches no other request: the next origin's gets its own verdict.
	s2 := h.origin("User-agent: *\nDisallow: /page\n")
	h.refused(s2.URL+"/page", robotsguard.ReasonRule)
}

// TestRobotsWaitLeavesResponseTime (the v1.0 release candidate's trial):
// behind http.Client{Timeout}, a request whose origin's robots.txt is
// still being read gives up while its response would still have
// MinResponseTime, with a *PacingError that says so. Before, it waited
// until the client's timer fired: the error was then http.Client's own
// "(Client.Timeout exceeded while awaiting headers)" in some runs, with
// no *PacingError to requeue by, and never said why.
func TestRobotsWaitLeavesResponseTime(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.MinResponseTime = 200 * time.Millisecond })
	s := h.origin("")
	free := heldRobots(t, s, nil)
	// After 400 ms: the client's timer fires 200 ms later.
	client := &http.Client{Transport: h.tr, Timeout: 600 * time.Millisecond}
	_, err := client.Get(s.URL + "/page")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v (%T): want a *PacingError matching context.DeadlineExceeded", err, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "given up while its robots.txt was being read, ") ||
		!strings.Contains(msg, " before its deadline, too close for a response; the fetch goes on") {
		t.Errorf("error %q does not say why it gave up", msg)
	}
	free()
	h.allowed(s.URL + "/page")
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/page"}) {
		t.Errorf("origin saw %q", got)
	}
}

// TestCheckContext: Check waits for the robots.txt within the request's
// context, and returns the context's error, not a refusal.
func TestCheckContext(t *testing.T) {
	h := newHarness(t)
	s := h.origin("")
	heldRobots(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/no", nil)
	if err := h.tr.Check(req); !errors.Is(err, context.Canceled) || errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("Check with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestBaseIgnoresContext: a Base that never answers a robots.txt request,
// whatever its context says, holds requests for a little more than
// FetchTimeout; they are then refused (no copy stands in).
func TestBaseIgnoresContext(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.FetchTimeout = 40 * time.Millisecond
		tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
			<-release
			return nil, errors.New("released")
		})
	})
	done := make(chan *robotsguard.DisallowedError, 1)
	go func() {
		done <- h.refused("http://example.com/page", robotsguard.ReasonUnreachable)
	}()
	select {
	case d := <-done:
		var fe *robotsguard.FetchError
		if !errors.As(d.Err, &fe) {
			t.Errorf("refusal %v: want a FetchError", d)
		}
	case <-time.After(time.Minute):
		t.Fatal("a Base that ignores its context held the request for a minute")
	}
}

// heldRobots has s answer its robots.txt, "Disallow: /no" for every agent,
// only once free is called (or the test ends), telling fetching, when not
// nil, that a fetch came (once is enough: it does not wait).
func heldRobots(t *testing.T, s *robotstest.Origin, fetching chan<- struct{}) (free func()) {
	release := make(chan struct{})
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		select {
		case fetching <- struct{}{}:
		default:
		}
		<-release
		io.WriteString(w, "User-agent: *\nDisallow: /no\n")
	}))
	free = sync.OnceFunc(func() { close(release) })
	t.Cleanup(free) // before s.Close, which waits for the handler
	return free
}
