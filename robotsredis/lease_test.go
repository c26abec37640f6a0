package robotsredis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// TestLeaseDeadProcess: a process that dies while its request holds an
// origin's only place (its Fleet closed, the place never released) holds
// the origin for the fleet for LeaseTTL at most, ten seconds by default.
func TestLeaseDeadProcess(t *testing.T) {
	if robotsredis.DefaultLeaseTTL > 10*time.Second {
		t.Errorf("DefaultLeaseTTL %v: a dead process holds its origins longer than 10s", robotsredis.DefaultLeaseTTL)
	}
	s := startRedis(t)
	const ttl = time.Second
	f1 := &robotsredis.Fleet{Client: s.client(t), LeaseTTL: ttl}
	f2, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://dead.example", Limit: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := f1.Acquire(ctx, r); err != nil {
		t.Fatal(err)
	}
	f1.Close() // the process dies: its place is neither released nor renewed
	died := time.Now()
	l, err := f2.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	stall := time.Since(died)
	t.Logf("the origin was held for %v after its process died (LeaseTTL %v)", stall.Round(time.Millisecond), ttl)
	if stall > ttl+500*time.Millisecond {
		t.Errorf("the origin was held for %v after its process died, want LeaseTTL (%v) at most", stall, ttl)
	}
}

// TestLeaseRenewed: a live response slower than LeaseTTL keeps its place:
// the Fleet renews its lease until it is released.
func TestLeaseRenewed(t *testing.T) {
	s := startRedis(t)
	const ttl = 600 * time.Millisecond
	f1 := &robotsredis.Fleet{Client: s.client(t), LeaseTTL: ttl}
	defer f1.Close()
	f2, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://slow.example", Limit: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l1, err := f1.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	// The response lasts 3 TTLs, during which another process waits.
	sent := time.Now()
	wait, cancelWait := context.WithTimeout(ctx, 3*ttl)
	l2, err := f2.Acquire(wait, r)
	cancelWait()
	if err == nil {
		l2.Release()
		t.Fatalf("another process took the place of a live response %v after it was sent (LeaseTTL %v)", time.Since(sent).Round(time.Millisecond), ttl)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while the place is held: %v, want context.DeadlineExceeded", err)
	}
	l1.Release()
	l2, err = f2.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l2.Release()
}

// TestReleaseAsync: releasing a place (closing a response body) does not
// wait for Redis: with every reply a second late, Release returns at once,
// and the place is released all the same.
func TestReleaseAsync(t *testing.T) {
	s := startRedis(t)
	p := newProxy(t, s.addr())
	f1 := &robotsredis.Fleet{Client: p.client(t), CallTimeout: 5 * time.Second}
	defer f1.Close()
	f2, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://async.example", Limit: 1, Interval: time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := f1.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	const delay = time.Second
	p.setDelay(delay)
	start := time.Now()
	l.Release()
	took := time.Since(start)
	t.Logf("Release took %v with every reply %v late", took, delay)
	if took >= delay/4 {
		t.Errorf("Release took %v with every reply %v late: it waited for Redis", took, delay)
	}
	l, err = f2.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	p.setDelay(0)
}

// TestLeaseMaxHold: a response body left open for good (neither read to
// its end nor closed, its context never ending) holds its origin's place
// for MaxHold and LeaseTTL at most, not for as long as its process lives.
func TestLeaseMaxHold(t *testing.T) {
	s := startRedis(t)
	const ttl, maxHold = 300 * time.Millisecond, 900 * time.Millisecond
	f1 := &robotsredis.Fleet{Client: s.client(t), LeaseTTL: ttl, MaxHold: maxHold}
	defer f1.Close()
	f2, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://open.example", Limit: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := time.Now()
	if _, err := f1.Acquire(ctx, r); err != nil { // never released
		t.Fatal(err)
	}
	l, err := f2.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	held := time.Since(sent)
	t.Logf("a place never released was held for %v (MaxHold %v, LeaseTTL %v)", held.Round(time.Millisecond), maxHold, ttl)
	if held > maxHold+ttl+500*time.Millisecond {
		t.Errorf("a place never released was held for %v, want MaxHold and LeaseTTL (%v) at most", held, maxHold+ttl)
	}
}
