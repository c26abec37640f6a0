package robotsguard

import (
	"context"
	"time"
)

// A Clock tells the time and waits. It drives everything the Transport
// times: the freshness of cached robots.txt files, the back-off of failed
// fetches, and the pauses that pace requests to an origin. Tests plug in a
// fake one through Transport.Clock.
//
// Two waits are not the Clock's: a request's context deadline is real
// time (the context package sets it so), and so are the retries within one
// robots.txt fetch, which FetchTimeout bounds.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done, and then returns ctx's
	// error.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock: time.Now and a timer. A nil
// Transport.Clock means SystemClock{}.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d on a timer, or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
