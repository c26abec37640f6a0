package robotsredis_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
