package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"
)

// TestKeptPaceDropped: a request whose caller kept its origin's pace, once
// that pace was dropped as idle, is paced by the origin's new one, which
// a back-off recorded since holds.
func TestKeptPaceDropped(t *testing.T) {
	clk := &steppingClock{}
	lp := &LocalPacer{Clock: clk}
	var kept atomic.Pointer[pace]
	r := PaceRequest{Origin: "https://a.example", Interval: time.Second, Limit: 1, kept: &kept}
	lease, err := lp.Acquire(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	lease.Release()
	old := kept.Load()
	if old == nil {
		t.Fatal("the pace was not kept")
	}
	clk.n.Add(int64(2*paceIdle/(10*time.Millisecond)) + 1000) // idle past paceIdle
	sh := old.sh
	sh.mu.Lock()
	sh.ops = sh.wait // look now
	sh.expire(lp.tick(clk.Now()))
	_, held := sh.m[r.Origin]
	sh.mu.Unlock()
	if held || !old.dropped() {
		t.Fatalf("an idle pace was not dropped (held %v)", held)
	}
	lp.Throttle(context.Background(), r.Origin, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = lp.Acquire(ctx, r)
	var pe *PacingError
	if !errors.As(err, &pe) || !pe.Throttled {
		t.Fatalf("a request with a dropped pace kept went during its origin's back-off: %v", err)
	}
	if p := kept.Load(); p == old || p != sh.m[r.Origin] {
		t.Error("the origin's new pace was not kept in place of the dropped one")
	}
}

// TestEvictedStateFreed: an origin's state that the cache evicted is
// garbage, parsed file and all, once no request holds it, though the
// LocalPacer keeps the origin's pace until it is idle: nothing the pacer
// keeps points into the state, whether a request made the pace or a
// back-off after a 429 answer did, and nor does the origin of a WaitEvent
// an Observer keeps.
func TestEvictedStateFreed(t *testing.T) {
	body := robotsOfSize(3000, 4)
	var kept []string // the origins of the WaitEvents an Observer was given
	for _, tc := range []struct {
		name string
		tr   *Transport
	}{
		{"request", &Transport{Base: memRoundTripper{body}, UserAgent: "TestBot/1.0", CacheSize: MinCacheSize}},
		{"back-off", &Transport{Base: tooMany{memRoundTripper{body}}, UserAgent: "TestBot/1.0", CacheSize: MinCacheSize, MaxRequestsPerOrigin: -1}},
		{"observer", &Transport{Base: memRoundTripper{body}, UserAgent: "TestBot/1.0", CacheSize: MinCacheSize, Delay: time.Second, Clock: &steppingClock{},
			Observer: &Observer{Waited: func(ev WaitEvent) { kept = append(kept, ev.Origin) }}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr
			crawlOrigins(t, tr, 1)
			if tr.Observer != nil {
				crawlOrigins(t, tr, 1) // waits its turn
				if len(kept) == 0 {
					t.Fatal("no request waited")
				}
			}
			o, err := originAt("http", "o0.example")
			if err != nil {
				t.Fatal(err)
			}
			k := tr.robotsKey(o, tr.UserAgent)
			st := tr.cached(k)
			if st == nil {
				t.Fatal("the state of o0.example is not cached")
			}
			name, freed := strings.Clone(st.name()), weak.Make(st)
			st = nil
			for i := 1; i < 12000; i++ { // past the bound: o0.example's state goes
				req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://o%d.example/", i), nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			if tr.cached(k) != nil {
				t.Fatalf("o0.example's state was not evicted: %+v", tr.Stats())
			}
			if tr.Observer == nil && tr.pacer.shard(name).m[name] == nil {
				t.Fatal("the pacer has no pace of o0.example: the test shows nothing")
			}
			runtime.GC()
			if freed.Value() != nil {
				t.Error("an evicted state is still reachable")
			}
			runtime.KeepAlive(tr)
		})
	}
}

// tooMany answers 429 Too Many Requests to every request but those for
// robots.txt, which it passes to its RoundTripper.
type tooMany struct{ http.RoundTripper }

func (m tooMany) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == "/robots.txt" {
		return m.RoundTripper.RoundTrip(req)
	}
	return &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

// backoffs records the back-offs a Transport gives its Pacer.
type backoffs struct {
	LocalPacer
	waits []time.Duration
}

func (b *backoffs) Throttle(_ context.Context, _ string, d time.Duration) {
	b.waits = append(b.waits, d)
}

// TestBackoffDoubles: after 429 or 503 answers in a row without a
// Retry-After, the back-off doubles from the origin's interval up to
// MaxBackoff, and stays there, however long the interval and however
// many the answers: it never wraps round to a short one.
func TestBackoffDoubles(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, every := range []time.Duration{0, time.Second, 3 * time.Second, time.Hour, 1 << 44, 1<<62 + 1} {
		pacer := &backoffs{}
		tr := &Transport{Pacer: pacer, MaxThrottle: 1 << 62, Clock: fixedClock{now}}
		st, _ := namedState(origin{host: "example.com:80"}, "", nil, false)
		st.every = every
		for range 40 {
			tr.throttle(context.Background(), st, "")
		}
		for i, got := range pacer.waits {
			want := tr.MaxThrottle
			if w := float64(max(every, time.Second)) * math.Pow(2, float64(min(i, 20))); w < float64(want) {
				want = time.Duration(w)
			}
			if got != want {
				t.Fatalf("interval %v: back-off %d is %v, want %v", every, i+1, got, want)
			}
		}
	}
}

// TestKeptPaceOfAnother: a pace kept from one LocalPacer is not used by
// another, which paces the origin by its own state.
func TestKeptPaceOfAnother(t *testing.T) {
	clk := &steppingClock{}
	a, b := &LocalPacer{Clock: clk}, &LocalPacer{Clock: clk}
	var kept atomic.Pointer[pace]
	r := PaceRequest{Origin: "https://a.example", Interval: time.Hour, Limit: 1, kept: &kept}
	lease, err := a.Acquire(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	lease.Release() // a's next request to the origin waits an hour
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lease, err = b.Acquire(ctx, r)
	if err != nil {
		t.Fatalf("b paced the origin by a's state: %v", err)
	}
	lease.Release()
	if _, err := a.Acquire(ctx, PaceRequest{Origin: r.Origin, Interval: time.Hour, Limit: 1}); err == nil {
		t.Fatal("a let a request go within the interval")
	}
}
