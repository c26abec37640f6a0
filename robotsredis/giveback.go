package robotsredis

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Places given back in the background. A reservation whose answer is lost
// (it came after CallTimeout, or its connection failed) may have taken a
// place in Redis all the same: Redis ran the script, and only its answer
// went missing. No request holds that place, yet it keeps the fleet's
// requests to the origin waiting until its lease expires (LeaseTTL). So
// does a place whose cancel or release failed. Each is given back by its
// token, on a goroutine of the Fleet's rather than on a request's path;
// while Redis cannot be reached, the tokens are kept, and given back as
// soon as it answers again.
//
// A give-back removes the lease alone, never the slot: the "next" the lost
// reservation set is not known (its answer carried it), and a cancel that
// compared it could not be run twice safely (another request may have
// taken the slot given back by the first run, and set the same "next"
// again). The origin's next slot stays an interval later than it need be:
// a gap, never two requests closer than the interval.

// A giveBack is a place to give back.
type giveBack struct {
	origin, token string
	// interval, when not zero, moves the origin's next slot to an interval
	// after the give-back at the earliest, as a release does: the place
	// was that of a request that was sent. Zero gives back the place
	// alone.
	interval time.Duration
	// until is when the lease expires in Redis at the latest, without
	// the give-back: the give-back is dropped then.
	until time.Time
}

// maxGiveBacks bounds the places a Fleet keeps to give back while Redis is
// out of reach. Past it, the oldest is dropped: its lease expires in Redis
// on its own.
const maxGiveBacks = 1024

// giver holds a Fleet's places to give back, and runs the goroutine that
// gives them back: started when there is one, ended when there is none
// left (or Close was called).
type giver struct {
	kick chan struct{} // buffered: a place was queued, the circuit closed, or Close was called

	mu      sync.Mutex    // guards the fields below
	queue   []giveBack    // oldest first
	running bool          // the goroutine is under way
	done    chan struct{} // closed when the goroutine ends
	closed  bool          // Close was called: no more give-backs are queued
}

// poke wakes the goroutine, if it waits.
func (g *giver) poke() {
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// giveBack queues b to be given back, and returns at once.
func (f *Fleet) giveBack(b giveBack) {
	g := &f.giver
	b.origin = strings.Clone(b.origin)
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.queue = expire(g.queue, time.Now())
	if len(g.queue) >= maxGiveBacks {
		g.queue = slices.Delete(g.queue, 0, 1)
	}
	g.queue = append(g.queue, b)
	start := !g.running
	if start {
		g.running, g.done = true, make(chan struct{})
	}
	done := g.done
	g.mu.Unlock()
	if start {
		go f.giveBacks(done)
	} else {
		g.poke()
	}
}

// expire returns q without the give-backs whose leases have expired by now.
func expire(q []giveBack, now time.Time) []giveBack {
	return slices.DeleteFunc(q, func(b giveBack) bool { return !now.Before(b.until) })
}

// pop takes the oldest give-back whose lease has not expired by now; when
// there is none, it records that the goroutine ends. closed tells whether
// Close was called.
func (g *giver) pop(now time.Time) (b giveBack, ok, closed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queue = expire(g.queue, now)
	if len(g.queue) == 0 {
		g.running = false
		return giveBack{}, false, g.closed
	}
	b = g.queue[0]
	g.queue = slices.Delete(g.queue, 0, 1)
	return b, true, g.closed
}

// putBack returns b, which could not be given back, to the front of the
// queue, unless Close was called (the goroutine then ends) or the queue
// filled up meanwhile.
func (g *giver) putBack(b giveBack) (closed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		g.queue, g.running = nil, false
		return true
	}
	if len(g.queue) < maxGiveBacks {
		g.queue = slices.Insert(g.queue, 0, b)
	}
	return false
}

// giveBacks gives back the queued places, oldest first, until none is
// left. After a failed call it waits for the circuit to close, or
// Cooldown, and tries again. Once Close is called, it tries what is left
// within one CallTimeout, and ends.
func (f *Fleet) giveBacks(done chan struct{}) {
	defer close(done)
	retry := orDefault(f.Cooldown, DefaultCooldown)
	var last context.Context // the last pass's, after Close
	for {
		b, ok, closed := f.giver.pop(time.Now())
		if !ok {
			return
		}
		ctx := context.Background()
		if closed {
			if last == nil {
				var cancel context.CancelFunc
				last, cancel = context.WithTimeout(ctx, orDefault(f.CallTimeout, DefaultCallTimeout))
				defer cancel()
			}
			ctx = last
		}
		err := f.call(ctx, "give back", func(ctx context.Context) error {
			return releaseScript.Run(ctx, f.Client, []string{leaseKey(b.origin), paceKey(b.origin)}, b.token, releasedChannel, b.interval.Microseconds()).Err()
		})
		if err == nil {
			continue
		}
		if f.giver.putBack(b) {
			return
		}
		tm := time.NewTimer(retry)
		select {
		case <-f.giver.kick:
		case <-tm.C:
		}
		tm.Stop()
	}
}

// closeGiver stops queueing give-backs, and waits for the goroutine to try
// those left (within one CallTimeout) and end.
func (f *Fleet) closeGiver() {
	g := &f.giver
	g.mu.Lock()
	g.closed = true
	running, done := g.running, g.done
	g.mu.Unlock()
	if running {
		g.poke()
		<-done
	}
}
