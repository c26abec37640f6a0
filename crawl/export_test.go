package crawl

import (
	"context"
	"time"
)

// SleepTill sets how the Frontier's timer waits for a time: a test's
// fake timers, woken by the test. Call it before the first use.
func (f *Frontier) SleepTill(fn func(ctx context.Context, at time.Time) error) { f.sleepTill = fn }

// OnWait sets a hook called, under the Frontier's lock, each time a worker
// waits in Next, with the number waiting.
func (f *Frontier) OnWait(fn func(waiting int)) {
	f.init()
	f.mu.Lock()
	f.onWait = fn
	f.mu.Unlock()
}

// TimerAt returns when the timer that wakes the waiting workers rings, or
// the zero time when none is set.
func (f *Frontier) TimerAt() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.timer == 0 {
		return time.Time{}
	}
	return f.timerAt
}
