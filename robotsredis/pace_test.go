package robotsredis_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// counter is a go-redis hook that counts the commands sent to Redis.
type counter struct{ n atomic.Int64 }

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

func newFleet(t testing.TB, s *redisServer) (*robotsredis.Fleet, *counter) {
	c := s.client(t)
	n := &counter{}
	c.AddHook(n)
	f := &robotsredis.Fleet{Client: c}
	t.Cleanup(func() { f.Close() })
	return f, n
}

// TestPaceSpacing: requests from two Fleets (two processes) to one origin
// get slots an interval apart, in one round trip each. The time is taken
// before the first request, whose slot is the first: the last of eight
// ends seven intervals after it at the earliest, however late any of them
// returns on a loaded machine.
func TestPaceSpacing(t *testing.T) {
	s := startRedis(t)
	f1, n1 := newFleet(t, s)
	f2, _ := newFleet(t, s)
	ctx := context.Background()
	r := robotsguard.PaceRequest{Origin: "https://a.example", Interval: 30 * time.Millisecond}
	start := time.Now()
	f1.Acquire(ctx, r) // loads the script
	f1.Acquire(ctx, r) // waits, and subscribes to back-off notices
	n1.n.Store(0)
	for i := range 6 {
		f := f1
		if i%2 == 1 {
			f = f2
		}
		turn, err := f.Acquire(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if turn.OnRelease != nil {
			turn.Release()
		}
	}
	if got, want := time.Since(start), 7*r.Interval; got < want-5*time.Millisecond {
		t.Errorf("8 requests in %v, want at least %v", got, want)
	}
	if got := n1.n.Load(); got != 3 {
		t.Errorf("%d round trips for 3 requests, want 3", got)
	}
}

// TestPaceDeadline: a request whose deadline comes before its slot fails
// at once with a *PacingError that matches context.DeadlineExceeded, and
// gives its slot back.
func TestPaceDeadline(t *testing.T) {
	s := startRedis(t)
	f, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://b.example", Interval: time.Hour}
	if _, err := f.Acquire(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	var first time.Time
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		start := time.Now()
		_, err := f.Acquire(ctx, r)
		cancel()
		var pe *robotsguard.PacingError
		if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire: %v, want a *PacingError matching context.DeadlineExceeded", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("Acquire waited %v before failing", time.Since(start))
		}
		if d := time.Until(pe.NotBefore); d < 59*time.Minute || d > time.Hour {
			t.Errorf("NotBefore in %v, want about an hour", d)
		}
		if i == 0 {
			first = pe.NotBefore
		} else if pe.NotBefore.Sub(first) > time.Minute {
			t.Errorf("the slot was not given back: NotBefore %v after %v", pe.NotBefore, first)
		}
	}
}

// TestPaceLimit: an origin's places are shared by the fleet: a request
// waits while another process holds the only one, and goes when it is
// released.
func TestPaceLimit(t *testing.T) {
	s := startRedis(t)
	f1, _ := newFleet(t, s)
	f2, _ := newFleet(t, s)
	r := robotsguard.PaceRequest{Origin: "https://c.example", Limit: 1}
	turn, err := f1.Acquire(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = f2.Acquire(ctx, r)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while the place is held: %v, want context.DeadlineExceeded", err)
	}
	got := make(chan error)
	go func() {
		turn, err := f2.Acquire(context.Background(), r)
		if err == nil {
			turn.Release()
		}
		got <- err
	}()
	turn.Release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

// TestPaceBackoff: a back-off set by one process holds the requests of
// another.
func TestPaceBackoff(t *testing.T) {
	s := startRedis(t)
	f1, _ := newFleet(t, s)
	f2, _ := newFleet(t, s)
	o := "https://d.example"
	f1.Throttle(context.Background(), o, 200*time.Millisecond)
	turn, err := f2.Acquire(context.Background(), robotsguard.PaceRequest{Origin: o})
	if err != nil {
		t.Fatal(err)
	}
	if !turn.Throttled || turn.Waited < 150*time.Millisecond {
		t.Errorf("Turn %+v, want a back-off of about 200ms", turn)
	}
}

// TestPaceCorruptState: pace state that makes no sense is not obeyed as a
// delay of days, nor does it panic: the process paces alone.
func TestPaceCorruptState(t *testing.T) {
	s := startRedis(t)
	f, _ := newFleet(t, s)
	c := s.client(t)
	o := "https://e.example"
	c.HSet(context.Background(), "robotsguard/p1/{"+o+"}", "next", "99999999999999999999", "nb", "junk")
	turn, err := f.Acquire(context.Background(), robotsguard.PaceRequest{Origin: o, Interval: time.Millisecond})
	if err != nil || turn.Waited > time.Second {
		t.Fatalf("Acquire: %+v, %v", turn, err)
	}
	// The corrupt state is gone: the fleet shares the pace again.
	if n, _ := c.Exists(context.Background(), "robotsguard/p1/{"+o+"}").Result(); n != 0 {
		if next, _ := c.HGet(context.Background(), "robotsguard/p1/{"+o+"}", "next").Int64(); next > time.Now().Add(time.Hour).UnixMicro() {
			t.Errorf("corrupt pace state left in place: next=%d", next)
		}
	}
}

// TestPaceRedisDown: with Redis gone, requests are paced locally with the
// interval multiplied by the fleet's size; the circuit opens once, and
// closes once Redis is back. The Logger hears what happened and what the
// process does now, each time.
func TestPaceRedisDown(t *testing.T) {
	s := startRedis(t)
	states := make(chan robotsredis.State, 10)
	var logged bytes.Buffer // written before each state is sent on states
	f := &robotsredis.Fleet{Client: s.client(t), Size: 5, Cooldown: 10 * time.Millisecond,
		Logger:  slog.New(slog.NewTextHandler(&logged, nil)),
		OnState: func(st robotsredis.State, err error) { states <- st }}
	defer f.Close()
	r := robotsguard.PaceRequest{Origin: "https://f.example", Interval: 20 * time.Millisecond}
	if _, err := f.Acquire(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	s.kill()
	start := time.Now()
	for range 3 {
		if _, err := f.Acquire(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	if got := time.Since(start); got < 2*5*r.Interval {
		t.Errorf("3 requests in %v alone, want at least %v", got, 2*5*r.Interval)
	}
	if st := <-states; st != robotsredis.Open {
		t.Fatalf("state %v, want open", st)
	}
	s.start()
	// The breaker probes Redis itself when each cooldown ends: no call
	// is needed for the circuit to close.
	select {
	case st := <-states:
		if st != robotsredis.Closed {
			t.Fatalf("state %v, want closed", st)
		}
	case <-time.After(time.Minute):
		t.Fatal("the circuit did not close within a minute of Redis coming back")
	}
	if len(states) != 0 {
		t.Errorf("%d more state changes reported", len(states))
	}
	for _, want := range []string{
		"level=WARN msg=\"robotsredis: Redis out of reach; working alone until it answers: robots.txt cache in memory, one fetch per origin in this process, each origin paced 5 times slower\"",
		"level=INFO msg=\"robotsredis: Redis answers again after ",
		"; sharing the fleet's robots.txt cache, fetch lock and pacing\" down=",
	} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("logged:\n%s\nwant %s", logged.String(), want)
		}
	}
}

var _ = fmt.Sprint
var _ = net.Dial
