package robotsredis_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/crawl"
	"github.com/robotsguard/robotsguard/robotsredis"
)

var _ crawl.Peeker = (*robotsredis.Fleet)(nil)

// TestPeekOtherProcess: a request one process sent, with an interval of a
// second, holds the origin for the other processes: Peek from another
// Fleet tells the second, less the time since, on Redis's clock; so it
// tells the end of a throttle another process set; an origin nobody asked
// for could go at once.
func TestPeekOtherProcess(t *testing.T) {
	s := startRedis(t)
	f1, _ := newFleet(t, s)
	f2, n2 := newFleet(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := "https://peek.example"
	if d, err := f2.Peek(ctx, o); err != nil || d != 0 {
		t.Fatalf("Peek of an origin nobody asked for: %v, %v; want 0, nil", d, err)
	}
	for _, limit := range []int{0, 1} {
		start := time.Now()
		l, err := f1.Acquire(ctx, robotsguard.PaceRequest{Origin: o + strconv.Itoa(limit), Interval: time.Second, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
		calls := n2.n.Load()
		d, err := f2.Peek(ctx, o+strconv.Itoa(limit))
		since := time.Since(start)
		if err != nil {
			t.Fatalf("limit %d: Peek: %v", limit, err)
		}
		t.Logf("limit %d: Peek %v after a request with an interval of 1s, %v ago", limit, d, since)
		if d <= 500*time.Millisecond || d > time.Second {
			t.Errorf("limit %d: Peek after another process's request with an interval of 1s: %v, want (0.5s, 1s]", limit, d)
		}
		if c := n2.n.Load() - calls; c != 1 {
			t.Errorf("limit %d: Peek made %d Redis calls, want 1", limit, c)
		}
	}

	// A throttle one process sets holds the others: Peek tells its end.
	f1.Throttle(ctx, o, 5*time.Second)
	d, err := f2.Peek(ctx, o)
	if err != nil || d < 4*time.Second || d > 5*time.Second {
		t.Errorf("Peek after another process's throttle of 5s: %v, %v; want [4s, 5s], nil", d, err)
	}
}

// TestPeekAlone: with Redis out of reach, Peek answers from the process's
// own record (Size intervals after its last request to the origin, as
// Acquire would pace the next one alone), without an error; once the
// circuit is open, without calling Redis. It fails only when its context
// has ended.
func TestPeekAlone(t *testing.T) {
	s := startRedis(t)
	p := newProxy(t, s.addr())
	c := p.client(t)
	n := &counter{}
	c.AddHook(n)
	f := &robotsredis.Fleet{Client: c, Size: 3, Rank: 1, Failures: 1, Cooldown: time.Minute}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := "https://alone.example"
	l, err := f.Acquire(ctx, robotsguard.PaceRequest{Origin: o, Interval: time.Second, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	ended := time.Now() // no later than when the Fleet records the end
	l.Release()
	p.cut()

	d1, err := f.Peek(ctx, o) // fails to reach Redis: the circuit opens
	if err != nil {
		t.Fatalf("Peek with Redis cut off: %v", err)
	}
	if st := f.State(); st != robotsredis.Open {
		t.Fatalf("circuit %v after a failed Peek, with Failures 1", st)
	}
	calls := n.n.Load()
	d2, err := f.Peek(ctx, o)
	if err != nil {
		t.Fatalf("Peek with the circuit open: %v", err)
	}
	if c := n.n.Load() - calls; c != 0 {
		t.Errorf("Peek with the circuit open made %d Redis calls, want none", c)
	}
	// Alone, the next request goes 3 intervals after the last one ended,
	// in the window of rank 1 of a cycle of 3 s: before a cycle more.
	for _, d := range []time.Duration{d1, d2} {
		if min := 3*time.Second - time.Since(ended); d < min || d > 6*time.Second {
			t.Errorf("Peek alone: %v, want [%v, 6s]: 3 intervals after the last request ended, in the process's window", d, min)
		}
	}
	t.Logf("Peek alone: %v, then %v with the circuit open", d1, d2)

	done, stop := context.WithCancel(ctx)
	stop()
	if _, err := f.Peek(done, o); !errors.Is(err, context.Canceled) {
		t.Errorf("Peek with its context ended: %v, want context.Canceled", err)
	}
	if d, err := f.Peek(ctx, "https://never.example"); err != nil || d != 0 {
		t.Errorf("Peek alone of an origin never asked for: %v, %v; want 0, nil", d, err)
	}
}

// hidePeek is a Pacer that is not a crawl.Peeker.
type hidePeek struct{ robotsguard.Pacer }

// crawlSite is a local origin whose robots.txt asks for a Crawl-delay of
// 0.2 s; it records when each page is asked for.
type crawlSite struct {
	*httptest.Server
	mu       sync.Mutex
	arrivals []time.Time
}

func newCrawlSite(t *testing.T) *crawlSite {
	s := &crawlSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nCrawl-delay: 0.2\nDisallow: /private\n")
			return
		}
		s.mu.Lock()
		s.arrivals = append(s.arrivals, time.Now())
		s.mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

// process returns a crawl.Frontier of a process of the fleet: a Transport
// with a Fleet of its own on Redis s, as Store and Pacer (hiding its Peek
// unless peek), and a client whose requests may wait for their turns for
// timeout less the Transport's time for a response (1 s).
func process(t *testing.T, s *redisServer, peek bool, timeout time.Duration) (*crawl.Frontier, *http.Client, *robotsredis.Fleet) {
	f, _ := newFleet(t, s)
	var pacer robotsguard.Pacer = f
	if !peek {
		pacer = hidePeek{f}
	}
	tr := &robotsguard.Transport{UserAgent: "PeekBot/1.0", Store: f, Pacer: pacer}
	return &crawl.Frontier{Transport: tr}, &http.Client{Transport: tr, Timeout: timeout}, f
}

// TestPeekFrontier: two processes (two Transports, each with a Fleet of
// its own on one Redis), each crawling the same two origins with a
// crawl.Frontier and two workers; the origins' robots.txt ask for a
// Crawl-delay of 0.2 s, and a request may wait for its turn for a second
// (Client.Timeout 2 s, less the Transport's second for the response).
// Told by Peek of the other process's turns, the Frontiers hand out few
// URLs whose requests cannot go in time (requeued), every URL is crawled,
// none refused, and each origin's requests come 0.2 s apart.
func TestPeekFrontier(t *testing.T) {
	const perOrigin = 6 // URLs of each origin, for each process
	s := startRedis(t)
	sites := []*crawlSite{newCrawlSite(t), newCrawlSite(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	stats := make([]crawl.Stats, 2)
	for i := range 2 {
		fr, client, _ := process(t, s, true, 2*time.Second)
		for k := range perOrigin {
			for _, site := range sites {
				if err := fr.Add(ctx, site.URL+"/p"+strconv.Itoa(k)); err != nil {
					t.Fatal(err)
				}
			}
		}
		wg.Go(func() {
			err := fr.Run(ctx, client, 2, func(ctx context.Context, it crawl.Item, resp *http.Response, err error) error {
				if err != nil {
					t.Errorf("process %d: %s: %v", i, it.URL, err)
				}
				return nil
			})
			if err != nil {
				t.Errorf("process %d: Run: %v", i, err)
			}
			stats[i] = fr.Stats()
		})
	}
	wg.Wait()
	requeued := 0
	for i, st := range stats {
		if st.Refused != 0 || st.Done != 2*perOrigin {
			t.Errorf("process %d: %+v, want %d Done, none refused", i, st, 2*perOrigin)
		}
		requeued += st.Requeued
	}
	var gaps []time.Duration
	for _, site := range sites {
		slices.SortFunc(site.arrivals, time.Time.Compare)
		for k := 1; k < len(site.arrivals); k++ {
			gaps = append(gaps, site.arrivals[k].Sub(site.arrivals[k-1]))
		}
	}
	t.Logf("requeued: %d; shortest gap between two requests to an origin: %v", requeued, slices.Min(gaps))
	if requeued > 2 {
		t.Errorf("two processes, two origins, Crawl-delay 0.2 s: %d URLs requeued, want 2 at most", requeued)
	}
	if g := slices.Min(gaps); g < 200*time.Millisecond {
		t.Errorf("two requests to an origin %v apart, want the Crawl-delay, 0.2 s, at least", g)
	}
}

// TestPeekFrontierThrottle: a throttle another process sets while a
// Frontier's request is under way (a 429 it was answered) is learned by
// Peek when the response ends: the origin's next URL is handed out once
// the throttle is over, and goes at once, where a Frontier whose Pacer
// cannot Peek hands it out a Crawl-delay later, and its request, which
// cannot wait that long, is requeued.
func TestPeekFrontierThrottle(t *testing.T) {
	s := startRedis(t)
	for _, peek := range []bool{true, false} {
		// A site of its own: the first pass's last request and the
		// throttle it set must not pace the second's first request.
		site := newCrawlSite(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// A request may wait 0.2 s for its turn: 1.2 s less the
		// Transport's second for the response.
		fr, client, _ := process(t, s, peek, 1200*time.Millisecond)
		_, _, other := process(t, s, true, time.Second)
		for k := range 2 {
			if err := fr.Add(ctx, site.URL+"/"+strconv.FormatBool(peek)+strconv.Itoa(k)); err != nil {
				t.Fatal(err)
			}
		}
		first := true
		err := fr.Run(ctx, client, 1, func(ctx context.Context, it crawl.Item, resp *http.Response, err error) error {
			if err != nil {
				t.Errorf("peek %v: %s: %v", peek, it.URL, err)
			}
			if first {
				first = false
				other.Throttle(ctx, site.URL, time.Second)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("peek %v: Run: %v", peek, err)
		}
		st := fr.Stats()
		want := 0
		if !peek {
			want = 1
		}
		if st.Done != 2 || st.Requeued != want {
			t.Errorf("peek %v: a throttle of 1 s set by another process: %+v, want 2 Done, %d requeued", peek, st, want)
		}
	}
}
