package robotsredis_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// TestPaceSwitchToLocal (issue 27): when Redis goes, the process's first
// request paced alone comes Size intervals after its last fleet-paced
// request to the origin ended, not at once: the local pacer starts from
// what the process itself last sent.
func TestPaceSwitchToLocal(t *testing.T) {
	s := startRedis(t)
	f := &robotsredis.Fleet{Client: s.client(t), Size: 10, CallTimeout: 50 * time.Millisecond}
	defer f.Close()
	r := robotsguard.PaceRequest{Origin: "https://switch.example", Interval: 100 * time.Millisecond, Limit: 1}
	hold := 10 * r.Interval
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := f.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	ended := time.Now() // the fleet-paced request's end, at the earliest
	l.Release()
	s.kill()

	// A request whose deadline comes before then fails at once, and says
	// when it could go.
	short, cancelShort := context.WithTimeout(ctx, hold/2)
	l, err = f.Acquire(short, r)
	cancelShort()
	var pe *robotsguard.PacingError
	switch {
	case err == nil:
		l.Release()
		t.Fatalf("the first request paced alone went %v after the last fleet-paced one ended, want %v (Size × interval) at least",
			time.Since(ended).Round(time.Millisecond), hold)
	case !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("Acquire with a deadline before its turn: %v, want a *PacingError matching context.DeadlineExceeded", err)
	case pe.NotBefore.Before(ended.Add(hold)):
		t.Errorf("NotBefore %v after the last fleet-paced request ended, want %v at least", pe.NotBefore.Sub(ended), hold)
	}

	l, err = f.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if gap := time.Since(ended); gap < hold {
		t.Errorf("the first request paced alone went %v after the last fleet-paced one ended, want %v at least", gap, hold)
	}
	l.Release()
}

// TestPaceSwitchToLocalUnderWay: when Redis goes while the process's
// fleet-paced request to an origin is under way, holding its only place,
// the first request paced alone waits for its end, then Size intervals.
func TestPaceSwitchToLocalUnderWay(t *testing.T) {
	s := startRedis(t)
	f := &robotsredis.Fleet{Client: s.client(t), Size: 10, CallTimeout: 50 * time.Millisecond}
	defer f.Close()
	r := robotsguard.PaceRequest{Origin: "https://underway.example", Interval: 50 * time.Millisecond, Limit: 1}
	hold := 10 * r.Interval
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := f.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	s.kill()

	// While the request is under way, a request paced alone waits: one
	// with time for the hold, not for an end that does not come, gives
	// up when its context ends.
	sent := time.Now()
	short, cancelShort := context.WithTimeout(ctx, 2*hold)
	l2, err := f.Acquire(short, r)
	cancelShort()
	if err == nil {
		l2.Release()
		t.Fatalf("a request paced alone went %v after the fleet-paced one was sent, while it was under way",
			time.Since(sent).Round(time.Millisecond))
	}
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while the only place is held: %v, want a *PacingError matching context.DeadlineExceeded", err)
	}

	ended := time.Now()
	l.Release()
	l, err = f.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if gap := time.Since(ended); gap < hold {
		t.Errorf("the first request paced alone went %v after the fleet-paced one ended, want %v at least", gap, hold)
	}
	l.Release()
}

// TestPaceAloneSpread (the v1.0 release candidate's trial): while Redis is
// out of reach, the processes of a fleet spread their requests to an
// origin over each cycle of Size intervals, each at its own phase, rather
// than send them together. Before, each process paced the origin alone
// from its own last request, so processes that began alone at the same
// moment (Redis failed for all of them at once: "fresh"), or whose last
// fleet-paced requests came Size intervals apart ("anchored"), sent theirs
// in bursts of Size requests a few milliseconds apart every Size
// intervals. With distinct ranks, two processes' requests go three
// quarters of an interval apart (half of one at least when a timer fires
// late); the test asks for a quarter,
// which a loaded machine's timers do not take from them, and which the
// bursts were far from. It measures when Acquire returned, what the Fleet
// decides: the arrivals at the origin, logged, add the HTTP client's and
// server's scheduling, which a machine with ten times more work than cores
// delays by 100 ms now and then.
func TestPaceAloneSpread(t *testing.T) {
	const interval = 100 * time.Millisecond
	// Three processes whose first requests alone are their first to the
	// origin, all sent at once.
	t.Run("fresh", func(t *testing.T) { paceAloneSpread(t, 3, interval, []int{0, 0, 0}) })
	// Two processes whose last fleet-paced requests to the origin came two
	// intervals apart (the first sent one, the second two after it).
	t.Run("anchored", func(t *testing.T) { paceAloneSpread(t, 2, interval, []int{1, 2}) })
}

