package crawl

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/robotsguard/robotsguard"
)

// Defaults of the Frontier fields.
const (
	DefaultMaxQueued = 1 << 20 // URLs queued and in flight
	DefaultRetries   = 3       // failed fetches of a robots.txt in a row its URLs wait for
	MaxURLLength     = 8 << 10 // bytes of a URL Add accepts
)

// ErrFull is the error of Add when MaxQueued URLs are queued or in
// flight: the URL is not queued. Crawl some, or raise MaxQueued.
var ErrFull = errors.New("robotsguard: crawl frontier full: MaxQueued URLs are queued or in flight")

// ErrEmpty is the error of Next when no URL is queued and none is in
// flight: nothing could be added by a worker, the crawl is over.
var ErrEmpty = errors.New("robotsguard: crawl frontier empty: no URL queued or in flight")

// ErrURLTooLong is the error of Add for a URL longer than MaxURLLength.
var ErrURLTooLong = errors.New("robotsguard: URL longer than " + strconv.Itoa(MaxURLLength) + " bytes not queued")

// A Peeker is a robotsguard.Pacer that tells, without reserving anything,
// how long a request to an origin would wait for its turn were it asked
// now: zero when it could go at once. A Frontier whose Transport's Pacer is
// a Peeker asks it after each response, in the worker's goroutine, so that
// the turns that others take (the processes of a fleet) and throttles are
// known before a worker is given the origin's next URL. The origin is as
// in robotsguard.PaceRequest. A Pacer that is not one is learned from: the
// pace of the Transport's Snapshot, the *PacingErrors of requests that
// could not go in time, and 429 and 503 answers.
type Peeker interface {
	Peek(ctx context.Context, origin string) (time.Duration, error)
}

// peekTimeout bounds a Peek.
const peekTimeout = time.Second

// A Frontier holds the URLs of a crawl in one queue per origin, and hands
// each free worker a URL of the origin that may be asked soonest (see the
// package documentation). Its zero value, with Transport set, is ready to
// use; set the fields before the first Add and do not change them. A
// Frontier is safe for concurrent use.
type Frontier struct {
	// Transport decides the URLs (Check) and tells each origin's pace
	// (Snapshot); the workers must send the URLs through it. Required.
	Transport *robotsguard.Transport
	// MaxQueued bounds the URLs queued and in flight: Add fails with
	// ErrFull past it. Zero means DefaultMaxQueued. The memory held is
	// bounded by it, each URL being MaxURLLength bytes at most, and by
	// the origins of those URLs: the state of an origin with nothing
	// queued or in flight is dropped once its turn has come.
	MaxQueued int
	// Retries is how many failed fetches in a row of an origin's
	// robots.txt its URLs wait through. A URL refused because the rules
	// could not be read (robotsguard.ReasonUnreachable or
	// ReasonACAPReference: transient, RFC 9309 §2.3.1.4), by Add's Check
	// or as it was sent, is queued (again) for the refusal's NotBefore,
	// when the Transport fetches the file again, until the origin's
	// fetches have failed more than Retries times in a row; its URLs are
	// then refused, as disallowed ones are, until a fetch succeeds. Zero
	// means DefaultRetries: with the Transport's back-off after a failed
	// fetch (a minute, doubling), an origin has about 7 minutes to come
	// back. Negative means none: such URLs are refused at once.
	Retries int

	once   sync.Once
	clock  robotsguard.Clock
	limit  int // requests under way at once per origin; math.MaxInt for no limit
	peeker Peeker

	mu     sync.Mutex
	byKey  map[string]*origin // by scheme://host as written
	byName map[string]*origin // by the Transport's name of the origin
	// The origins with a URL queued and a place free: those whose turn
	// has not come, soonest first, and those whose turn has, the most
	// work left first.
	waiting, ready originHeap
	idle           []*origin // origins that went idle, oldest first (see expire)
	waiters        []*waiter // workers waiting in Next, first come first served
	seq            uint64
	queued         int
	inFlight       int
	timer          int                // generation of the timer that wakes the waiters; 0 for none
	timerAt        time.Time          // when it rings
	stop           context.CancelFunc // stops it
	stats          Stats

	onWait    func(waiting int) // test hook: a worker waits in Next; f.mu is held
	sleepTill func(ctx context.Context, at time.Time) error
}

