package robotsguard

import (
	"context"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// LocalPacer: the Pacer of one process (see Pacer in pace.go), which the
// Transport uses unless told otherwise.

// LocalPacer paces the requests of one process: per origin, a queue of
// requests waiting for one of Limit places, each sent Interval after the
// previous one was sent and ended. The zero LocalPacer is ready to use, on
// the system clock.
//
// Its state is sharded by origin, so requests to different origins rarely
// contend; the state of an origin idle for a minute past its interval and
// back-off is dropped, a few origins at a time as others are paced, which
// changes no pause: memory stays bounded by the origins in use.
//
// A request holds its place until the Transport releases its Lease. A response
// body that is neither read to the end nor closed, with a context that never
// ends, would hold it for good; after MaxHold (ten seconds when zero) the
// requests waiting behind it take its place.
type LocalPacer struct {
	// Clock tells the time and sleeps the pauses; nil means SystemClock{}.
	Clock Clock
	// MaxHold bounds how long a request may hold its place while others
	// wait for it, in real time. Zero means DefaultMaxHold.
	MaxHold time.Duration

	once  sync.Once
	seed  maphash.Seed
	epoch time.Time // the Clock's first reading, which ticks count from
	// real: the Clock is the system's, whose ticks are real time (see
	// realTime).
	real   bool
	shards [paceShards]paceShard
}

// DefaultMaxHold is how long a request may hold its place in its origin's
// pace, by default, while others wait: long enough for most responses to
// be read, short enough that a body left open while its reader sends the
// next request (a page decoded and its links followed before the body is
// closed) costs seconds, not the crawl.
const DefaultMaxHold = 10 * time.Second

const (
	// minSendTime is the least time a request that waited for its turn
	// must have left before its deadline to be sent, whatever
	// PaceRequest.MinTimeLeft says: one with less would time out on its
	// way, after its turn was spent.
	minSendTime = 50 * time.Millisecond

	paceShards     = 64
	paceIdle       = time.Minute // idle time after which an origin's state is dropped
	paceProbe      = 32          // idle origins looked at every paceProbeEvery Acquires of a shard
	paceProbeEvery = 16
	paceProbeMax   = 1024
)

type paceShard struct {
	mu sync.Mutex // guards m, ops and the fields of every pace in it
	// m holds the paces by the hash of their origin (see
	// LocalPacer.shard).
	m    map[uint64]*pace
	ops  int // Acquires since expire last looked
	wait int // Acquires between two looks of expire
	// n is len(m), written under mu and read under none: an Acquire with
	// nothing to space or count, of an origin whose shard holds no state
	// (no back-off to keep), takes no lock.
	n atomic.Int32
	_ [28]byte // 64 bytes a shard: one shard's lock leaves the next one's n in cache
}

// A tick is a reading of a LocalPacer's Clock, as the time since its epoch
// (on the monotonic clock, when the Clock's readings have it): 8 bytes
// where a time.Time takes 24. noTick is before every reading, and minTick
// the earliest reading.
type tick int64

const (
	noTick  = tick(math.MinInt64)
	minTick = noTick + 2
)

// tick returns the tick of t.
func (lp *LocalPacer) tick(t time.Time) tick { return max(tick(t.Sub(lp.epoch)), minTick) }

// time returns the reading of the Clock that k is.
func (lp *LocalPacer) time(k tick) time.Time { return lp.epoch.Add(time.Duration(k)) }

// after returns the tick d after k, saturated: noTick stays noTick, and
// no tick is past math.MaxInt64 or before minTick.
func (k tick) after(d time.Duration) tick {
	switch {
	case k == noTick:
		return k
	case d > 0 && k > math.MaxInt64-tick(d):
		return math.MaxInt64
	case d < 0 && k < minTick-tick(d):
		return minTick
	}
	return k + tick(d)
}

// since returns the time from j to k, saturated.
func (k tick) since(j tick) time.Duration {
	switch {
	case j < 0 && k > math.MaxInt64+j:
		return math.MaxInt64
	case j > 0 && k < math.MinInt64+j:
		return math.MinInt64
	}
	return time.Duration(k - j)
}

// pace is the state of one origin: 48 bytes while no request waits.
type pace struct {
	sh        *paceShard // the shard that holds it
	next      tick       // earliest time the next request may be sent, the back-off aside
	notBefore tick       // end of the back-off
	every     time.Duration
	one       *hold      // the place held while q is nil, if one is
	q         *paceQueue // nil until a request waits or more than one holds a place
}

// dropped reports whether expire dropped p from its shard: a request
// that kept p (see acquire) must not pace itself by it.
func (p *pace) dropped() bool { return p.next == dropped }

// dropped is the next of a pace that expire dropped: no reading.
const dropped = noTick + 1

// paceQueue is the places held and the requests waiting of an origin that
// has had more than one place held or a request waiting.
type paceQueue struct {
	holds []*hold   // the places held, oldest first
	queue []*waiter // requests waiting for a place, in arrival order
	// timer ends the oldest place once held for MaxHold while requests
	// wait (see overheld): one for the origin, made as the first request
	// waits, armed while it may have to ring.
	timer *time.Timer
	armed bool
}

func newPace(sh *paceShard) *pace { return &pace{sh: sh, next: noTick, notBefore: noTick} }

// queued returns p's queue, made as the first request waits or a second
// place is held.
func (p *pace) queued() *paceQueue {
	if p.q == nil {
		p.q = &paceQueue{}
		if p.one != nil {
			p.q.holds = append(p.q.holds, p.one)
			p.one = nil
		}
	}
	return p.q
}

// busy returns the number of places held.
func (p *pace) busy() int {
	if p.q != nil {
		return len(p.q.holds)
	}
	if p.one != nil {
		return 1
	}
	return 0
}

// waiting returns the number of requests waiting for a place.
func (p *pace) waiting() int {
	if p.q == nil {
		return 0
	}
	return len(p.q.queue)
}

type waiter struct {
	ready chan *hold // receives the place handed over
}

// waiters holds the waiters no queue holds, their channels empty: a request
// that waits for its place takes one, and puts it back once handed a place
// or out of the queue.
var waiters = sync.Pool{New: func() any { return &waiter{ready: make(chan *hold, 1)} }}

type hold struct {
	since time.Time // real time a request first waited for the place (zero until then)
	given tick      // when the place was handed over to a request that waited
	slot  tick      // when the request that holds it may go (see LocalPacer.giveBack)
	done  bool      // the place was given up
	// released is set by the first release of h: a body read to its end
	// and then closed ends its turn twice, and the second reads no clock.
	released atomic.Bool
	// What end needs to give it up.
	lp *LocalPacer
	p  *pace
	// body is the response body that ends the turn, for the Transport's
	// own LocalPacer: in the same allocation (see endTurn).
	body turnBody
}

// end ends the turn of the request that holds h, once it was sent.
func (h *hold) end() { h.lp.release(h.p.sh, h.p, h, true) }

func (lp *LocalPacer) init() {
	lp.once.Do(func() {
		lp.seed = maphash.MakeSeed()
		lp.epoch = lp.clock().Now()
		_, sys := lp.clock().(SystemClock)
		lp.real = sys && lp.epoch.Round(0) != lp.epoch // its readings have the monotonic clock
	})
}

func (lp *LocalPacer) clock() Clock {
	if lp.Clock != nil {
		return lp.Clock
	}
	return SystemClock{}
}

// realTime returns the real time at k, a reading of the Clock: k itself
// when the Clock is the system's, and then no clock is read.
func (lp *LocalPacer) realTime(k tick) time.Time {
	if lp.real {
		return lp.time(k)
	}
	return time.Now()
}

func (lp *LocalPacer) maxHold() time.Duration {
	if lp.MaxHold > 0 {
		return lp.MaxHold
	}
	return DefaultMaxHold
}

// shard returns the shard of origin and the key of its pace there: the
// origin's 64-bit hash, with a seed of the LocalPacer's own. A map of
// hashes holds no copy of each origin's name (a third of what a pace
// costs). Two origins whose names share a hash share a pace: they are
// paced as one origin, slower, never faster; among a million origins,
// that happens with a chance of about one in 30 million.
func (lp *LocalPacer) shard(origin string) (*paceShard, uint64) {
	h := maphash.String(lp.seed, origin)
	return &lp.shards[h%paceShards], h
}

// stateless reports whether the shard of origin holds no state, read
// without its lock.
func (lp *LocalPacer) stateless(origin string) bool {
	sh, _ := lp.shard(origin)
	return sh.n.Load() == 0
}

// minLeft is the least time a request that waits must have left before
// its deadline when its turn comes.
func minLeft(r PaceRequest) time.Duration { return max(r.MinTimeLeft, minSendTime) }

// owns reports whether sh is one of lp's shards.
func (lp *LocalPacer) owns(sh *paceShard) bool {
	first, last := &lp.shards[0], &lp.shards[paceShards-1]
	a := uintptr(unsafe.Pointer(sh))
	return a >= uintptr(unsafe.Pointer(first)) && a <= uintptr(unsafe.Pointer(last))
}

// Acquire implements Pacer.
func (lp *LocalPacer) Acquire(ctx context.Context, r PaceRequest) (Lease, error) {
	lease, h, err := lp.acquire(ctx, r)
	lease.h = h
	return lease, err
}

// acquire is Acquire, which returns the place the request holds apart from
// the Lease. A caller that asks for the same origin again and again (the
// Transport) keeps its pace in r.kept: acquire then finds it there, rather
// than in its shard's map, for as long as it is not dropped.
func (lp *LocalPacer) acquire(ctx context.Context, r PaceRequest) (Lease, *hold, error) {
	lp.init()
	if r.Interval <= 0 && r.Limit <= 0 && (r.kept == nil || r.kept.Load() == nil) && lp.stateless(r.Origin) {
		// Nothing to space, nothing to count, no back-off: as below
		// when the shard has no state for the origin, but read-only,
		// so that many goroutines sending to one origin share it.
		return Lease{}, nil, nil
	}
	clock := lp.clock()
	now := lp.tick(clock.Now())
	var sh *paceShard
	var p *pace
	kept := r.kept
	if kept != nil {
		if p = kept.Load(); p != nil && !lp.owns(p.sh) {
			kept, p = nil, nil // another LocalPacer's: the Pacer was shared, then not
		}
		if p != nil {
			sh = p.sh
			sh.mu.Lock()
			if sh.expire(now); p.dropped() {
				sh.mu.Unlock()
				p = nil
			}
		}
	}
	if p == nil {
		var key uint64
		sh, key = lp.shard(r.Origin)
		sh.mu.Lock()
		sh.expire(now)
		if p = sh.m[key]; p == nil {
			if r.Interval <= 0 && r.Limit <= 0 {
				sh.mu.Unlock()
				return Lease{}, nil, nil // nothing to space, nothing to count
			}
			if sh.m == nil {
				sh.m = map[uint64]*pace{}
			}
			p = newPace(sh)
			sh.m[key] = p
			sh.n.Add(1)
		}
		if kept != nil {
			kept.Store(p)
		}
	}
	p.every = r.Interval
	var h *hold
	queued := false
	if r.Limit <= 0 || (p.busy() < r.Limit && p.waiting() == 0) {
		h = p.take(lp)
		if p.next <= now && p.notBefore <= now {
			// Its turn is now: the common case, decided in one lock.
			p.next = now.after(p.every)
			h.slot = now
			sh.mu.Unlock()
			return Lease{}, h, nil
		}
		sh.mu.Unlock()
	} else {
		// A place comes free no sooner than now, and every request
		// ahead is sent at least an interval after the one before it.
		at := max(now.after(r.Interval), p.next, p.notBefore).after(time.Duration(p.waiting()) * r.Interval)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl)-minLeft(r) < at.since(now) {
			throttled := p.notBefore > now
			sh.mu.Unlock()
			return Lease{}, nil, lp.pacingError(r.Origin, at, now, throttled, context.DeadlineExceeded)
		}
		w := waiters.Get().(*waiter)
		q := p.queued()
		q.queue = append(q.queue, w)
		lp.watch(sh, p, q, lp.realTime(now))
		sh.mu.Unlock()
		queued = true
		var err *PacingError
		h, err = lp.wait(ctx, sh, r, p, w)
		waiters.Put(w)
		if err != nil {
			return Lease{}, nil, err
		}
	}
	later := now
	if queued {
		if later = h.given; !lp.real {
			later = lp.tick(clock.Now())
		}
	}
	waited, backoff, err := lp.sleep(ctx, clock, sh, p, h, now, later, queued, minLeft(r))
	if err != nil {
		lp.release(sh, p, h, false)
		err.Origin = strings.Clone(r.Origin)
		return Lease{}, nil, err
	}
	return Lease{Waited: waited, Throttled: backoff}, h, nil
}