// paceAloneSpread: size Fleets, each with a client of its own behind a
// proxy to one Redis, pace one request each to another origin and
// fleetPaced[i] requests to the origin, in turn, while Redis answers; then
// Redis is cut off, and each paces four requests alone to the origin (a
// local server, which records when each arrives), all starting at once.
// Consecutive requests from different processes must go (Acquire return)
// a quarter of an interval apart at least; each process's own requests
// must go Size intervals apart at least (as they did before).
func paceAloneSpread(t *testing.T, size int, interval time.Duration, fleetPaced []int) {
	const each = 4
	hold := time.Duration(size) * interval
	type arrival struct {
		at   time.Time
		proc int
	}
	var mu sync.Mutex
	var arrivals []arrival
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		p, _ := strconv.Atoi(r.Header.Get("X-Process"))
		mu.Lock()
		arrivals = append(arrivals, arrival{now, p})
		mu.Unlock()
	}))
	defer srv.Close()
	s := startRedis(t)
	p := newProxy(t, s.addr())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fleets := make([]*robotsredis.Fleet, size)
	for i := range fleets {
		fleets[i] = &robotsredis.Fleet{Client: p.client(t), Size: size, Rank: i + 1, CallTimeout: 50 * time.Millisecond}
		defer fleets[i].Close()
	}
	r := robotsguard.PaceRequest{Origin: srv.URL, Interval: interval, Limit: 1}
	warm := robotsguard.PaceRequest{Origin: "https://warm.example", Interval: interval, Limit: 1}
	for i, f := range fleets {
		l, err := f.Acquire(ctx, warm)
		if err != nil {
			t.Fatalf("process %d, while Redis answers: %v", i, err)
		}
		l.Release()
		for range fleetPaced[i] {
			l, err := f.Acquire(ctx, r)
			if err != nil {
				t.Fatalf("process %d, while Redis answers: %v", i, err)
			}
			l.Release()
		}
	}
	p.cut()

	start := make(chan struct{})
	sent := make([][]time.Time, size) // when each process's requests went, by Acquire's return
	var wg sync.WaitGroup
	for i, f := range fleets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range each {
				l, err := f.Acquire(ctx, r)
				if err != nil {
					t.Errorf("process %d, alone: %v", i, err)
					return
				}
				sent[i] = append(sent[i], time.Now())
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/page", nil)
				req.Header.Set("X-Process", strconv.Itoa(i))
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				l.Release()
				if err != nil {
					t.Errorf("process %d: %v", i, err)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		return
	}

	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != size*each {
		t.Fatalf("%d requests arrived, want %d", len(arrivals), size*each)
	}
	var went []arrival // when each process's Acquire returned
	for i, ts := range sent {
		for _, at := range ts {
			went = append(went, arrival{at, i})
		}
	}
	// spread sorts events and returns the gaps between consecutive ones
	// of different processes, and the events as process@time.
	spread := func(events []arrival) (gaps []time.Duration, log []string) {
		slices.SortFunc(events, func(a, b arrival) int { return a.at.Compare(b.at) })
		for i, a := range events {
			log = append(log, fmt.Sprintf("%d@%v", a.proc, a.at.Sub(events[0].at).Round(time.Millisecond)))
			if i > 0 && a.proc != events[i-1].proc {
				gaps = append(gaps, a.at.Sub(events[i-1].at))
			}
		}
		if len(gaps) == 0 {
			t.Fatalf("no two consecutive requests from different processes: %v", log)
		}
		return gaps, log
	}
	gaps, log := spread(went)
	arrived, arrivedLog := spread(arrivals)
	var sum time.Duration
	for _, g := range gaps {
		sum += g
	}
	t.Logf("%d processes alone, interval %v: between processes' requests, shortest %v, mean %v (at the origin: shortest %v); Acquire returned (process@time): %v; arrivals: %v",
		size, interval, slices.Min(gaps).Round(time.Microsecond), (sum / time.Duration(len(gaps))).Round(time.Microsecond),
		slices.Min(arrived).Round(time.Microsecond), log, arrivedLog)
	if g := slices.Min(gaps); g < interval/4 {
		t.Errorf("two processes' requests went %v apart, want %v at least (a quarter of the interval): they go in bursts; Acquire returned (process@time): %v",
			g.Round(time.Microsecond), interval/4, log)
	}
	for i, ts := range sent {
		for k := 1; k < len(ts); k++ {
			if g := ts[k].Sub(ts[k-1]); g < hold {
				t.Errorf("process %d sent two requests %v apart alone, want %v (Size intervals) at least", i, g, hold)
			}
		}
	}
}