// Stats counts what a Frontier did.
type Stats struct {
	Queued   int // URLs queued now
	InFlight int // URLs handed out and not yet Done
	Origins  int // origins whose state is held
	Added    int // URLs queued by Add
	Refused  int // URLs Add did not queue: disallowed, unsupported, full
	Requeued int // URLs queued again after a *robotsguard.PacingError or a transient refusal
	Deferred int // URLs Add queued although refused for a transient reason (see Retries)
	Done     int // URLs Done with a response or an error of their own
}

// An Item is a URL handed out by Next. Pass it to Done once its response
// has ended (its body read or closed) or its request failed.
type Item struct {
	URL string
	// Tries is the number of times the URL was handed out before, and
	// requeued: its requests did not go in time, or the origin's rules
	// could not be read (see Frontier.Retries).
	Tries int

	o *origin
}

// Origin returns the origin of the URL, as the Transport names it.
func (it Item) Origin() string {
	if it.o == nil {
		return ""
	}
	return it.o.name
}

type origin struct {
	name     string
	keys     []string // in byKey: its scheme://host as written, one or a few
	urls     []entry  // queued, first out first
	inFlight int
	interval time.Duration
	fresh    time.Time // when the Snapshot that gave interval is read again
	turn     time.Time // when its next request may go, as far as the Frontier knows
	strikes  int       // 429 and 503 answers in a row
	// failures counts the failed fetches of its robots.txt in a row that
	// refused its URLs, each once: the refusals after one failed fetch
	// share a NotBefore, failedUntil, the latest seen.
	failures    int
	failedUntil time.Time
	heap        *originHeap // the heap it is in, f.waiting or f.ready; nil for none
	index       int         // its index there
	seq         uint64      // order of arrival in the Frontier, among equals
	inIdle      bool
}

// entry is a URL queued, with the times it was handed out before.
type entry struct {
	url   string
	tries int
}

type waiter struct {
	ch chan handout
}

type handout struct {
	it  Item
	err error
}

func (f *Frontier) init() {
	f.once.Do(func() {
		t := f.Transport
		f.clock = t.Clock
		if f.clock == nil {
			f.clock = robotsguard.SystemClock{}
		}
		switch {
		case t.NoPacing || t.MaxRequestsPerOrigin < 0:
			f.limit = math.MaxInt
		case t.MaxRequestsPerOrigin == 0:
			f.limit = robotsguard.DefaultMaxRequestsPerOrigin
		default:
			f.limit = t.MaxRequestsPerOrigin
		}
		f.peeker, _ = t.Pacer.(Peeker)
		if f.sleepTill == nil {
			f.sleepTill = func(ctx context.Context, at time.Time) error {
				return f.clock.Sleep(ctx, at.Sub(f.clock.Now()))
			}
		}
		f.byKey, f.byName = map[string]*origin{}, map[string]*origin{}
		f.waiting.less = func(a, b *origin) bool {
			if !a.turn.Equal(b.turn) {
				return a.turn.Before(b.turn)
			}
			return a.seq < b.seq
		}
		f.ready.less = func(a, b *origin) bool {
			if wa, wb := a.work(), b.work(); wa != wb {
				return wa > wb
			}
			return f.waiting.less(a, b)
		}
	})
}

func (f *Frontier) maxQueued() int {
	if f.MaxQueued > 0 {
		return f.MaxQueued
	}
	return DefaultMaxQueued
}

