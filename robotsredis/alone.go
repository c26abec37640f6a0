package robotsredis

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/robotsguard/robotsguard"
)

// The switch from the fleet's pace to the process's own. When Redis cannot
// be reached, each process paces an origin through Fallback with the
// interval multiplied by Size. Fallback knows nothing of the requests the
// fleet paced: left to itself, it would send the first local request at
// once, however recently this process sent one paced by the fleet, and
// while one is still under way. So the Fleet remembers, per origin, when
// it last sent a fleet-paced request or ended one, and how many are under
// way; the first local request waits for those under way to end, then
// Size intervals; Fallback paces the ones after it.

// maxSent bounds the origins whose last fleet-paced request a Fleet
// remembers. An origin is forgotten once its hold has ended, with no
// request under way; past the bound, the origin whose hold ends first is
// forgotten before its end, and every origin the Fleet does not remember
// is held until then (see lastSent.alone): forgetting never lets a request
// go sooner. Full, it takes 2.8 MB with origins of 36 bytes (171 bytes an
// origin).
const maxSent = 1 << 14

// lastSent remembers when this process last sent or ended a fleet-paced
// request to each origin, until the hold that puts on a request paced
// alone has ended.
type lastSent struct {
	mu sync.Mutex       // guards the fields below, and those of every sent in m
	m  map[string]*sent // by origin
	h  sentHeap         // the same, the earliest end first, those with requests under way last
	// forgot is the latest end of a hold forgotten before its end:
	// origins not in m are held until then.
	forgot time.Time
}

// sent is what a process remembers of its fleet-paced requests to an
// origin.
type sent struct {
	origin string
	at     time.Time     // the last send, or end, whichever came later
	hold   time.Duration // how long it holds a request paced alone: the interval times Size
	busy   int           // the requests under way that hold a place (PaceRequest.Limit)
	freed  chan struct{} // closed as one of those ends, when a request paced alone waits for it
	i      int           // its index in the heap
}

func (s *sent) end() time.Time { return s.at.Add(s.hold) }

// mark records that a fleet-paced request to origin was sent (busy is 1
// when it holds a place, else 0), or ended (busy is -1), at now; it holds
// the next request paced alone for hold.
func (l *lastSent) mark(origin string, now time.Time, hold time.Duration, busy int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.markLocked(origin, now, hold, busy)
}

// claim marks a request to origin sent at now, as mark does, unless the
// process's last request to it was sent or ended less than interval ago:
// it returns how long to wait then, and marks nothing.
func (l *lastSent) claim(origin string, interval time.Duration, now time.Time, hold time.Duration, busy int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.m[origin]; s != nil && now.Before(s.at.Add(interval)) {
		return s.at.Add(interval).Sub(now)
	}
	l.markLocked(origin, now, hold, busy)
	return 0
}

// claim waits until a request to origin may go, an interval after the
// process's last one was sent or ended, and marks it sent (see
// lastSent.claim), or fails with a *robotsguard.PacingError: ctx ended,
// or its deadline comes less than left after the request could go.
func (f *Fleet) claim(ctx context.Context, origin string, interval, hold time.Duration, busy int, left time.Duration) error {
	for {
		now := time.Now()
		d := f.sent.claim(origin, interval, now, hold, busy)
		if d <= 0 {
			return nil
		}
		if err := waitUntil(ctx, origin, now.Add(d), left); err != nil {
			return err
		}
	}
}

// markLocked is mark, with l.mu held.
func (l *lastSent) markLocked(origin string, now time.Time, hold time.Duration, busy int) {
	if s := l.m[origin]; s != nil {
		if now.After(s.at) {
			s.at = now
		}
		s.hold = hold
		s.busy = max(s.busy+busy, 0)
		if busy < 0 && s.freed != nil {
			close(s.freed)
			s.freed = nil
		}
		heap.Fix(&l.h, s.i)
		return
	}
	if hold <= 0 && busy <= 0 {
		return // nothing to remember
	}
	if l.m == nil {
		l.m = map[string]*sent{}
	}
	// Forget those whose holds have ended, and, past the bound, the
	// one whose hold ends first.
	for len(l.h) > 0 && (l.h[0].busy == 0 && !l.h[0].end().After(now) || len(l.h) >= maxSent) {
		s := heap.Pop(&l.h).(*sent)
		delete(l.m, s.origin)
		if e := s.end(); e.After(now) && e.After(l.forgot) {
			l.forgot = e
		}
		if s.freed != nil {
			close(s.freed)
		}
	}
	s := &sent{origin: strings.Clone(origin), at: now, hold: hold, busy: max(busy, 0)}
	l.m[s.origin] = s
	heap.Push(&l.h, s)
}

