package robotsredis_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// leases returns the number of places held in Redis for origin.
func leases(t *testing.T, c *redis.Client, origin string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := c.ZCard(ctx, "robotsguard/p1/{"+origin+"}#leases").Result()
	if err != nil {
		t.Fatalf("ZCARD: %v", err)
	}
	return n
}

// held waits for the proxy to hold a reply: Redis has run the command.
func held(t *testing.T, p *proxy) {
	t.Helper()
	select {
	case <-p.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy held no reply")
	}
}

// slowFleet returns a Fleet that reaches Redis through p, with a short
// CallTimeout and cooldowns, and the channel its circuit's changes are
// sent on.
func slowFleet(t *testing.T, p *proxy) (*robotsredis.Fleet, chan robotsredis.State) {
	states := make(chan robotsredis.State, 100)
	f := &robotsredis.Fleet{Client: p.client(t), CallTimeout: 50 * time.Millisecond,
		Cooldown: 10 * time.Millisecond, MaxCooldown: 20 * time.Millisecond,
		OnState: func(s robotsredis.State, _ error) {
			select {
			case states <- s:
			default:
			}
		}}
	t.Cleanup(func() { f.Close() })
	return f, states
}

// awaitState waits for the circuit to change to want.
func awaitState(t *testing.T, states chan robotsredis.State, want robotsredis.State) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("the circuit did not become %v", want)
		}
	}
}

// warm has f load its scripts and subscribe, with a place of an origin of
// its own taken and released; it returns once the release is through
// (other, another process, has taken the place after it), so that f has
// nothing left to send.
func warm(t *testing.T, ctx context.Context, f, other *robotsredis.Fleet) {
	t.Helper()
	r := robotsguard.PaceRequest{Origin: "https://warm.example", Limit: 1}
	l, err := f.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if l, err = other.Acquire(ctx, r); err != nil {
		t.Fatal(err)
	}
	l.Release()
}

// TestPaceLostReservation (issue 27): a reservation whose answer is lost
// (it came after CallTimeout, or its connection broke) took its place in
// Redis all the same. The request goes on, paced alone; the place is
// given back, so that another process's request to the origin gets it as
// soon as Redis answers in time again, not a LeaseTTL (a minute) later,
// and no place is left that no request holds.
func TestPaceLostReservation(t *testing.T) {
	for _, tc := range []struct {
		name string
		// lose makes the reservation's answer go missing, and Redis
		// answer in time again afterwards.
		lose func(t *testing.T, p *proxy, f *robotsredis.Fleet, states chan robotsredis.State, acquire func())
	}{
		{"slow", func(t *testing.T, p *proxy, f *robotsredis.Fleet, states chan robotsredis.State, acquire func()) {
			// Every reply is held for a second, over CallTimeout.
			p.setDelay(time.Second)
			acquire()
			held(t, p)
			p.setDelay(0)
		}},
		{"unreachable", func(t *testing.T, p *proxy, f *robotsredis.Fleet, states chan robotsredis.State, acquire func()) {
			// The reply is held, then the connection cut: Redis
			// stays out of reach until the circuit has opened.
			p.setDelay(time.Second)
			go func() {
				select {
				case <-p.held:
				case <-time.After(10 * time.Second):
				}
				p.cut()
			}()
			acquire()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for f.State() != robotsredis.Open {
				if ctx.Err() != nil {
					t.Fatal("the circuit did not open while Redis was out of reach")
				}
				f.Get(ctx, "robotsguard/e2/https://other.example/robots.txt")
			}
			p.setDelay(0)
			p.restore()
			awaitState(t, states, robotsredis.Closed)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startRedis(t)
			p := newProxy(t, s.addr())
			f1, states := slowFleet(t, p)
			f2, _ := newFleet(t, s) // another process
			r := robotsguard.PaceRequest{Origin: "https://lost.example", Limit: 1}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			warm(t, ctx, f1, f2)
			var err error
			var lost robotsguard.Lease
			tc.lose(t, p, f1, states, func() {
				if lost, err = f1.Acquire(ctx, r); err != nil {
					t.Errorf("Acquire whose reservation's answer is lost: %v, want the request paced alone", err)
				}
			})

			// Another process's request gets the place promptly.
			ctx2, cancel2 := context.WithTimeout(ctx, 5*time.Second)
			defer cancel2()
			start := time.Now()
			l2, err := f2.Acquire(ctx2, r)
			if err != nil {
				t.Fatalf("another process's request, once Redis answers in time: %v after %v; the lost reservation's place was not given back (LeaseTTL %v); %d places held",
					err, time.Since(start).Round(time.Millisecond), robotsredis.DefaultLeaseTTL, leases(t, s.client(t), r.Origin))
			}
			t.Logf("another process's request went %v after Redis answered in time again", time.Since(start).Round(time.Millisecond))
			if n := leases(t, s.client(t), r.Origin); n != 1 {
				t.Errorf("%d places held in Redis with one request under way", n)
			}
			l2.Release()
			lost.Release()
			f2.Close() // sends the releases it has queued
			if n := leases(t, s.client(t), r.Origin); n != 0 {
				t.Errorf("%d places held in Redis with no request under way", n)
			}
		})
	}
}

