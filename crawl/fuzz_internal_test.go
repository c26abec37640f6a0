package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// fuzzBase serves every host a robots.txt with a Crawl-delay, and pages;
// while down is set, d2.test's robots.txt answers 503.
type fuzzBase struct{ down *atomic.Bool }

func (b fuzzBase) RoundTrip(req *http.Request) (*http.Response, error) {
	body := "page"
	if req.URL.Path == "/robots.txt" && req.URL.Hostname() == "d2.test" && b.down.Load() {
		return &http.Response{StatusCode: 503, Header: http.Header{}, Request: req, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	if req.URL.Path == "/robots.txt" {
		body = "User-agent: *\nDisallow: /no\nCrawl-delay: " + strings.TrimSuffix(strings.TrimPrefix(req.URL.Hostname(), "d"), ".test") + "\n"
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Request: req, Body: io.NopCloser(strings.NewReader(body))}, nil
}

// FuzzFrontier runs a Frontier through the operations ops spells (Add,
// Next, Done with a status, a Retry-After (retryAfter), a PacingError or
// a transient refusal, time passing, one origin's robots.txt going down
// or coming back), and checks after each that no origin has more URLs in
// flight than its places, that no URL is handed out twice at once, and
// that the counts add up; then that every URL added is done exactly once
// when the clock runs on.
func FuzzFrontier(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 3, 4, 1, 2, 5, 0, 9, 1}, "7", byte(0))
	f.Add([]byte{0, 0, 0, 0, 0, 4, 1, 1, 1, 2, 2, 2, 3, 3}, "Wed, 01 Jan 2025 00:01:00 GMT", byte(1))
	f.Add([]byte{0, 5, 1, 3, 200, 4, 255, 1, 2, 42}, "-1", byte(2))
	f.Fuzz(func(t *testing.T, ops []byte, retryAfter string, places byte) {
		if len(ops) > 4096 {
			return
		}
		clock := robotstest.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		down := new(atomic.Bool)
		tr := &robotsguard.Transport{Base: fuzzBase{down}, UserAgent: "FuzzBot/1.0", Clock: clock, MaxRequestsPerOrigin: int(places%3) + 1, RetryMax: -1}
		fr := &Frontier{Transport: tr, MaxQueued: 64, Retries: int(places/3%4) - 1}
		ctx := context.Background()
		done := map[string]int{}
		added := map[string]bool{}
		var flying []Item
		n := 0
		next := func() bool {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			it, err := fr.Next(cctx)
			if err != nil {
				return false
			}
			for _, x := range flying {
				if x.URL == it.URL {
					t.Fatalf("%s handed out twice at once", it.URL)
				}
			}
			flying = append(flying, it)
			return true
		}
		finish := func(i int, resp *http.Response, err error) {
			it := flying[i]
			flying = append(flying[:i], flying[i+1:]...)
			requeued := fr.Stats().Requeued
			fr.Done(it, resp, err)
			var pe *robotsguard.PacingError
			switch again := fr.Stats().Requeued != requeued; {
			case errors.As(err, &pe) && !again:
				t.Fatalf("%s: a PacingError was final", it.URL)
			case err == nil && again:
				t.Fatalf("%s: queued again after a response", it.URL)
			case !again:
				done[it.URL]++
			}
		}
		for i := 0; i < len(ops); i++ {
			arg := 0
			if i+1 < len(ops) {
				arg = int(ops[i+1])
			}
			switch ops[i] % 8 {
			case 0:
				u := fmt.Sprintf("http://d%d.test/%d", arg%3, n)
				if arg%7 == 6 {
					u = fmt.Sprintf("http://d%d.test/no%d", arg%3, n)
				}
				n++
				err := fr.Add(ctx, u)
				switch {
				case err == nil:
					added[u] = true
				case !errors.Is(err, ErrFull) && !errors.Is(err, robotsguard.ErrDisallowed):
					t.Fatalf("Add(%s): %v", u, err)
				}
				i++
			case 1:
				next()
			case 2, 3:
				if len(flying) == 0 {
					continue
				}
				status := []int{200, 429, 503, 404}[arg%4]
				resp := &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {retryAfter}}}
				finish(arg%len(flying), resp, nil)
				i++
			case 4:
				if len(flying) == 0 {
					continue
				}
				pe := &robotsguard.PacingError{NotBefore: clock.Now().Add(time.Duration(arg) * 10 * time.Millisecond), Err: context.DeadlineExceeded}
				finish(arg%len(flying), nil, pe)
				i++
			case 5:
				clock.Advance(time.Duration(arg) * 100 * time.Millisecond)
				i++
			case 6:
				if len(flying) == 0 {
					continue
				}
				d := &robotsguard.DisallowedError{Reason: robotsguard.ReasonUnreachable, Err: errors.New("503")}
				if arg%5 != 0 {
					d.NotBefore = clock.Now().Add(time.Duration(arg) * time.Second)
				}
				finish(arg%len(flying), nil, d)
				i++
			case 7:
				down.Store(!down.Load())
			}
			check(t, fr, len(added)-len(done), len(flying))
		}
		// The clock runs on: every URL added is done, once.
		down.Store(false)
		for range 100000 {
			for next() {
			}
			for len(flying) > 0 {
				finish(0, &http.Response{StatusCode: 200}, nil)
			}
			if fr.Stats().Queued == 0 {
				break
			}
			clock.Advance(time.Second)
		}
		check(t, fr, len(added)-len(done), 0)
		for u := range added {
			if done[u] != 1 {
				t.Errorf("%s done %d times", u, done[u])
			}
		}
		if len(done) != len(added) {
			t.Errorf("%d URLs done, %d added", len(done), len(added))
		}
	})
}

// check checks fr's invariants: pending URLs queued or in flight, flying
// of them in flight, no origin over its places, heaps that hold the
// origins with a URL queued and a place free.
func check(t *testing.T, fr *Frontier, pending, flying int) {
	t.Helper()
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if fr.queued+fr.inFlight != pending || fr.inFlight != flying {
		t.Fatalf("queued %d, in flight %d; want %d pending, %d in flight", fr.queued, fr.inFlight, pending, flying)
	}
	queued, inFlight := 0, 0
	for _, o := range fr.byName {
		queued += len(o.urls)
		inFlight += o.inFlight
		if o.inFlight > fr.limit || o.inFlight < 0 {
			t.Fatalf("%s: %d in flight, %d places", o.name, o.inFlight, fr.limit)
		}
		if can := len(o.urls) > 0 && o.inFlight < fr.limit; can != (o.heap != nil) {
			t.Fatalf("%s: %d queued, %d in flight, in a heap: %v", o.name, len(o.urls), o.inFlight, o.heap != nil)
		}
		if o.heap != nil && o.heap.s[o.index] != o {
			t.Fatalf("%s: heap index %d is another's", o.name, o.index)
		}
	}
	if queued != fr.queued || inFlight != fr.inFlight {
		t.Fatalf("origins hold %d queued, %d in flight; the Frontier counts %d, %d", queued, inFlight, fr.queued, fr.inFlight)
	}
}