// since returns how long a request to origin must wait for an interval
// to pass since the process's last request to it was sent or ended, at
// now: negative when it has. For an origin it does not remember, it
// assumes the worst of those forgotten before their holds ended (see
// forgot), up to an interval.
func (l *lastSent) since(origin string, interval time.Duration, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.m[origin]; s != nil {
		return s.at.Add(interval).Sub(now)
	}
	return min(l.forgot.Sub(now), interval)
}

// sinceOwn returns, for Peek, how long a request to origin must wait for
// an interval to pass since the process's last request to it was sent or
// ended (the interval being the hold over size), at now: zero when it has,
// or when the origin is not remembered (its interval is not known).
func (l *lastSent) sinceOwn(origin string, size int, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.m[origin]; s != nil {
		return max(s.at.Add(s.hold/time.Duration(size)).Sub(now), 0)
	}
	return 0
}

// next returns, for Peek, when the next request to origin paced alone
// could go by the process's record, and the hold it was given: the hold
// after the last request was sent or ended; for an origin not remembered,
// the end of the holds forgotten (see forgot), and no hold. Requests under
// way are not waited for (see alone): the caller knows its own.
func (l *lastSent) next(origin string) (at time.Time, hold time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.m[origin]; s != nil {
		return s.end(), s.hold
	}
	return l.forgot, 0
}

// alone returns when the first request to origin paced alone may go, with
// hold the interval times Size and ttl the leases' time to live: once the
// process's fleet-paced requests to origin under way have ended (freed is
// closed as one ends; they are waited for until at, when their leases have
// expired in Redis too), and hold after the last one was sent or ended.
func (l *lastSent) alone(origin string, hold, ttl time.Duration, now time.Time) (at time.Time, freed <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.m[origin]
	if s == nil {
		return l.forgot, nil
	}
	if s.busy > 0 && now.Before(s.at.Add(ttl)) {
		if s.freed == nil {
			s.freed = make(chan struct{})
		}
		return s.at.Add(ttl), s.freed
	}
	return s.at.Add(max(s.hold, hold)), nil
}

// sentHeap is a container/heap of the origins remembered: those with no
// request under way first, by the end of their holds.
type sentHeap []*sent

func (h sentHeap) Len() int { return len(h) }
func (h sentHeap) Less(i, j int) bool {
	if (h[i].busy == 0) != (h[j].busy == 0) {
		return h[i].busy == 0
	}
	return h[i].end().Before(h[j].end())
}
func (h sentHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *sentHeap) Push(x any) {
	s := x.(*sent)
	s.i = len(*h)
	*h = append(*h, s)
}
func (h *sentHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return s
}

// holdAlone returns the hold of a request paced alone: interval times Size,
// saturated.
func (f *Fleet) holdAlone(interval time.Duration) time.Duration {
	n := time.Duration(f.size())
	if interval > math.MaxInt64/n {
		return math.MaxInt64
	}
	return interval * n
}

// phase returns when a request paced alone that may go at e goes: in the
// process's window of each cycle of Size intervals, the first quarter of
// the interval of its rank (see Fleet.Rank), cycles counted on the wall
// clock from the Unix epoch, which the fleet's processes share. So
// processes of distinct ranks send their requests to an origin three
// quarters of an interval apart (half of one at least, when a timer fires
// late: see acquireAlone; clocks apart), however they came to pace it
// alone (at the same moment, or after fleet-paced requests Size intervals
// apart). A request that misses its window (a late timer, or a
// response that ended late in the cycle before: Fallback counts Size
// intervals from its end) waits for the next cycle's.
func (f *Fleet) phase(e time.Time, interval time.Duration) time.Time {
	cycle := f.holdAlone(interval)
	if f.size() == 1 || interval <= 0 || cycle == math.MaxInt64 {
		return e
	}
	off := (e.UnixNano() - int64(f.rank-1)*int64(interval)) % int64(cycle)
	if off < 0 {
		off += int64(cycle)
	}
	if off < int64(interval/4) {
		return e // in the window
	}
	return e.Add(cycle - time.Duration(off))
}