// failAfter is a go-redis hook that, once armed, lets one script call
// through and fails every command after it, without sending it, until
// disarmed: Redis answers one call, then is out of reach.
type failAfter struct {
	armed, failing atomic.Bool
	refused        chan struct{} // if not nil, receives a value for each command failed (without blocking)
}

func (h *failAfter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *failAfter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.failing.Load() {
			err := errors.New("unreachable (test)")
			cmd.SetErr(err)
			select {
			case h.refused <- struct{}{}:
			default:
			}
			return err
		}
		err := next(ctx, cmd)
		if err == nil && strings.HasPrefix(cmd.Name(), "eval") && h.armed.Swap(false) {
			h.failing.Store(true)
		}
		return err
	}
}
func (h *failAfter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.failing.Load() {
			err := errors.New("unreachable (test)")
			for _, cmd := range cmds {
				cmd.SetErr(err)
			}
			select {
			case h.refused <- struct{}{}:
			default:
			}
			return err
		}
		return next(ctx, cmds)
	}
}

// TestPaceLostCancel: a request that gives up before its slot gives its
// place back; should Redis be out of reach then, the place is given back
// once it answers again, not a LeaseTTL later.
func TestPaceLostCancel(t *testing.T) {
	s := startRedis(t)
	c := s.client(t)
	h := &failAfter{}
	c.AddHook(h)
	f1 := &robotsredis.Fleet{Client: c, Cooldown: 10 * time.Millisecond, MaxCooldown: 20 * time.Millisecond}
	defer f1.Close()
	f2, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://cancel.example", Limit: 1, Interval: 200 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	warm(t, ctx, f1, f2)
	// The next slot is an interval away.
	if _, err := f1.Acquire(ctx, robotsguard.PaceRequest{Origin: r.Origin, Interval: r.Interval}); err != nil {
		t.Fatal(err)
	}

	h.armed.Store(true)
	short, cancelShort := context.WithTimeout(ctx, r.Interval/4)
	_, err := f1.Acquire(short, r)
	cancelShort()
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) {
		t.Fatalf("Acquire with a deadline before its slot: %v, want a *PacingError", err)
	}
	if !h.failing.Load() {
		t.Fatal("the reservation was not the last call Redis answered")
	}
	h.failing.Store(false)

	ctx2, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	start := time.Now()
	l2, err := f2.Acquire(ctx2, r)
	if err != nil {
		t.Fatalf("another process's request, once Redis answers again: %v after %v; the place of the request that gave up was not given back (LeaseTTL %v); %d places held",
			err, time.Since(start).Round(time.Millisecond), robotsredis.DefaultLeaseTTL, leases(t, c, r.Origin))
	}
	l2.Release()
	f2.Close() // sends the releases it has queued
	if n := leases(t, c, r.Origin); n != 0 {
		t.Errorf("%d places held in Redis with no request under way", n)
	}
}

// TestPaceLostRelease: a request's place whose release fails (Redis out of
// reach as its response ends) is given back once Redis answers again, not
// a LeaseTTL later.
func TestPaceLostRelease(t *testing.T) {
	s := startRedis(t)
	c := s.client(t)
	h := &failAfter{refused: make(chan struct{}, 1)}
	c.AddHook(h)
	f1 := &robotsredis.Fleet{Client: c, Cooldown: 10 * time.Millisecond, MaxCooldown: 20 * time.Millisecond}
	defer f1.Close()
	f2, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://release.example", Limit: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := f1.Acquire(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	h.failing.Store(true)
	l.Release()
	select { // the release was tried, and failed
	case <-h.refused:
	case <-ctx.Done():
		t.Fatal("the release was never sent")
	}
	h.failing.Store(false)

	ctx2, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	start := time.Now()
	l2, err := f2.Acquire(ctx2, r)
	if err != nil {
		t.Fatalf("another process's request, once Redis answers again: %v after %v; the place whose release failed was not given back (LeaseTTL %v)",
			err, time.Since(start).Round(time.Millisecond), robotsredis.DefaultLeaseTTL)
	}
	l2.Release()
	f2.Close() // sends the releases it has queued
	if n := leases(t, c, r.Origin); n != 0 {
		t.Errorf("%d places held in Redis with no request under way", n)
	}
}