// Add queues rawURL after its origin's queued URLs, if the Transport's
// Check allows it (fetching its origin's robots.txt within ctx as needed),
// or refuses it for a transient reason within Retries (the URL then waits
// for the refusal's NotBefore). It returns nil when the URL is queued;
// else the URL is dropped, and the error says why: Check's (it matches
// robotsguard.ErrDisallowed or robotsguard.ErrUnsupportedURL), ErrFull,
// ErrURLTooLong, or ctx's.
func (f *Frontier) Add(ctx context.Context, rawURL string) error {
	f.init()
	err := f.add(ctx, rawURL)
	if err != nil {
		f.mu.Lock()
		f.stats.Refused++
		f.mu.Unlock()
	}
	return err
}

func (f *Frontier) add(ctx context.Context, rawURL string) error {
	if len(rawURL) > MaxURLLength {
		return ErrURLTooLong
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("robotsguard: URL not queued: %w", err)
	}
	f.mu.Lock()
	full := f.full()
	f.mu.Unlock()
	if full { // before Check, which may fetch a robots.txt
		return ErrFull
	}
	checkErr := f.Transport.Check(req)
	refusal := transient(checkErr)
	if checkErr != nil && (refusal == nil || f.retries() == 0) {
		return checkErr
	}
	key := strings.ToLower(req.URL.Scheme + "://" + req.URL.Host)
	var snap *robotsguard.Snapshot
	for {
		f.mu.Lock()
		if f.full() {
			f.mu.Unlock()
			return ErrFull
		}
		now := f.clock.Now()
		o := f.byKey[key]
		if snap != nil || (o != nil && now.Before(o.fresh)) {
			if snap != nil {
				o = f.learn(o, key, snap, now)
			}
			if refusal != nil {
				if !f.unreadable(o, refusal, now) {
					f.schedule(o, now)
					f.expire(now)
					f.mu.Unlock()
					return checkErr
				}
				f.stats.Deferred++
			} else {
				o.failures = 0
			}
			o.urls = append(o.urls, entry{url: rawURL})
			f.queued++
			f.stats.Added++
			f.schedule(o, now)
			f.expire(now)
			f.dispatch(now)
			f.mu.Unlock()
			return nil
		}
		f.mu.Unlock()
		// A new origin, or one whose pace may have changed: the
		// Snapshot is read outside the lock (it may fetch).
		if snap, err = f.Transport.Snapshot(ctx, req.URL); err != nil {
			return err
		}
	}
}

// full reports whether MaxQueued URLs are queued or in flight.
func (f *Frontier) full() bool { return f.queued+f.inFlight >= f.maxQueued() }

// learn records the pace snap tells of the origin known by key (o, nil
// when new).
func (f *Frontier) learn(o *origin, key string, snap *robotsguard.Snapshot, now time.Time) *origin {
	if o == nil {
		if o = f.byName[snap.Origin]; o == nil {
			f.seq++
			o = &origin{name: snap.Origin, turn: now, seq: f.seq}
			f.byName[o.name] = o
		}
		o.keys = append(o.keys, key)
		f.byKey[key] = o
	}
	o.interval = snap.Delay
	if f.Transport.NoPacing {
		o.interval = 0
	}
	o.fresh = snap.FreshUntil
	if !o.fresh.After(now) {
		o.fresh = now.Add(time.Minute) // unreachable, or a rule without a lifetime: read it again later
	}
	return o
}

// schedule puts o in the heap it belongs in, or in none, by whether it
// has a URL queued and a place free, and whether its turn has come at now.
func (f *Frontier) schedule(o *origin, now time.Time) {
	var h *originHeap
	if len(o.urls) > 0 && o.inFlight < f.limit {
		h = &f.waiting
		if !o.turn.After(now) {
			h = &f.ready
		}
	}
	if o.heap == h && h != nil {
		heap.Fix(h, o.index)
	} else {
		if o.heap != nil {
			heap.Remove(o.heap, o.index)
		}
		if h != nil {
			heap.Push(h, o)
		}
	}
	if len(o.urls) == 0 && o.inFlight == 0 && !o.inIdle {
		o.inIdle = true
		f.idle = append(f.idle, o)
	}
}

