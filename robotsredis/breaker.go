package robotsredis

import (
	"sync"
	"sync/atomic"
	"time"
)

// breaker is a circuit breaker: closed while calls succeed; open, failing
// calls at once, after failures in a row; half-open, letting one probe
// through, once the cooldown has passed (a call, or the probe the breaker
// runs itself then). Opening (from closed) and closing
// are reported to changed, once each, outside the lock, closing with how
// long the circuit was open; the probes between them are not.
type breaker struct {
	failures              int
	cooldown, maxCooldown time.Duration
	changed               func(s State, err error, down time.Duration)
	// probe, if not nil, is run when a cooldown ends, so that the
	// circuit closes when Redis is back whether calls come or not.
	probe   func()
	stopped atomic.Bool // no more probes

	mu      sync.Mutex // guards the fields below
	st      State
	fails   int           // failed calls in a row, while closed
	wait    time.Duration // the current cooldown
	retryAt time.Time     // when open: end of the cooldown
	opened  time.Time     // when it last opened from closed
	probing bool          // when half-open: the probe is under way
}

func (b *breaker) state() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.st
}

// allow reports whether a call may go to Redis at now, and whether it is
// the probe of a half-open circuit; it fails with ErrUnavailable when not.
func (b *breaker) allow(now time.Time) (probe bool, err error) {
	b.mu.Lock()
	switch b.st {
	case Closed:
		b.mu.Unlock()
		return false, nil
	case Open:
		if now.Before(b.retryAt) {
			b.mu.Unlock()
			return false, ErrUnavailable
		}
		b.st, b.probing = HalfOpen, true
		b.mu.Unlock()
		return true, nil
	}
	// Half-open: one probe at a time.
	if b.probing {
		b.mu.Unlock()
		return false, ErrUnavailable
	}
	b.probing = true
	b.mu.Unlock()
	return true, nil
}

// done records the end of a call allowed by allow, with its error.
func (b *breaker) done(probe bool, err error, now time.Time) {
	b.mu.Lock()
	var to State
	var down time.Duration
	switch {
	case err == nil && (probe || b.st == Closed):
		b.fails = 0
		if b.st == Closed {
			b.mu.Unlock()
			return
		}
		b.st, b.probing, b.wait = Closed, false, 0
		to = Closed
		down = now.Sub(b.opened)
	case err == nil:
		b.mu.Unlock()
		return // a call from before the circuit opened
	case probe:
		b.wait = min(2*b.wait, b.maxCooldown)
		b.st, b.probing, b.retryAt = Open, false, now.Add(b.wait)
		wait := b.wait
		b.mu.Unlock()
		b.schedule(wait)
		return // still down: reported when it opened
	case b.st == Closed:
		b.fails++
		if b.fails < b.failures {
			b.mu.Unlock()
			return
		}
		b.fails, b.wait = 0, b.cooldown
		b.st, b.retryAt, b.opened = Open, now.Add(b.wait), now
		to = Open
	default:
		b.mu.Unlock()
		return
	}
	wait := b.wait
	b.mu.Unlock()
	b.changed(to, err, down)
	if to == Open {
		b.schedule(wait)
	}
}

// schedule runs the probe when the cooldown of wait ends.
func (b *breaker) schedule(wait time.Duration) {
	if b.probe == nil || b.stopped.Load() {
		return
	}
	time.AfterFunc(wait, func() {
		if !b.stopped.Load() {
			b.probe()
		}
	})
}

// cancelled records the end of a call cut short by its caller: a probe
// leaves its place to the next call, or to the breaker's own probe, run
// when the cooldown ends again, so that the circuit closes when Redis is
// back whether calls come or not.
func (b *breaker) cancelled(probe bool) {
	if !probe {
		return
	}
	b.mu.Lock()
	b.probing = false
	wait := b.wait
	b.mu.Unlock()
	b.schedule(wait)
}
