package robotstest

import (
	"context"
	"slices"
	"sync"
	"time"
)

// A Clock is a fake robotsguard.Clock: its time moves only when Advance
// moves it (or, with SetAutoAdvance, when something sleeps), and Sleep never
// waits for real time. Set it as Transport.Clock to test cache freshness,
// back-off and pacing without sleeping.
//
// By default Sleep blocks until Advance moves the clock to the end of the
// sleep, or the sleep's context is done; WaitForSleepers tells a test when a
// goroutine is blocked there, so that it can advance the clock without
// polling. With SetAutoAdvance(true), Sleep instead moves the clock to the
// end of the sleep itself and returns at once: pauses take no time, yet the
// time they would take shows in Now.
//
// Every call of Sleep is recorded: Sleeps returns the pauses the code
// under test took, or asked for.
//
// The zero Clock reads 2025-01-01 00:00:00 UTC, blocks in Sleep, and is
// ready to use. A Clock is safe for concurrent use.
type Clock struct {
	mu       sync.Mutex
	started  bool
	now      time.Time
	auto     bool
	sleepers map[*sleeper]struct{}
	changed  chan struct{} // closed, and replaced, when sleepers changes
	slept    []time.Duration
}

type sleeper struct {
	until time.Time
	wake  chan struct{} // closed when the clock reaches until
}

// defaultStart is the time of the zero Clock and of an Origin's clock.
var defaultStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// NewClock returns a Clock that reads start, and whose Sleep blocks until
// Advance moves it past the end of the sleep.
func NewClock(start time.Time) *Clock {
	return &Clock{started: true, now: start}
}

// init sets the zero Clock's time; c.mu is held.
func (c *Clock) init() {
	if !c.started {
		c.started, c.now = true, defaultStart
	}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	return c.now
}

// SetAutoAdvance sets whether Sleep moves the clock itself. When on, a
// Sleep(ctx, d) begun at time t moves the clock to t+d (unless it is
// already later) and returns at once, so two goroutines that sleep a second
// side by side move it by one second, not two. Goroutines blocked in Sleep
// when it is turned on stay blocked until Advance wakes them.
func (c *Clock) SetAutoAdvance(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auto = on
}

// Sleep waits until the clock has moved d past the time it was called, and
// returns nil; or until ctx is done, and returns ctx's error. It returns
// at once when d <= 0, and when auto-advance is on (see SetAutoAdvance).
// It never waits for real time to pass. Each call is recorded (see Sleeps).
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.slept = append(c.slept, d)
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	c.init()
	until := c.now.Add(d)
	if c.auto {
		if until.After(c.now) {
			c.now = until
			c.wakeLocked()
		}
		c.mu.Unlock()
		return nil
	}
	s := &sleeper{until: until, wake: make(chan struct{})}
	if c.sleepers == nil {
		c.sleepers = map[*sleeper]struct{}{}
	}
	c.sleepers[s] = struct{}{}
	c.notifyLocked()
	c.mu.Unlock()

	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, held := c.sleepers[s]; !held {
			return nil // woken as ctx ended: the sleep is over
		}
		delete(c.sleepers, s)
		c.notifyLocked()
		return ctx.Err()
	}
}

// Advance moves the clock forward by d and wakes the goroutines whose
// Sleep ends at the new time or before it. A negative d is ignored: the
// clock never goes back.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if d > 0 {
		c.now = c.now.Add(d)
	}
	c.wakeLocked()
}

// wakeLocked ends the sleeps due at c.now; c.mu is held.
func (c *Clock) wakeLocked() {
	woke := false
	for s := range c.sleepers {
		if !s.until.After(c.now) {
			close(s.wake)
			delete(c.sleepers, s)
			woke = true
		}
	}
	if woke {
		c.notifyLocked()
	}
}

// notifyLocked tells WaitForSleepers that the sleepers changed; c.mu is
// held.
func (c *Clock) notifyLocked() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// Sleeps returns the duration of every call of Sleep so far, in the order
// the calls were made: those that returned at once (with auto-advance on,
// for a d <= 0, or on a context already done) and those still blocked
// included. A test reads from it the pauses the code under test took, or
// asked for:
//
//	crawl(client, o.URL) // over a Transport on o.Clock
//	if got := o.Clock.Sleeps(); !slices.Equal(got, want) { … }
func (c *Clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}

// Sleepers returns the number of goroutines blocked in Sleep.
func (c *Clock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// WaitForSleepers blocks until at least n goroutines are blocked in Sleep,
// and returns nil; or until ctx is done, and returns ctx's error. A test
// calls it before Advance, to be sure that what it advances the clock for
// is waiting.
func (c *Clock) WaitForSleepers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		if len(c.sleepers) >= n {
			c.mu.Unlock()
			return nil
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
