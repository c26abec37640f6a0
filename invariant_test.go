package robotsguard_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/internal/robotsgen"
	"github.com/robotsguard/robotsguard/policy"
)

var (
	invariantSeed = flag.Uint64("invariant.seed", 9309, "seed of TestInvariantUnderLoad's files, faults and URLs")
	invariantLong = flag.Bool("invariant.long", false, "run TestInvariantUnderLoad for many rounds")
)

// TestInvariantUnderLoad: the promise to site owners, under load and
// faults. Many goroutines crawl many origins through one Transport; each
// origin serves its own random robots.txt (several groups, '*', '$',
// percent-escapes) and misbehaves in its own way (flapping 5xx and 404,
// connections reset mid-body, slow answers, rules that change at every
// fetch), and checks every request it receives against the files it
// served. A request is acceptable when a file the Transport may hold
// allows it: one served within the cache lifetime window, or the last
// served before it (a copy stands in while fetches fail). Zero
// unacceptable requests, and robots.txt requested within the retry
// budget.
//
// Files, faults and URLs come from -invariant.seed; the interleaving of
// goroutines does not. The clock is manual and moves only between rounds,
// past the files' lifetime. -short runs a smaller load (as CI does under
// -race: the same 1,000 goroutines and 100 origins, fewer rounds),
// -invariant.long a much longer one (40 rounds of 20 requests each).
func TestInvariantUnderLoad(t *testing.T) {
	workers, origins, rounds, perRound := 1000, 100, 3, 3
	switch {
	case *invariantLong:
		rounds, perRound = 40, 20
	case testing.Short():
		rounds, perRound = 2, 2
	}
	const maxAge = 60 * time.Second
	clk := newAutoClock()
	rng := rand.New(rand.NewPCG(*invariantSeed, 13))

	type origin struct {
		name  string
		fault int // 0 none, 1 flapping 5xx/404, 2 resets, 3 slow, 4 rules change every fetch
		mu    sync.Mutex
		rng   *rand.Rand
		file  string
		log   []robotsgen.Served
		// robots.txt requests in the current round; the most in one round
		fetches, maxFetches int
		bad                 []string
	}
	sites := make(map[string]*origin, origins)
	names := make([]string, origins)
	for i := range origins {
		o := &origin{name: fmt.Sprintf("o%d.test", i), fault: i % 5, rng: rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))}
		o.file = robotsgen.Robots(o.rng)
		sites[o.name], names[i] = o, o.name
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := sites[strings.TrimSuffix(r.Host, ":80")]
		if o == nil {
			http.Error(w, "no such origin", http.StatusMisdirectedRequest)
			return
		}
		if r.URL.Path != "/robots.txt" {
			o.mu.Lock()
			if !robotsgen.Allows(o.log, r.URL, clk.Now(), 2*maxAge) {
				o.bad = append(o.bad, r.URL.RequestURI())
			}
			o.mu.Unlock()
			io.WriteString(w, "ok")
			return
		}
		o.mu.Lock()
		o.fetches++
		o.maxFetches = max(o.maxFetches, o.fetches)
		n := o.fetches
		roll := o.rng.IntN(4)
		if o.fault == 4 {
			o.file = robotsgen.Robots(o.rng)
		}
		file := o.file
		var slow time.Duration
		if o.fault == 3 {
			slow = time.Duration(o.rng.IntN(60)) * time.Millisecond
		}
		// Record what is served before the Transport can read it.
		switch {
		case o.fault == 1 && roll == 0:
			o.log = append(o.log, robotsgen.Served{At: clk.Now()})
		case o.fault == 1 && roll == 1, o.fault == 2 && roll < 2:
			// a 503, or a reset: nothing usable served
		default:
			o.log = append(o.log, robotsgen.Served{At: clk.Now(), Rules: policy.Parse([]byte(file))})
		}
		o.mu.Unlock()
		switch {
		case o.fault == 1 && roll == 0:
			w.WriteHeader(http.StatusNotFound)
			return
		case o.fault == 1 && roll == 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case o.fault == 2 && roll < 2:
			// A connection reset mid-body: the header promises more
			// than is sent.
			hj, ok := w.(http.Hijacker)
			if !ok {
				panic("no hijacking")
			}
			c, buf, err := hj.Hijack()
			if err != nil {
				return
			}
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(file)+100, file[:len(file)/2])
			buf.Flush()
			if tc, ok := c.(*net.TCPConn); ok && n%2 == 0 {
				tc.SetLinger(0) // RST rather than FIN
			}
			c.Close()
			return
		}
		if slow > 0 {
			tm := time.NewTimer(slow)
			defer tm.Stop()
			select {
			case <-tm.C:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Cache-Control", fmt.Sprintf("max-age=%d", int(maxAge/time.Second)))
		io.WriteString(w, file)
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	base := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr) // every origin is this server
		},
		MaxIdleConnsPerHost: 64,
	}
	defer base.CloseIdleConnections()
	tr := &robotsguard.Transport{
		Base:         base,
		UserAgent:    "TestBot/1.0 (+https://example.com/bot)",
		Clock:        clk,
		Delay:        -1,
		MaxDelay:     time.Nanosecond, // a Crawl-delay costs nothing here
		FetchTimeout: 2 * time.Second,
	}
	robotsguard.SetRetryWait(tr, time.Millisecond, 2*time.Millisecond)
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	// URLs per worker and round, drawn before the workers start.
	type job struct{ origin, path string }
	jobs := make([][]job, workers)
	for w := range jobs {
		for range rounds * perRound {
			jobs[w] = append(jobs[w], job{names[rng.IntN(origins)], robotsgen.Path(rng)})
		}
	}
	var sent, refused, failed atomic.Int64
	for round := range rounds {
		if round > 0 {
			clk.Advance(maxAge + time.Second) // every file is stale: fetched again
		}
		for _, o := range sites {
			o.mu.Lock()
			o.fetches = 0
			if o.fault != 4 && o.rng.IntN(3) == 0 {
				o.file = robotsgen.Robots(o.rng) // rules that change between rounds
			}
			o.mu.Unlock()
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, j := range jobs[w][round*perRound : (round+1)*perRound] {
					resp, err := client.Get("http://" + j.origin + j.path)
					switch {
					case err == nil:
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						sent.Add(1)
					case errors.Is(err, robotsguard.ErrDisallowed):
						refused.Add(1)
					default:
						failed.Add(1)
						t.Errorf("GET http://%s%s: %v", j.origin, j.path, err)
					}
				}
			}()
		}
		wg.Wait()
	}
	for _, name := range names {
		o := sites[name]
		if len(o.bad) > 0 {
			t.Errorf("%s (fault %d) got %d requests its files forbade, e.g. %q; files served: %d", name, o.fault, len(o.bad), o.bad[0], len(o.log))
		}
		if o.maxFetches > 1+robotsguard.DefaultRetryMax {
			t.Errorf("%s (fault %d): %d robots.txt requests in a round, budget %d", name, o.fault, o.maxFetches, 1+robotsguard.DefaultRetryMax)
		}
	}
	if sent.Load() == 0 || refused.Load() == 0 {
		t.Errorf("sent %d, refused %d: the load does not exercise both", sent.Load(), refused.Load())
	}
	t.Logf("seed %d: %d workers, %d origins, %d rounds: %d sent, %d refused, %d failed", *invariantSeed, workers, origins, rounds, sent.Load(), refused.Load(), failed.Load())
}
