package robotsguard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"
	"weak"
)

// TestColdOriginAllocs: the first request to an origin allocates a few
// times beyond its two requests through Base, and not for the body of its
// robots.txt, which is read into a pooled buffer and dropped once parsed.
func TestColdOriginAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("counts allocations")
	}
	base := memRoundTripper{robotsOfSize(700, 1)}
	tr := &Transport{Base: base, UserAgent: "TestBot/1.0", CacheSize: 1 << 40}
	i := 0
	send := func(rt http.RoundTripper, path string) {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://o%d.example%s", i, path), nil)
		req.Header.Set("User-Agent", "TestBot/1.0") // as sent: no copy (see TestPacedRequestAllocs)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	bare := testing.AllocsPerRun(100, func() { i++; send(base, "/robots.txt"); send(base, "/") })
	send(tr, "/") // the first flight starts the flier
	n := testing.AllocsPerRun(100, func() { i++; send(tr, "/") })
	t.Logf("%v allocations, the bare fetch %v", n, bare)
	// The flight (singleflight's call, the key, the function, the flier's
	// job), the parsed rules and the state.
	if n > bare+13 {
		t.Errorf("a cold origin: %v allocations, %v more than the bare fetch, want at most 13", n, n-bare)
	}
}

// heldRobots serves robots.txt as memRoundTripper does once release is
// closed, and every other path at once.
type heldRobots struct {
	memRoundTripper
	release chan struct{}
}

func (h heldRobots) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == "/robots.txt" {
		<-h.release
	}
	return h.memRoundTripper.RoundTrip(req)
}

// TestFliersOfRequestsGivenUp: requests that stop waiting for a fetch
// leave their fliers to finish: each sends the state into the room of the
// channel its request dropped, without blocking, and is then free; at
// most maxIdleFliers of them wait for a next job, and none holds the
// Transport.
func TestFliersOfRequestsGivenUp(t *testing.T) {
	release := make(chan struct{})
	tr := &Transport{Base: heldRobots{memRoundTripper{robotsOfSize(100, 1)}, release}, UserAgent: "TestBot/1.0"}
	tr.init()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := origin{host: "o.example"}
	const n = 4 * maxIdleFliers
	for range n {
		// The fetch is held: each request gives up, and its flier waits.
		if st, _, err := tr.lookup(ctx, o, "", tr.UserAgent, tr.now(), 0); st != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("a request whose context ended: state %v, error %v; want none, context.Canceled", st, err)
		}
	}
	onJob := func() int { return goroutinesIn("robotsguard.flierJob.run(") }
	if !eventually(10*time.Second, func() bool { return onJob() == n }) {
		t.Fatalf("%d fliers on a job, want %d: the test shows nothing", onJob(), n)
	}
	close(release)
	// A goroutine tells no one when it is done: its stack is polled.
	if !eventually(10*time.Second, func() bool { return onJob() == 0 }) {
		t.Fatalf("%d fliers still on the job of a request that gave up", onJob())
	}
	if idle := idleFliers.Load(); idle > maxIdleFliers {
		t.Errorf("%d idle fliers, want %d at most", idle, maxIdleFliers)
	}
	if st := tr.cached(tr.robotsKey(o, tr.UserAgent)); st == nil || st.status != 200 {
		t.Errorf("the fetch no request waited for is not kept: state %v", st)
	}
	freed := weak.Make(tr)
	tr = nil
	runtime.GC()
	if freed.Value() != nil {
		t.Error("a Transport dropped is still reachable (an idle flier holds it)")
	}
}

// goroutinesIn returns the number of goroutines with fn on their stack.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte(fn))
		}
		buf = make([]byte, 2*len(buf))
	}
}

// eventually polls cond until it holds, for bound at most, and reports
// whether it did: for what tells no one, such as a goroutine's end.
func eventually(bound time.Duration, cond func() bool) bool {
	for end := time.Now().Add(bound); !cond(); runtime.Gosched() {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}
