package robotsguard

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
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
	sh.mu.Unlock()
	held := lp.paceOf(r.Origin) != nil
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
	if p := kept.Load(); p == old || p != lp.paceOf(r.Origin) {
		t.Error("the origin's new pace was not kept in place of the dropped one")
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

// TestUnpacedOrigin: a request with nothing to space or count (no
// interval, no limit) leaves no state and takes no lock, yet its origin's
// back-off holds it from the moment Throttle returns, requests sent at
// once from other goroutines included; once the back-off's state is
// dropped, requests go unpaced again.
func TestUnpacedOrigin(t *testing.T) {
	clk := &steppingClock{}
	lp := &LocalPacer{Clock: clk}
	r := PaceRequest{Origin: "https://a.example"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	throttled := func() bool {
		_, err := lp.Acquire(ctx, r)
		var pe *PacingError
		if err != nil && !(errors.As(err, &pe) && pe.Throttled) {
			t.Errorf("Acquire: %v", err)
		}
		return err != nil
	}
	if throttled() || lp.len() != 0 {
		t.Fatalf("a request with nothing to space: %d origins with state", lp.len())
	}
	started, after, done := make(chan bool), make(chan bool), make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- true }()
			for n := 0; !throttled(); n++ { // until a request is held
				if n == 0 {
					started <- true
				}
				select {
				case <-after: // Throttle has returned
					if !throttled() {
						t.Error("a request went during its origin's back-off")
					}
					return
				default:
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-started
	}
	lp.Throttle(context.Background(), r.Origin, time.Hour)
	close(after)
	if !throttled() {
		t.Error("a request went during its origin's back-off")
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	clk.n.Add(int64(2*(time.Hour+paceIdle)/(10*time.Millisecond)) + 1000) // idle past the back-off
	sh, _ := lp.shard(r.Origin)
	sh.mu.Lock()
	sh.ops = sh.wait // look now
	sh.expire(lp.tick(clk.Now()))
	n, held := sh.n.Load(), len(sh.m)
	sh.mu.Unlock()
	if n != 0 || held != 0 {
		t.Fatalf("the state of an origin idle past its back-off: %d held, %d counted", held, n)
	}
	if throttled() {
		t.Error("a request was held after its origin's back-off ended")
	}
}
