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