// waitedFor marks the places held as waited for from now (real time), if
// they were not yet: MaxHold counts from then.
func (q *paceQueue) waitedFor(now time.Time) {
	for _, h := range q.holds {
		if h.since.IsZero() {
			h.since = now
		}
	}
}

// watch marks q's places as waited for from now (real time), and sets its
// timer to ring when the oldest has been held for MaxHold, unless it is
// set. Under sh's lock.
func (lp *LocalPacer) watch(sh *paceShard, p *pace, q *paceQueue, now time.Time) {
	q.waitedFor(now)
	if q.armed || len(q.holds) == 0 || len(q.queue) == 0 {
		return
	}
	d := q.holds[0].since.Add(lp.maxHold()).Sub(now)
	if q.timer == nil {
		q.timer = time.AfterFunc(d, func() { lp.overheld(sh, p) })
	} else {
		q.timer.Reset(d)
	}
	q.armed = true
}

// overheld is the ring of p's MaxHold timer: the oldest place, held for
// MaxHold while requests wait, is taken from its holder and handed to the
// first of them; the timer is set again while requests wait.
func (lp *LocalPacer) overheld(sh *paceShard, p *pace) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	q := p.q
	q.armed = false
	now := time.Now()
	if len(q.holds) > 0 && len(q.queue) > 0 && !q.holds[0].since.IsZero() && now.Sub(q.holds[0].since) >= lp.maxHold() {
		p.end(q.holds[0], lp.tick(lp.clock().Now()), true)
	}
	lp.watch(sh, p, q, now)
}

