package robotsguard

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// pacers space the requests to each origin: a golang.org/x/time/rate
// limiter per origin (one request per interval, no bursts), and a back-off
// after 429 and 503 responses.
//
// A limiter that has been idle for its interval is in the same state as a
// new one, so idle pacers are dropped (every sweepEvery uses) without
// changing any delay: memory stays bounded by the origins in use.
type pacers struct {
	mu   sync.Mutex // guards m and ops, and the fields of every pacer
	m    map[origin]*pacer
	ops  int
	idle time.Duration // a pacer idle this long (and past its interval and back-off) is dropped
}

type pacer struct {
	lim       *rate.Limiter
	every     time.Duration
	notBefore time.Time // end of the back-off
	strikes   int       // 429 and 503 responses in a row
	last      time.Time // latest time a request was scheduled for
}

const sweepEvery = 1024

// reserve schedules a request to o at now, with requests spaced by every
// (none when every <= 0). It returns the delay before the request may be
// sent, when there is one the reservation to cancel if the request is not
// sent, and whether a back-off holds it.
func (ps *pacers) reserve(o origin, every time.Duration, now time.Time) (time.Duration, *rate.Reservation, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.m == nil {
		ps.m = map[origin]*pacer{}
	}
	if ps.ops++; ps.ops%sweepEvery == 0 {
		ps.sweep(now)
	}
	p := ps.m[o]
	if p == nil {
		if every <= 0 {
			return 0, nil, false // no pacing and no back-off: nothing to keep
		}
		p = &pacer{lim: rate.NewLimiter(rate.Every(every), 1), every: every}
		ps.m[o] = p
	}
	// Reservations are made at the end of any back-off, so that requests
	// queued during it leave one interval apart after it.
	at := now
	backoff := p.notBefore.After(at)
	if backoff {
		at = p.notBefore
	}
	p.last = at
	if every <= 0 && !backoff {
		return 0, nil, false
	}
	if every != p.every {
		limit := rate.Inf
		if every > 0 {
			limit = rate.Every(every)
		}
		p.lim.SetLimitAt(at, limit)
		p.every = every
	}
	r := p.lim.ReserveN(at, 1)
	delay := r.DelayFrom(now)
	if t := now.Add(delay); t.After(p.last) {
		p.last = t
	}
	return delay, r, backoff
}

// backoff records a 429 or 503 response from o: the next request waits for
// the Retry-After the response gives, or else for twice as long as after
// the previous one in a row (starting from the interval, at least a
// second), never more than max.
func (ps *pacers) backoff(o origin, retryAfter string, now time.Time, max time.Duration) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ps.m[o]
	if p == nil {
		p = &pacer{lim: rate.NewLimiter(rate.Inf, 1), last: now}
		ps.m[o] = p
	}
	p.strikes++
	wait, ok := parseRetryAfter(retryAfter, now)
	if !ok {
		base := p.every
		if base < time.Second {
			base = time.Second
		}
		wait = base << min(p.strikes-1, 20)
	}
	if wait > max || wait < 0 {
		wait = max
	}
	if t := now.Add(wait); t.After(p.notBefore) {
		p.notBefore = t
	}
}

// backedOffPast reports whether o is backing off beyond slot.
func (ps *pacers) backedOffPast(o origin, slot time.Time) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ps.m[o]
	return p != nil && p.notBefore.After(slot)
}

// succeeded records a response from o that asked for no back-off.
func (ps *pacers) succeeded(o origin) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if p := ps.m[o]; p != nil {
		p.strikes = 0
	}
}

// sweep drops the pacers that have been idle past their interval, their
// back-off and ps.idle.
func (ps *pacers) sweep(now time.Time) {
	for o, p := range ps.m {
		if now.Sub(p.last) > max(p.every, ps.idle) && now.After(p.notBefore) {
			delete(ps.m, o)
		}
	}
}

// len returns the number of pacers held.
func (ps *pacers) len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.m)
}

// pace waits until a request to o may be sent. It fails at once, giving the
// slot back, when ctx's deadline comes before that time, and stops waiting
// when ctx is done. A back-off recorded while it waits (a 429 or 503 to
// another request) pushes it back too.
func (t *Transport) pace(ctx context.Context, o origin, every time.Duration, now time.Time) error {
	for ; ; now = t.now() {
		delay, r, backoff := t.pacers.reserve(o, every, now)
		if delay <= 0 {
			return nil
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay { // deadlines are real time, whatever the Clock
			r.CancelAt(now)
			err := fmt.Errorf("robotsguard: next request to %s allowed in %v, after the request's deadline: %w", o, delay, context.DeadlineExceeded)
			t.waited(WaitEvent{Origin: o.String(), Wait: delay, Backoff: backoff, Err: err})
			return err
		}
		if err := t.clock().Sleep(ctx, delay); err != nil {
			r.CancelAt(t.now())
			err = fmt.Errorf("robotsguard: waiting %v to pace requests to %s: %w", delay, o, err)
			t.waited(WaitEvent{Origin: o.String(), Wait: delay, Backoff: backoff, Err: err})
			return err
		}
		t.waited(WaitEvent{Origin: o.String(), Wait: delay, Backoff: backoff})
		if !t.pacers.backedOffPast(o, now.Add(delay)) {
			return nil
		}
		// The slot fell inside a back-off: take a new one after it.
	}
}
