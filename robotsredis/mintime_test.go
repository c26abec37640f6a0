package robotsredis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// TestPaceMinTimeLeft: a request that would have to wait goes only with
// PaceRequest.MinTimeLeft left before its deadline (the Transport's
// MinResponseTime). One whose slot, or place, would come later fails at
// once with a *PacingError that says when the origin's next slot is, and
// takes nothing in Redis: the origin's next request goes at its due time.
// Deadlines 300ms (before the slot) and 1.5s (after it, but with less than
// MinTimeLeft to spare) fail alike.
func TestPaceMinTimeLeft(t *testing.T) {
	const interval = time.Second
	s := startRedis(t)
	f := &robotsredis.Fleet{Client: s.client(t)}
	defer f.Close()
	raw := s.client(t)
	for _, limit := range []int{0, 1} {
		r := robotsguard.PaceRequest{Origin: "https://mintime" + string(rune('0'+limit)) + ".example", Interval: interval, Limit: limit}
		bg, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		first, err := f.Acquire(bg, r)
		if err != nil {
			t.Fatal(err)
		}
		taken := time.Now() // the place, if any, is held until released below
		short := r
		short.MinTimeLeft = time.Second
		for _, timeout := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond} {
			ctx, cancelShort := context.WithTimeout(bg, timeout)
			l, err := f.Acquire(ctx, short)
			late := ctx.Err() // the deadline passed while Acquire waited
			cancelShort()
			var pe *robotsguard.PacingError
			switch {
			case err == nil:
				l.Release()
				t.Fatalf("Limit %d, deadline %v: a request went %v after the slot before it, with MinTimeLeft %v", limit, timeout, time.Since(taken), short.MinTimeLeft)
			case !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded):
				t.Fatalf("Limit %d, deadline %v: %v, want a *PacingError matching context.DeadlineExceeded", limit, timeout, err)
			case late != nil:
				t.Errorf("Limit %d, deadline %v: Acquire failed after its deadline, want at once", limit, timeout)
			case pe.NotBefore.Before(taken.Add(interval/2)) || pe.Wait <= 0:
				t.Errorf("Limit %d, deadline %v: NotBefore %v after the first request, Wait %v; want the next slot, an interval after it", limit, timeout, pe.NotBefore.Sub(taken), pe.Wait)
			}
		}
		// Nothing was taken: no turn in the queue, and the next slot is
		// an interval after the first request's (or its end).
		if n, err := raw.ZCard(bg, robotsredis.QueueKey(r.Origin)).Result(); err != nil || n != 0 {
			t.Errorf("Limit %d: %d requests left waiting in Redis (%v), want none", limit, n, err)
		}
		first.Release()
		ended := time.Now()
		l, err := f.Acquire(bg, r)
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
		if gap := time.Since(ended); gap > interval+interval/2 {
			t.Errorf("Limit %d: the next request went %v after the first ended, want an interval: the requests that failed took slots", limit, gap)
		}
	}
}

// TestPaceMinTimeLeftAlone: while Redis is out of reach, a request paced
// alone that would have to wait goes only with MinTimeLeft left too.
func TestPaceMinTimeLeftAlone(t *testing.T) {
	const interval = 300 * time.Millisecond
	s := startRedis(t)
	f := &robotsredis.Fleet{Client: s.client(t), Size: 2, Rank: 1, CallTimeout: 50 * time.Millisecond}
	defer f.Close()
	r := robotsguard.PaceRequest{Origin: "https://mintime-alone.example", Interval: interval, Limit: 1}
	bg, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := f.Acquire(bg, r)
	if err != nil {
		t.Fatal(err)
	}
	ended := time.Now() // the request's end, at the earliest
	l.Release()
	s.kill()
	// Alone, the next request waits two intervals after that end at
	// least, and for its window, up to a cycle (two intervals) more: a
	// deadline five intervals away comes after its turn but leaves it
	// less than MinTimeLeft, four intervals.
	short := r
	short.MinTimeLeft = 4 * interval
	ctx, cancelShort := context.WithTimeout(bg, 5*interval)
	l, err = f.Acquire(ctx, short)
	late := ctx.Err()
	cancelShort()
	var pe *robotsguard.PacingError
	switch {
	case err == nil:
		l.Release()
		t.Fatalf("a request paced alone went %v after the last one ended, with %v of its deadline left, want MinTimeLeft %v",
			time.Since(ended), 5*interval-time.Since(ended), short.MinTimeLeft)
	case !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("Acquire alone: %v, want a *PacingError matching context.DeadlineExceeded", err)
	case late != nil:
		t.Errorf("Acquire alone failed after its deadline, want at once")
	case pe.NotBefore.Before(ended.Add(2 * interval)):
		t.Errorf("NotBefore %v after the last request ended, want two intervals at least", pe.NotBefore.Sub(ended))
	}
	// Without a deadline, it goes.
	l, err = f.Acquire(bg, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}