// take gives a place to a request.
func (p *pace) take(lp *LocalPacer) *hold {
	h := &hold{lp: lp, p: p}
	h.body.h = h
	if p.q == nil && p.one == nil {
		p.one = h
	} else {
		q := p.queued()
		q.holds = append(q.holds, h)
	}
	return h
}

// wait waits for a place in p's queue, or for ctx to end. (Should the
// oldest place be held past MaxHold, the queue's timer hands it over: see
// overheld.) A request that
// has not been given a place an interval (and minLeft(r)) before its
// deadline cannot go in time: it gives up then, while its deadline has not
// passed (so that an http.Client returns its *PacingError, not its own
// time-out).
func (lp *LocalPacer) wait(ctx context.Context, sh *paceShard, r PaceRequest, p *pace, w *waiter) (*hold, *PacingError) {
	var giveUp <-chan time.Time
	if dl, ok := ctx.Deadline(); ok {
		t := time.NewTimer(time.Until(dl) - r.Interval - minLeft(r))
		defer t.Stop()
		giveUp = t.C
	}
	q := p.q // the queue w is in: made before w joined it, and kept
	// leave takes w out of the queue; if it was handed a place meanwhile,
	// the place goes to the next in line.
	leave := func() int {
		sh.mu.Lock()
		if i := indexOf(q.queue, w); i >= 0 {
			q.queue = slices.Delete(q.queue, i, i+1) // clears the tail: w is not kept
			sh.mu.Unlock()
			return i
		}
		sh.mu.Unlock()
		lp.release(sh, p, <-w.ready, false)
		return 0
	}
	done := ctx.Done()
	if done == nil && giveUp == nil {
		return <-w.ready, nil
	}
	select {
	case h := <-w.ready:
		return h, nil
	case <-done:
		leave()
		return nil, &PacingError{Origin: strings.Clone(r.Origin), Err: ctx.Err()}
	case <-giveUp:
		now := lp.tick(lp.clock().Now())
		sh.mu.Lock()
		at := max(now.after(r.Interval), p.next, p.notBefore)
		backoff := p.notBefore > now
		var held time.Duration // how long the oldest place has kept this request waiting
		if len(q.holds) > 0 && !q.holds[0].since.IsZero() {
			held = time.Since(q.holds[0].since)
		}
		sh.mu.Unlock()
		ahead := leave()
		pe := lp.pacingError(r.Origin, at.after(time.Duration(ahead)*r.Interval), now, backoff, context.DeadlineExceeded)
		pe.held = held
		return nil, pe
	}
}