// promote moves the origins whose turn has come at now to the ready heap.
func (f *Frontier) promote(now time.Time) {
	for len(f.waiting.s) > 0 && !f.waiting.s[0].turn.After(now) {
		heap.Push(&f.ready, heap.Pop(&f.waiting))
	}
}

// work is what o has left to crawl: when the workers cannot keep up with
// every origin's pace, those with most go first, and the crawl ends
// soonest (their URLs go one an interval; the others' fit in between).
func (o *origin) work() int64 { return int64(len(o.urls)) * int64(max(o.interval, 1)) }

// expire drops the state of a few origins that went idle (nothing queued
// or in flight) and whose turn has come: a URL of theirs added later finds
// their turn by a Snapshot, as a new origin's. It looks at a few each call,
// the oldest first, so memory follows the origins in use without a sweep.
func (f *Frontier) expire(now time.Time) {
	for range 4 {
		if len(f.idle) == 0 {
			return
		}
		o := f.idle[0]
		if busy := len(o.urls) > 0 || o.inFlight > 0; !busy && o.turn.After(now) {
			return
		} else if !busy {
			delete(f.byName, o.name)
			for _, k := range o.keys {
				delete(f.byKey, k)
			}
		}
		o.inIdle = false
		f.idle[0] = nil
		f.idle = f.idle[1:]
	}
}

// Next returns the next URL to send: the first URL queued for the origin
// whose turn comes first, once it has come, and once the origin has a
// place free (Transport.MaxRequestsPerOrigin, one by default, URLs in
// flight). It blocks until then, or until ctx ends (ctx's error). It
// returns ErrEmpty when no URL is queued or in flight, and wakes waiting
// workers with it when the last URL in flight is Done with nothing queued.
func (f *Frontier) Next(ctx context.Context) (Item, error) {
	f.init()
	f.mu.Lock()
	now := f.clock.Now()
	f.promote(now)
	if len(f.waiters) == 0 && len(f.ready.s) > 0 {
		it := f.take(f.ready.s[0], now)
		f.mu.Unlock()
		return it, nil
	}
	if f.queued == 0 && f.inFlight == 0 {
		f.mu.Unlock()
		return Item{}, ErrEmpty
	}
	w := &waiter{ch: make(chan handout, 1)}
	f.waiters = append(f.waiters, w)
	f.dispatch(now)
	if f.onWait != nil {
		f.onWait(len(f.waiters))
	}
	f.mu.Unlock()
	select {
	case h := <-w.ch:
		return h.it, h.err
	case <-ctx.Done():
		f.mu.Lock()
		defer f.mu.Unlock()
		if i := slices.Index(f.waiters, w); i >= 0 {
			if f.waiters = append(f.waiters[:i], f.waiters[i+1:]...); len(f.waiters) == 0 {
				f.disarm() // no goroutine left behind by a crawl that ended
			}
		} else if h := <-w.ch; h.err == nil {
			f.putBack(h.it) // handed out as ctx ended: the next worker takes it
			now := f.clock.Now()
			f.schedule(h.it.o, now)
			f.dispatch(now)
		}
		return Item{}, ctx.Err()
	}
}

// take hands out o's first URL at now.
func (f *Frontier) take(o *origin, now time.Time) Item {
	e := o.urls[0]
	it := Item{URL: e.url, Tries: e.tries, o: o}
	o.urls[0] = entry{}
	o.urls = o.urls[1:]
	if len(o.urls) == 0 {
		o.urls = nil // let the array go
	}
	o.inFlight++
	f.queued--
	f.inFlight++
	o.turn = now.Add(o.interval) // a request's interval counts from when it is sent, too
	f.schedule(o, now)
	return it
}

