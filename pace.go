package robotsguard

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// A Pacer decides when a request to an origin may be sent. The Transport
// asks it before every request it sends (robots.txt fetches aside), and
// tells it of 429 and 503 answers. A nil Transport.Pacer means the
// Transport's own LocalPacer, which paces the requests of one process;
// package robotsredis has one that paces a fleet of processes through
// Redis. The Transport calls its own LocalPacer through this interface
// too: a Pacer of your own is used exactly as the default is.
//
// Implementations must be safe for concurrent use. The origins they are
// given may share memory with the Transport's state of the origin: one
// that keeps an origin past the call keeps a copy (strings.Clone), or it
// keeps that state, parsed robots.txt and all, from being freed.
type Pacer interface {
	// Acquire waits until a request to r.Origin may be sent: at most
	// r.Limit requests under way at once, each sent at least r.Interval
	// after the previous one was sent and after the previous one ended,
	// and none before the end of a throttle. When ctx's deadline comes
	// before the earliest time the request could go, Acquire fails at
	// once; when ctx ends while it waits, it stops. Either way it returns
	// a *PacingError and gives back what it had reserved. The Lease it
	// returns is released once, when the request's response has ended.
	Acquire(ctx context.Context, r PaceRequest) (Lease, error)
	// Throttle holds the requests to origin for d from now, on the
	// Pacer's own clock: the origin answered 429 Too Many Requests or 503
	// Service Unavailable. Requests already waiting are held too. (A
	// duration, not a time: a Pacer of a fleet keeps time by a clock of
	// its own, Redis's, not the Transport's.)
	Throttle(ctx context.Context, origin string, d time.Duration)
}

// A PaceRequest is what Pacer.Acquire paces.
type PaceRequest struct {
	Origin string // "https://example.com"
	// Interval is the pause between requests: the origin's Crawl-delay
	// or Request-rate for the agent, or Transport.Delay. Zero means none.
	Interval time.Duration
	// Limit is the number of requests that may be under way at once;
	// zero means no limit.
	Limit int
	// MinTimeLeft is the least time a request that has to wait must have
	// left before its context's deadline when its turn comes, for its
	// response (Transport.MinResponseTime): a Pacer fails one whose turn
	// would come later at once. A request that does not wait goes
	// whatever its deadline. Zero means the Pacer's own minimum (a
	// LocalPacer's is 50 ms).
	MinTimeLeft time.Duration

	// kept, set by the Transport, holds the LocalPacer's state of the
	// origin between requests, so that a LocalPacer finds it there rather
	// than in its shard's map. Other Pacers ignore it.
	kept *atomic.Pointer[pace]
}

// A Lease is a request's place in its origin's pace, from Acquire until
// Release.
type Lease struct {
	// Waited is how long Acquire made the request wait, and Throttled
	// tells whether a 429 or 503 answer held it (rather than the interval
	// alone).
	Waited    time.Duration
	Throttled bool
	// OnRelease, if not nil, is called by Release. A Pacer of your own
	// sets it to give the place back; a LocalPacer's Lease needs none.
	OnRelease func()

	h *hold // the place held in a LocalPacer
}

// Release ends the lease: the request's response has ended (its body read
// to the end or closed, or its context done), or the request failed. The
// next request's interval counts from then. The Transport releases every
// Lease it acquires, once; a caller of Acquire must too. A LocalPacer's
// Lease may be released more than once: only the first counts.
func (l Lease) Release() {
	if l.h != nil {
		l.h.end()
	} else if l.OnRelease != nil {
		l.OnRelease()
	}
}

// abandon gives the lease back for a request that was not sent: a
// LocalPacer's next interval does not count from now, and its turn is
// given back when no later one was given.
func (l Lease) abandon() {
	if h := l.h; h != nil {
		h.lp.giveBack(h.p.sh, h.p, h.slot)
		h.lp.release(h.p.sh, h.p, h, false)
	} else if l.OnRelease != nil {
		l.OnRelease()
	}
}

// A PacingError is the error of a request that was not sent because it
// could not go in time: its origin's pace (or MaxRate) would let it go
// after its context's deadline (NotBefore), or its context ended while it
// waited for its turn, or it waited for its origin's robots.txt to be read
// until its deadline was too close for a response (see
// Transport.MinResponseTime). It
// matches the context's error (context.DeadlineExceeded or
// context.Canceled) with errors.Is; it is not a refusal: the URL may be
// requested again, at NotBefore or later.
type PacingError struct {
	Origin string // "https://example.com"
	// NotBefore is the earliest time a request to Origin could be sent
	// when the request gave up: no request could go sooner, though
	// requests under way or queued may delay it further. It is the zero
	// time when nothing told it (the context ended first). Wait is how
	// long that was from when the request gave up.
	NotBefore time.Time
	Wait      time.Duration
	// Throttled tells whether the origin's throttle (a 429 or 503
	// answer) set NotBefore.
	Throttled bool
	Err       error // the context's error

	maxRate float64 // the Transport's MaxRate, when it held the request rather than the origin
	rules   bool    // the request waited for its origin's robots.txt
	// held is how long a response to the origin kept its place while the
	// request waited for it, when it gave up: a body left open holds it
	// until MaxHold.
	held time.Duration
	// left is the time the request had left before its deadline when it
	// gave up waiting for its origin's robots.txt, to leave its response
	// time (MinResponseTime); zero when its context ended.
	left time.Duration
}

