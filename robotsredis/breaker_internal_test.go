package robotsredis

import (
	"errors"
	"testing"
	"time"
)

// TestBreakerProbeCancelled: a probe cut short by its caller (a request
// whose context ended) leaves the circuit half-open; the breaker probes
// again itself after the cooldown, so that the circuit closes once Redis
// answers even when no call comes. Before, it stayed half-open until the
// next call.
func TestBreakerProbeCancelled(t *testing.T) {
	probes := make(chan struct{}, 4)
	b := &breaker{
		failures: 1, cooldown: time.Millisecond, maxCooldown: time.Millisecond,
		changed: func(State, error, time.Duration) {},
		probe:   func() { probes <- struct{}{} },
	}
	defer b.stopped.Store(true)
	wait := func(what string) {
		t.Helper()
		select {
		case <-probes:
		case <-time.After(10 * time.Second):
			t.Fatalf("no probe %s", what)
		}
	}
	b.done(false, errors.New("redis down"), time.Now()) // opens; a probe is due after the cooldown
	wait("after the circuit opened")
	probe, err := b.allow(time.Now().Add(time.Hour)) // a call after the cooldown: the probe
	if !probe || err != nil {
		t.Fatalf("allow after the cooldown: probe %v, %v; want the probe", probe, err)
	}
	b.cancelled(probe)
	if s := b.state(); s != HalfOpen {
		t.Fatalf("state %s after a cancelled probe, want half-open", s)
	}
	wait("after the probe was cancelled")
}