// putBack queues it again, first of its origin's URLs, as if it had not
// been handed out.
func (f *Frontier) putBack(it Item) {
	o := it.o
	o.urls = append([]entry{{url: it.URL, tries: it.Tries}}, o.urls...)
	o.inFlight--
	f.inFlight--
	f.queued++
}

// dispatch hands the URLs whose origins' turns have come to the waiting
// workers, and sets a timer for the next turn when workers wait. It ends
// their wait with ErrEmpty when nothing is queued or in flight.
func (f *Frontier) dispatch(now time.Time) {
	f.promote(now)
	for len(f.waiters) > 0 && len(f.ready.s) > 0 {
		w := f.waiters[0]
		f.waiters[0] = nil
		f.waiters = f.waiters[1:]
		w.ch <- handout{it: f.take(f.ready.s[0], now)}
	}
	if len(f.waiters) == 0 {
		return
	}
	if f.queued == 0 && f.inFlight == 0 {
		for _, w := range f.waiters {
			w.ch <- handout{err: ErrEmpty}
		}
		f.waiters = nil
		f.disarm()
		return
	}
	if len(f.waiting.s) > 0 {
		f.arm(f.waiting.s[0].turn)
	}
}

// arm sets the timer to ring at at, unless it rings sooner already. It
// sleeps on the Clock, in a goroutine of its own, and dispatches.
func (f *Frontier) arm(at time.Time) {
	if f.timer != 0 && !at.Before(f.timerAt) {
		return
	}
	f.disarm()
	ctx, stop := context.WithCancel(context.Background())
	f.seq++
	gen := int(f.seq)
	f.timer, f.timerAt, f.stop = gen, at, stop
	go func() {
		if f.sleepTill(ctx, at) != nil {
			return // replaced by a sooner one
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.timer == gen {
			f.timer, f.stop = 0, nil
			stop()
		}
		f.dispatch(f.clock.Now())
	}()
}

// disarm stops the timer, if one is set.
func (f *Frontier) disarm() {
	if f.stop != nil {
		f.stop()
	}
	f.timer, f.stop = 0, nil
}

// Done ends it: its request's response has ended (its body read or
// closed), resp being the response (nil when err is not), or it failed
// with err. Call it once per Item Next returns.
//
// A *robotsguard.PacingError (the request could not go in time) queues the
// URL again, first of its origin's, for the error's NotBefore, and so does
// a refusal for a transient reason, within Retries (see Retries); any
// other outcome is final. The origin's next turn is its interval from now,
// or later on a 429 or 503 answer (the Transport's throttle: Retry-After,
// or a pause doubling from the interval, at least a second, up to
// MaxThrottle), or whatever a Peeker says.
func (f *Frontier) Done(it Item, resp *http.Response, err error) {
	if !f.requeue(it, err) {
		f.done(it, resp, err)
	}
}

// requeue queues it again, and reports whether it did: when err says
// that its request is to be sent later (see Done).
func (f *Frontier) requeue(it Item, err error) bool {
	if it.o == nil {
		return false
	}
	var pe *robotsguard.PacingError
	isPacing := errors.As(err, &pe)
	refusal := transient(err)
	if !isPacing && refusal == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	o := it.o
	switch {
	case isPacing && pe.NotBefore.IsZero():
		o.turn = later(o.turn, now.Add(o.interval))
	case isPacing:
		o.turn = pe.NotBefore // the Pacer's word, which knows every request
	case !f.unreadable(o, refusal, now):
		return false
	}
	it.Tries++
	f.putBack(it)
	f.stats.Requeued++
	f.schedule(o, now)
	f.expire(now)
	f.dispatch(now)
	return true
}

// done ends it with a final outcome (see Done).
func (f *Frontier) done(it Item, resp *http.Response, err error) {
	if it.o == nil {
		return
	}
	var peek time.Duration
	if f.peeker != nil {
		ctx, cancel := context.WithTimeout(context.Background(), peekTimeout)
		if d, perr := f.peeker.Peek(ctx, it.o.name); perr == nil {
			peek = d
		}
		cancel()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	o := it.o
	o.inFlight--
	f.inFlight--
	f.stats.Done++
	o.turn = later(o.turn, now.Add(o.interval)) // and from when its response ended
	if transient(err) == nil {
		o.failures = 0 // the rules were read
	}
	if resp != nil {
		f.answered(o, resp, now)
	}
	if peek > 0 {
		o.turn = later(o.turn, now.Add(peek))
	}
	f.schedule(o, now)
	f.expire(now)
	f.dispatch(now)
}

// transient returns the refusal in err when its reason is transient: the
// origin's rules could not be read, and may be once the Transport fetches
// them again (at its NotBefore).
func transient(err error) *robotsguard.DisallowedError {
	var d *robotsguard.DisallowedError
	if errors.As(err, &d) && (d.Reason == robotsguard.ReasonUnreachable || d.Reason == robotsguard.ReasonACAPReference) {
		return d
	}
	return nil
}

func (f *Frontier) retries() int {
	switch {
	case f.Retries < 0:
		return 0
	case f.Retries == 0:
		return DefaultRetries
	}
	return f.Retries
}

// unreadable records d, a transient refusal of a URL of o at now, and
// reports whether the URL is to wait for d's NotBefore, which is then o's
// next turn: whether o's robots.txt has failed Retries times in a row at
// most. The refusals of one failed fetch count once.
func (f *Frontier) unreadable(o *origin, d *robotsguard.DisallowedError, now time.Time) bool {
	if d.NotBefore.IsZero() || d.NotBefore.After(o.failedUntil) {
		o.failures++
		o.failedUntil = d.NotBefore
	}
	if o.failures > f.retries() {
		return false
	}
	if d.NotBefore.IsZero() {
		o.turn = later(o.turn, now.Add(o.interval))
	} else {
		o.turn = later(o.turn, d.NotBefore)
	}
	return true
}

// answered learns of the origin's throttle from resp's status, as the
// Transport sets it (see Transport.MaxThrottle).
func (f *Frontier) answered(o *origin, resp *http.Response, now time.Time) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		o.strikes = 0
		return
	}
	o.strikes = min(o.strikes+1, 64)
	strikes := o.strikes
	limit := f.Transport.MaxThrottle
	if limit <= 0 {
		limit = robotsguard.DefaultMaxThrottle
	}
	wait, ok := retryAfter(resp.Header.Get("Retry-After"), now)
	if !ok {
		wait = limit
		if base, n := max(o.interval, time.Second), min(strikes-1, 20); base <= limit>>n {
			wait = base << n
		}
	}
	o.turn = later(o.turn, now.Add(min(max(wait, 0), limit)))
}

// retryAfter reads a Retry-After field (RFC 9110 §10.2.3): seconds, or an
// HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > int64(math.MaxInt64/time.Second) {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(now), true
	}
	return 0, false
}

// Stats returns the Frontier's counts.
func (f *Frontier) Stats() Stats {
	f.init()
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	s.Queued, s.InFlight, s.Origins = f.queued, f.inFlight, len(f.byName)
	return s
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// originHeap is a heap of origins, ordered by less.
type originHeap struct {
	s    []*origin
	less func(a, b *origin) bool
}

func (h *originHeap) Len() int           { return len(h.s) }
func (h *originHeap) Less(i, j int) bool { return h.less(h.s[i], h.s[j]) }
func (h *originHeap) Swap(i, j int) {
	h.s[i], h.s[j] = h.s[j], h.s[i]
	h.s[i].index, h.s[j].index = i, j
}
func (h *originHeap) Push(x any) {
	o := x.(*origin)
	o.heap, o.index = h, len(h.s)
	h.s = append(h.s, o)
}
func (h *originHeap) Pop() any {
	o := h.s[len(h.s)-1]
	h.s[len(h.s)-1] = nil
	h.s = h.s[:len(h.s)-1]
	o.heap = nil
	return o
}