// Error says when the origin may next be asked, in a duration from the
// time the request gave up ("in 1.4s"), and why.
func (e *PacingError) Error() string {
	who := e.Origin + " "
	why := "paces its requests"
	switch {
	case e.maxRate > 0:
		who, why = "", "the Transport's MaxRate ("+rateText(e.maxRate)+") holds requests"
	case e.Throttled:
		why = "throttled requests (429 or 503)"
	}
	switch {
	case e.rules && e.left > 0:
		return "robotsguard: request to " + e.Origin + " given up while its robots.txt was being read, " +
			roundWait(e.left).String() + " before its deadline, too close for a response; the fetch goes on, and the request sent again gets its verdict: " + e.Err.Error()
	case e.rules:
		return "robotsguard: request to " + e.Origin + " given up while its robots.txt was being read (the fetch goes on, and the request sent again gets its verdict): " + e.Err.Error()
	case e.NotBefore.IsZero():
		return "robotsguard: request to " + e.Origin + " given up while waiting for its turn (" + who + why + "): " + e.Err.Error()
	}
	if e.held >= time.Second {
		return "robotsguard: " + who + why + ": the request waited " + roundWait(e.held).String() +
			" for a response to it that is not over, until its deadline: " + e.Err.Error() +
			" (a body not read to its end nor closed keeps the origin's place until MaxHold)"
	}
	return "robotsguard: " + who + why + ": the next request may go in " + roundWait(e.Wait).String() +
		", after this request's deadline: " + e.Err.Error()
}

// roundWait rounds d for a person to read: to the millisecond under ten
// seconds, to the second below an hour, to the minute beyond.
func roundWait(d time.Duration) time.Duration {
	switch {
	case d < 10*time.Second:
		return d.Round(time.Millisecond)
	case d < time.Hour:
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}

func (e *PacingError) Unwrap() error { return e.Err }

// endTurn ends a request's turn when its response has ended: when its body
// is read to the end (all of its Content-Length, or to EOF) or closed, or
// when ctx ends (the response is then cut short), whichever comes first.
// b ends the turn (b.h's, or another Pacer's lease through b.done), from
// any goroutine and only once; b becomes the body.
func endTurn(ctx context.Context, resp *http.Response, b *turnBody) {
	if resp.Body == nil || resp.Body == http.NoBody || resp.StatusCode == http.StatusSwitchingProtocols {
		b.ended()
		return
	}
	b.ReadCloser, b.left = resp.Body, resp.ContentLength
	if ctx.Done() != nil {
		b.stop = context.AfterFunc(ctx, b.ended)
	}
	resp.Body = b
}

// turnBody is a response body that ends its request's turn.
type turnBody struct {
	io.ReadCloser
	h        *hold       // the place the request holds in a LocalPacer; nil for another Pacer's lease
	done     func()      // releases another Pacer's lease, once (see doneOnce)
	stop     func() bool // nil when the context cannot end
	doneOnce atomic.Bool
	// left is what remains of the body's Content-Length (-1 when
	// unknown): a reader that has all of it has the whole response,
	// though it may close the body later (a JSON decoder, say).
	left int64
}

func (b *turnBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.left >= 0 {
		b.left -= int64(n)
	}
	if err != nil || b.left == 0 {
		b.end()
	}
	return n, err
}

func (b *turnBody) Close() error {
	err := b.ReadCloser.Close()
	b.end()
	return err
}

func (b *turnBody) end() {
	if b.stop != nil {
		b.stop()
	}
	b.ended()
}

// ended ends the turn: another Pacer's OnRelease is called once, however
// many times the body ends (read to its end, then closed).
func (b *turnBody) ended() {
	if b.h != nil {
		b.h.end()
	} else if !b.doneOnce.Swap(true) {
		b.done()
	}
}

// throttle holds the requests to st's origin after a 429 or 503 answer:
// until the Retry-After it gives, or else for twice as long as after the
// previous one in a row (starting from the interval, at least a second),
// never more than MaxThrottle.
func (t *Transport) throttle(ctx context.Context, st *originState, retryAfter string) {
	now := t.now()
	strikes := st.strikes.Add(1)
	limit := orDefault(t.MaxThrottle, DefaultMaxThrottle)
	wait, ok := parseRetryAfter(retryAfter, now)
	if !ok {
		// Doubled no more than 20 times, and never past limit: a
		// long interval shifted would wrap round to a short wait.
		wait = limit
		if base, n := max(st.every, time.Second), min(max(strikes-1, 0), 20); base <= limit>>n {
			wait = base << n
		}
	}
	if wait > limit || wait < 0 {
		wait = limit
	}
	// The back-off outlives the request: its context's end must not
	// keep a Pacer from recording it.
	t.pacerFor().Throttle(context.WithoutCancel(ctx), st.name(), wait)
}