// sleep waits, holding a place from now, until the request may be sent:
// after the previous request's interval and any back-off, including one
// recorded while it sleeps; a request that waited goes only with minLeft
// left before its deadline. It returns how long it waited since start,
// and whether a back-off held it.
func (lp *LocalPacer) sleep(ctx context.Context, clock Clock, sh *paceShard, p *pace, h *hold, start, now tick, queued bool, minLeft time.Duration) (time.Duration, bool, *PacingError) {
	var backoff bool
	for ; ; now = lp.tick(clock.Now()) {
		sh.mu.Lock()
		at := max(now, p.next, p.notBefore)
		backoff = backoff || p.notBefore > now && p.notBefore >= p.next
		p.next = at.after(p.every) // requests under way at once leave an interval apart
		h.slot = at
		sh.mu.Unlock()
		delay := at.since(now)
		if delay <= 0 && !queued {
			return now.since(start), backoff, nil
		}
		// A request that waited is sent only with minLeft left
		// before its deadline (real time, whatever the Clock).
		if dl, ok := ctx.Deadline(); ok && time.Until(dl)-minLeft < delay {
			lp.giveBack(sh, p, at)
			return 0, backoff, lp.pacingError("", at, now, backoff, context.DeadlineExceeded)
		}
		if delay <= 0 {
			return now.since(start), backoff, nil
		}
		if err := clock.Sleep(ctx, delay); err != nil {
			lp.giveBack(sh, p, at)
			return 0, backoff, lp.pacingError("", at, lp.tick(clock.Now()), backoff, err)
		}
		queued = true // it waited: the deadline is checked again
		sh.mu.Lock()
		held := p.notBefore > at
		sh.mu.Unlock()
		if !held {
			if err := ctx.Err(); err != nil {
				lp.giveBack(sh, p, at)
				return 0, backoff, lp.pacingError("", at, lp.tick(clock.Now()), backoff, err)
			}
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < minLeft {
				lp.giveBack(sh, p, at)
				return 0, backoff, lp.pacingError("", at, lp.tick(clock.Now()), backoff, context.DeadlineExceeded)
			}
			return lp.tick(clock.Now()).since(start), backoff, nil
		}
		// A back-off came while it slept: wait for its end too.
	}
}