// TestPaceAloneRejoins: a request that began waiting alone, while the
// process's circuit was open, goes by the fleet's schedule once the
// circuit has closed, not alone. Before, the requests a process had queued
// in its Fallback went alone, Size intervals apart, for as long as the
// queue took to drain after Redis answered again, between the slots the
// fleet handed out meanwhile: a trial of 4 processes saw the fleet's
// requests to an origin 6 ms apart (a Crawl-delay of 192 ms) 2 s after
// the last circuit closed. Process A is cut off from Redis and queues
// three requests alone; once the first has gone Redis answers again, and
// A's circuit closes while process B takes the fleet's slots back to
// back. A's requests after the close must go an interval from every one
// of B's, give or take a margin for timers (0.4 interval): a request paced
// alone goes in A's window of the cycle, within half an interval of one
// of B's slots.
func TestPaceAloneRejoins(t *testing.T) {
	const interval = 200 * time.Millisecond
	s := startRedis(t)
	p := newProxy(t, s.addr())
	closed := make(chan time.Time, 1)
	a := &robotsredis.Fleet{Client: p.client(t), Size: 2, Rank: 1, CallTimeout: 50 * time.Millisecond,
		Failures: 1, Cooldown: 50 * time.Millisecond,
		OnState: func(st robotsredis.State, _ error) {
			if st == robotsredis.Closed {
				select {
				case closed <- time.Now():
				default:
				}
			}
		}}
	defer a.Close()
	b := &robotsredis.Fleet{Client: s.client(t), Size: 2, Rank: 2, CallTimeout: 50 * time.Millisecond}
	defer b.Close()
	r := robotsguard.PaceRequest{Origin: "https://rejoin.example", Interval: interval, Limit: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := a.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	p.cut()

	var mu sync.Mutex
	var sentA, sentB []time.Time
	first := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := a.Acquire(ctx, r)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			sentA = append(sentA, time.Now())
			mu.Unlock()
			l.Release()
			once.Do(func() { close(first) })
		}()
	}
	<-first
	p.restore()
	closedAt := <-closed
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		l, err := b.Acquire(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		sentB = append(sentB, time.Now())
		mu.Unlock()
		l.Release()
	}
	mu.Lock()
	defer mu.Unlock()
	after := 0
	for _, x := range sentA {
		if x.Before(closedAt.Add(interval / 10)) {
			continue // decided before the close, perhaps
		}
		after++
		for _, y := range sentB {
			if gap := x.Sub(y).Abs(); gap < interval*6/10 {
				t.Errorf("A's request went %v after its circuit closed, %v from one of B's (interval %v)",
					x.Sub(closedAt).Round(time.Millisecond), gap.Round(time.Millisecond), interval)
			}
		}
	}
	t.Logf("A: %d requests after its circuit closed, of %d; B: %d", after, len(sentA), len(sentB))
	if after == 0 {
		t.Fatal("no request of A went after its circuit closed: the test tested nothing")
	}
}

// failReservations is a go-redis hook that fails the next n reservations
// (script calls on an origin's queue whose first argument is the
// interval), without sending them, as a call that times out fails: the
// circuit stays closed (n below Failures).
type failReservations struct {
	interval  time.Duration
	n, failed atomic.Int32
}

func (h *failReservations) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *failReservations) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		a := cmd.Args()
		if strings.HasPrefix(cmd.Name(), "eval") && len(a) > 7 && strings.HasSuffix(fmt.Sprint(a[5]), "#queue") &&
			fmt.Sprint(a[7]) == strconv.FormatInt(h.interval.Microseconds(), 10) && h.n.Add(-1) >= 0 {
			h.failed.Add(1)
			err := errors.New("i/o timeout (test)")
			cmd.SetErr(err)
			return err
		}
		return next(ctx, cmd)
	}
}
func (h *failReservations) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestPaceFailedReservation: a request whose reservations fail, twice in
// a row, while the circuit stays closed (calls slower than CallTimeout
// now and then, a Redis slow but not down), goes by the fleet's schedule
// once a reservation succeeds, not alone between the slots the other
// processes take. Before, it went alone: a trial of 4 processes whose
// Redis replies were held 200 ms (CallTimeout 250 ms) saw requests to an
// origin 0.09 to 0.43 of its Crawl-delay apart, with no circuit open.
func TestPaceFailedReservation(t *testing.T) {
	const interval = 200 * time.Millisecond
	s := startRedis(t)
	ca := s.client(t)
	h := &failReservations{interval: interval}
	ca.AddHook(h)
	a := &robotsredis.Fleet{Client: ca, Size: 2, Rank: 1}
	defer a.Close()
	b := &robotsredis.Fleet{Client: s.client(t), Size: 2, Rank: 2}
	defer b.Close()
	r := robotsguard.PaceRequest{Origin: "https://failed.example", Interval: interval, Limit: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	warm(t, ctx, a, b)

	var sentB []time.Time
	stop := make(chan struct{})
	bDone := make(chan struct{})
	go func() {
		defer close(bDone)
		for {
			l, err := b.Acquire(ctx, r)
			if err != nil {
				t.Error(err)
				return
			}
			sentB = append(sentB, time.Now())
			l.Release()
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	h.n.Store(2)
	l, err := a.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	sentA := time.Now()
	l.Release()
	close(stop)
	<-bDone
	if n := h.failed.Load(); n != 2 {
		t.Fatalf("the hook failed %d reservations, want 2: the test tested nothing", n)
	}
	if st := a.State(); st != robotsredis.Closed {
		t.Fatalf("A's circuit is %v, want closed: the test is about calls that fail now and then", st)
	}
	for _, y := range sentB {
		if gap := sentA.Sub(y).Abs(); gap < interval*6/10 {
			t.Errorf("A's request, its reservations failed twice, went %v from one of B's (interval %v)",
				gap.Round(time.Millisecond), interval)
		}
	}
	var rel []time.Duration
	for _, y := range sentB {
		rel = append(rel, y.Sub(sentA).Round(time.Millisecond))
	}
	t.Logf("B's requests went at %v from A's", rel)
}
