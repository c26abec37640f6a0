package robotsredis_test

import (
	"context"
	"errors"
	"flag"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// go test -run TestPaceFair -fair-processes 8 -fair-goroutines 16 -fair-requests 2000 -v ./robotsredis
var (
	fairProcs    = flag.Int("fair-processes", 3, "Fleets of TestPaceFair")
	fairG        = flag.Int("fair-goroutines", 4, "goroutines of each Fleet in TestPaceFair")
	fairRequests = flag.Int("fair-requests", 240, "requests TestPaceFair measures")
)

// TestPaceFair: Fleets (processes, each with a client of its own) whose
// goroutines all send requests to one origin, one place and a short
// interval, back to back, are served in turn: no request waits much longer
// than the queue ahead of it takes (the others' requests, an interval
// each), and every process gets its share.
func TestPaceFair(t *testing.T) {
	s := startRedis(t)
	const interval = 5 * time.Millisecond
	procs, gs, total := *fairProcs, *fairG, *fairRequests
	r := robotsguard.PaceRequest{Origin: "https://fair.example", Limit: 1, Interval: interval}
	var fleets []*robotsredis.Fleet
	for range procs {
		// A loaded machine must not open the circuit: the test is of
		// the order in which Redis hands out the place.
		f := &robotsredis.Fleet{Client: s.client(t), CallTimeout: 5 * time.Second}
		t.Cleanup(func() { f.Close() })
		l, err := f.Acquire(context.Background(), r) // scripts loaded, subscribed
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
		fleets = append(fleets, f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var (
		mu     sync.Mutex
		waits  []time.Duration
		shares = make([]int, procs)
		served atomic.Int64
		wg     sync.WaitGroup
		start  = make(chan struct{})
	)
	stop, stopped := context.WithCancel(ctx)
	defer stopped()
	for p, f := range fleets {
		for range gs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for stop.Err() == nil {
					t0 := time.Now()
					l, err := f.Acquire(stop, r)
					if err != nil {
						if stop.Err() == nil {
							t.Errorf("Acquire: %v", err)
						}
						return
					}
					w := time.Since(t0)
					n := served.Add(1)
					l.Release()
					if n > int64(total) {
						stopped()
						return
					}
					mu.Lock()
					if n > int64(procs*gs) { // the first round fills the queue
						waits = append(waits, w)
						shares[p]++
					}
					mu.Unlock()
				}
			}()
		}
	}
	began := time.Now()
	close(start)
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("%d requests served in %v", served.Load(), time.Since(began))
	}
	slices.Sort(waits)
	p99 := waits[len(waits)*99/100]
	queue := time.Duration(procs*gs-1) * interval
	per := time.Since(began) / time.Duration(served.Load())
	t.Logf("%d processes × %d goroutines: %d requests, one each %v; wait median %v, p99 %v, max %v; the queue ahead %v; shares %v",
		procs, gs, len(waits), per.Round(time.Microsecond), waits[len(waits)/2].Round(time.Millisecond), p99.Round(time.Millisecond), waits[len(waits)-1].Round(time.Millisecond), queue, shares)
	// The queue ahead of a request: the others', each an interval and
	// the time it takes (the round trips of its reservation and release).
	if bound := 3 * time.Duration(procs*gs-1) * max(interval, per); p99 > bound {
		t.Errorf("p99 wait %v, over 3 × the queue ahead (%v)", p99, bound)
	}
	for p, n := range shares {
		if fair := len(waits) / procs; n < fair/2 {
			t.Errorf("process %d served %d of %d requests, under half its share (%d)", p, n, len(waits), fair)
		}
	}
}

// TestPaceQueueGiveUp: a request that gives up waiting leaves the queue,
// so the place goes to the next waiter at once; a waiter whose process
// died (a turn in Redis that nobody asks for again) holds the queue for
// three seconds at most.
func TestPaceQueueGiveUp(t *testing.T) {
	s := startRedis(t)
	f1, _ := newFleet(t, s)
	f2, _ := newFleet(t, s)
	f3, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://giveup.example", Limit: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := f1.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	short, stop := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = f2.Acquire(short, r)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while the place is held: %v, want context.DeadlineExceeded", err)
	}
	l.Release()
	start := time.Now()
	l, err = f3.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the next request waited %v: the one that gave up kept its turn", took)
	}

	// A turn nobody asks for again, taken a moment ago.
	c := s.client(t)
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	q := "robotsguard/p1/{" + r.Origin + "}#queue"
	if err := c.ZAdd(ctx, q, redis.Z{Score: float64(now.UnixMicro()), Member: "dead"}).Err(); err != nil {
		t.Fatal(err)
	}
	c.ZAdd(ctx, "robotsguard/p1/{"+r.Origin+"}#tickets", redis.Z{Score: float64(now.Add(3 * time.Second).UnixMicro()), Member: "dead"})
	start = time.Now()
	l, err = f3.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	took := time.Since(start)
	t.Logf("behind a dead waiter: %v", took)
	if took > 5*time.Second {
		t.Errorf("a dead waiter held the queue for %v, want 3 s at most", took)
	}
	if n := c.ZCard(ctx, q).Val(); n != 0 {
		t.Errorf("%d waiters left in the queue", n)
	}
}
