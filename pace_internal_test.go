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
	r := PaceRequest{Origin: "https://a.example", Interval: time.Second, Limit: 1}
	_, h, err := lp.acquire(context.Background(), r, &kept)
	if err != nil {
		t.Fatal(err)
	}
	h.end()
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
	lp.Backoff(context.Background(), r.Origin, clk.Now().Add(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, err = lp.acquire(ctx, r, &kept)
	var pe *PacingError
	if !errors.As(err, &pe) || !pe.Backoff {
		t.Fatalf("a request with a dropped pace kept went during its origin's back-off: %v", err)
	}
	if p := kept.Load(); p == old || p != sh.m[r.Origin] {
		t.Error("the origin's new pace was not kept in place of the dropped one")
	}
}
