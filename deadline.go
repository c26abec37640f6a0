package robotsguard

import (
	"context"
	"slices"
	"sync"
	"time"
)

// deadlineCtx is the context of a fetch: it has no parent and no values,
// and ends at its deadline (with context.DeadlineExceeded) or when
// cancelled (context.Canceled), as context.WithDeadline of
// context.Background would. It makes no timer and no channel until one is
// needed: Err compares the time with the deadline, and only Done and
// AfterFunc arm a timer. A fetch through a Base that never waits on its
// context then costs one allocation and no timer. Contexts derived from it
// find it through AfterFunc (see context.AfterFunc), and need no goroutine
// to follow it.
type deadlineCtx struct {
	deadline time.Time

	mu    sync.Mutex
	err   error         // why it ended; nil until it does
	done  chan struct{} // made once asked for; closed when it ends
	timer *time.Timer   // ends it at the deadline, once armed
	funcs []*func()     // AfterFunc's, to call when it ends
}

// newDeadlineCtx returns a context that ends at deadline; its cancel
// method ends it sooner.
func newDeadlineCtx(deadline time.Time) *deadlineCtx {
	return &deadlineCtx{deadline: deadline}
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *deadlineCtx) Value(any) any { return nil }

func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && !time.Now().Before(c.deadline) {
		c.endLocked(context.DeadlineExceeded)
	}
	return c.err
}

func (c *deadlineCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		} else {
			c.armLocked()
		}
	}
	return c.done
}

// AfterFunc arranges to call f in its own goroutine once c ends, as
// context.AfterFunc does; stop stops that, and reports whether it did.
func (c *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.armLocked()
	}
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	p := &f
	c.funcs = append(c.funcs, p)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.funcs, p)
		if i < 0 {
			return false
		}
		c.funcs = slices.Delete(c.funcs, i, i+1)
		return true
	}
}

// cancel ends c, unless it ended already, and releases its timer.
func (c *deadlineCtx) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.endLocked(context.Canceled)
	}
}

// armLocked starts the timer that ends c at its deadline, or ends c now
// when the deadline is past. c has not ended.
func (c *deadlineCtx) armLocked() {
	if c.timer != nil {
		return
	}
	d := time.Until(c.deadline)
	if d <= 0 {
		c.endLocked(context.DeadlineExceeded)
		return
	}
	c.timer = time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err == nil {
			c.endLocked(context.DeadlineExceeded)
		}
	})
}

// endLocked ends c with err: its channel is closed, its timer stopped and
// its AfterFunc's called.
func (c *deadlineCtx) endLocked(err error) {
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	for _, f := range c.funcs {
		go (*f)()
	}
	c.funcs = nil
}