// pacingError returns the error of a request to origin that gives up at
// now, when the origin could next be asked at at.
func (lp *LocalPacer) pacingError(origin string, at, now tick, throttled bool, err error) *PacingError {
	return &PacingError{Origin: strings.Clone(origin), NotBefore: lp.time(at), Wait: max(at.since(now), 0), Throttled: throttled, Err: err}
}

// giveBack returns the slot at at of a request that is not sent, when no
// later request has been scheduled after it.
func (lp *LocalPacer) giveBack(sh *paceShard, p *pace, at tick) {
	sh.mu.Lock()
	if p.next == at.after(p.every) {
		p.next = at
	}
	sh.mu.Unlock()
}

// release ends the turn that holds h, and the first request in the queue
// takes its place. When the request was sent, the next one's interval
// counts from now.
func (lp *LocalPacer) release(sh *paceShard, p *pace, h *hold, sent bool) {
	if h == nil || h.released.Swap(true) {
		return
	}
	now := lp.tick(lp.clock().Now())
	sh.mu.Lock()
	p.end(h, now, sent)
	sh.mu.Unlock()
}

// end frees h's place, if it still holds it, and hands it to the first
// request in the queue.
func (p *pace) end(h *hold, now tick, sent bool) {
	if h.done {
		return
	}
	h.done = true
	if p.one == h {
		p.one = nil
	} else if q := p.q; q != nil {
		if i := indexOf(q.holds, h); i >= 0 {
			q.holds = slices.Delete(q.holds, i, i+1) // clears the tail: h is not kept
		}
	}
	if sent {
		p.next = max(p.next, now.after(p.every))
	}
	if q := p.q; q != nil && len(q.queue) > 0 {
		w := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		next := p.take(h.lp)
		next.given = now
		if len(q.queue) > 0 {
			h.lp.watch(p.sh, p, q, h.lp.realTime(now)) // the others wait for it now
		}
		w.ready <- next
	}
}

