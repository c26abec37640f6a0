package robotsguard

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// waitDone fails t unless ctx ends within a minute.
func waitDone(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the context did not end")
	}
}

// TestDeadlineCtxPast: a context whose deadline is past has ended,
// whether Err or Done is asked first.
func TestDeadlineCtxPast(t *testing.T) {
	c := newDeadlineCtx(time.Now().Add(-time.Second))
	if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err = %v, want DeadlineExceeded", err)
	}
	waitDone(t, c)
	c = newDeadlineCtx(time.Now().Add(-time.Second))
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err = %v, want DeadlineExceeded", err)
	}
	if d, ok := c.Deadline(); !ok || d.IsZero() {
		t.Errorf("Deadline = %v, %v", d, ok)
	}
}

// TestDeadlineCtxExpires: Done is closed at the deadline, and Err says so.
func TestDeadlineCtxExpires(t *testing.T) {
	c := newDeadlineCtx(time.Now().Add(10 * time.Millisecond))
	defer c.cancel()
	if err := c.Err(); err != nil {
		t.Fatalf("Err = %v before the deadline", err)
	}
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err = %v, want DeadlineExceeded", err)
	}
}

// TestDeadlineCtxCancel: cancel ends the context, Done asked before or
// after it.
func TestDeadlineCtxCancel(t *testing.T) {
	c := newDeadlineCtx(time.Now().Add(time.Hour))
	done := c.Done()
	c.cancel()
	<-done
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err = %v, want Canceled", err)
	}
	c.cancel() // again: nothing changes
	c = newDeadlineCtx(time.Now().Add(time.Hour))
	c.cancel()
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err = %v, want Canceled", err)
	}
	if c.Value("key") != nil {
		t.Error("the context holds a value")
	}
}

// TestDeadlineCtxDerived: contexts derived from it end with it, without a
// goroutine each while they wait, and forget it when cancelled first.
func TestDeadlineCtxDerived(t *testing.T) {
	c := newDeadlineCtx(time.Now().Add(time.Hour))
	before := runtime.NumGoroutine()
	const n = 200
	var children []context.Context
	var cancels []context.CancelFunc
	for range n {
		child, cancel := context.WithCancel(c)
		children = append(children, child)
		cancels = append(cancels, cancel)
	}
	if g := runtime.NumGoroutine() - before; g >= n/2 {
		t.Errorf("%d goroutines for %d derived contexts", g, n)
	}
	for _, cancel := range cancels[n/2:] {
		cancel()
	}
	c.mu.Lock()
	left := len(c.funcs)
	c.mu.Unlock()
	if left != n/2 {
		t.Errorf("%d functions registered after %d of %d children were cancelled", left, n/2, n)
	}
	called := make(chan struct{})
	stop := context.AfterFunc(c, func() { close(called) })
	c.cancel()
	for _, child := range children {
		waitDone(t, child)
		if err := child.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("child's Err = %v, want Canceled", err)
		}
	}
	<-called
	if stop() {
		t.Error("stop stopped a function that ran")
	}
	for _, cancel := range cancels {
		cancel()
	}
	// Derived once it ended: ended at once.
	child, cancel := context.WithTimeout(c, time.Hour)
	defer cancel()
	waitDone(t, child)
}

// TestDeadlineCtxAfterFuncStop: a stopped AfterFunc is not called.
func TestDeadlineCtxAfterFuncStop(t *testing.T) {
	c := newDeadlineCtx(time.Now().Add(time.Hour))
	stop := c.AfterFunc(func() { t.Error("a stopped function ran") })
	if !stop() {
		t.Error("stop did not stop the function")
	}
	if stop() {
		t.Error("stop stopped the function twice")
	}
	c.cancel()
}