// acquireAlone paces a request through Fallback, with its interval
// multiplied by Size: Redis
// is out of reach. The first such request to an origin waits for the
// process's fleet-paced requests to it under way to end, then until Size
// intervals after the last one was sent or ended. Every request paced
// alone goes Size intervals after the process's last request to the
// origin was sent, fleet-paced ones included (one whose slot was reserved
// before Redis failed may have gone meanwhile), in the process's window of
// the cycle (see phase), and is remembered for the fleet's next
// reservation (see Fleet.turn). A request that has to wait goes only with
// minLeft(r) left before its deadline. waited is the time already spent.
//
// With rejoin set, a request whose turn comes while the circuit is closed
// does not go alone: it fails with errRejoin, and takes a slot of the
// fleet's. Going alone, it would go between the slots the fleet's other
// processes take meanwhile, closer than an interval to them: a process's
// queue of requests paced alone takes Size intervals each to drain after
// the circuit closes, and a call that fails (slower than CallTimeout)
// sends its request here whether the circuit opens or not.
func (f *Fleet) acquireAlone(ctx context.Context, r robotsguard.PaceRequest, waited time.Duration, rejoin bool) (robotsguard.Lease, error) {
	interval := r.Interval
	hold := f.holdAlone(interval)
	left := minLeft(r)
	ttl := orDefault(f.LeaseTTL, DefaultLeaseTTL)
	start := time.Now()
	for now := start; ; now = time.Now() {
		at, freed := f.sent.alone(r.Origin, hold, ttl, now)
		d := at.Sub(now)
		if d <= 0 {
			break
		}
		soonest := at // the earliest the request could go
		if freed != nil {
			soonest = now.Add(hold) // an end, then the hold
		}
		soonest = f.phase(soonest, interval)
		if dl, ok := ctx.Deadline(); ok && dl.Sub(soonest) < left {
			return robotsguard.Lease{}, &robotsguard.PacingError{Origin: strings.Clone(r.Origin), NotBefore: soonest, Wait: soonest.Sub(now), Err: context.DeadlineExceeded}
		}
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
		case <-freed:
			tm.Stop()
		case <-ctx.Done():
			tm.Stop()
			pe := &robotsguard.PacingError{Origin: strings.Clone(r.Origin), Err: ctx.Err()}
			if freed == nil {
				pe.NotBefore, pe.Wait = soonest, max(time.Until(soonest), 0)
			}
			return robotsguard.Lease{}, pe
		}
	}
	fr := r
	fr.Interval = hold
	t, err := f.fallback.Acquire(ctx, fr)
	if err != nil {
		return t, err
	}
	// Size intervals after the process's last request, fleet-paced
	// ones included (one whose slot came before Redis failed may have
	// gone since), in the process's window; remembered, so that the
	// first request the fleet paces again, once Redis answers, goes an
	// interval after it too.
	// A time found in the window is kept when the timer that waits for
	// it fires late by less than a window (a quarter interval): the
	// request goes in the first half of its interval of the cycle.
	for next := time.Now(); ; {
		at := f.phase(next, interval)
		if err := waitUntil(ctx, r.Origin, at, left); err != nil {
			t.Release()
			return robotsguard.Lease{}, err
		}
		now := time.Now()
		if now.Sub(at) >= interval/4 && !f.phase(now, interval).Equal(now) {
			next = now // far too late: the next cycle's window
			continue
		}
		if rejoin && f.breaker.state() == Closed {
			t.Release()
			return robotsguard.Lease{}, errRejoin
		}
		d := f.sent.claim(r.Origin, hold, now, hold, 0)
		if d <= 0 {
			break
		}
		next = now.Add(d)
	}
	t.Waited += waited + time.Since(start)
	return t, nil
}

// errRejoin is acquireAlone's answer to a request whose turn came once
// Redis answered again: the fleet paces it.
var errRejoin = errors.New("robotsredis: Redis answers again: the request takes the fleet's slot")

// minSendTime is the least time a request that waited for its turn must
// have left before its deadline to be sent, whatever
// PaceRequest.MinTimeLeft says, as with a robotsguard.LocalPacer.
const minSendTime = 50 * time.Millisecond

// minLeft is the least time a request that waits must have left before
// its deadline when its turn comes.
func minLeft(r robotsguard.PaceRequest) time.Duration { return max(r.MinTimeLeft, minSendTime) }

// waitUntil waits until at, for a request to origin that must have left
// before its context's deadline when it goes; it fails at once, with a
// *robotsguard.PacingError, when the deadline comes too soon for that,
// and when ctx ends while it waits.
func waitUntil(ctx context.Context, origin string, at time.Time, left time.Duration) error {
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && dl.Sub(at) < left {
		return &robotsguard.PacingError{Origin: strings.Clone(origin), NotBefore: at, Wait: d, Err: context.DeadlineExceeded}
	}
	if err := (robotsguard.SystemClock{}).Sleep(ctx, d); err != nil {
		return &robotsguard.PacingError{Origin: strings.Clone(origin), NotBefore: at, Wait: max(time.Until(at), 0), Err: err}
	}
	return nil
}