// Throttle implements Pacer: the throttle ends d after the Clock's now.
func (lp *LocalPacer) Throttle(_ context.Context, origin string, d time.Duration) {
	lp.init()
	until := lp.tick(lp.clock().Now()).after(d)
	sh, key := lp.shard(origin)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m == nil {
		sh.m = map[uint64]*pace{}
	}
	p := sh.m[key]
	if p == nil {
		p = newPace(sh)
		sh.m[key] = p
		sh.n.Add(1)
	}
	p.notBefore = max(p.notBefore, until)
}

// expire drops the state of a few origins idle past their interval, their
// back-off and paceIdle. (An origin's state past those times holds nothing
// a request could wait for: a new one would let requests go as it does.)
// Go's map iteration starts at a random place, so every origin is looked
// at in turn, without a walk over all of them.
//
// A look that finds nothing to drop makes the next one come twice as late,
// up to paceProbeMax Acquires: with every origin in use (a crawl going
// round many origins faster than paceIdle), looking costs a cache miss per
// origin looked at, for nothing.
func (sh *paceShard) expire(now tick) {
	if sh.ops++; sh.ops < sh.wait {
		return
	}
	sh.ops = 0
	n, any := 0, false
	for o, p := range sh.m {
		if p.busy() == 0 && p.waiting() == 0 && now > max(p.next, p.notBefore).after(paceIdle) {
			delete(sh.m, o)
			sh.n.Add(-1)
			p.next = dropped
			any = true
		}
		if n++; n == paceProbe {
			break
		}
	}
	if any || sh.wait < paceProbeEvery {
		sh.wait = paceProbeEvery
	} else {
		sh.wait = min(2*sh.wait, paceProbeMax)
	}
}

// paceOf returns the pace of origin, if lp holds one.
func (lp *LocalPacer) paceOf(origin string) *pace {
	sh, key := lp.shard(origin)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.m[key]
}

// len returns the number of origins with pacing state.
func (lp *LocalPacer) len() int {
	n := 0
	for i := range lp.shards {
		sh := &lp.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

func indexOf[T comparable](s []T, v T) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
