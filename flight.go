package robotsguard

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsguard/robotsguard/cache"
)

// Finding an origin's state: from memory while it is fresh, or else by
// joining the one refresh of it under way (refresh.go), however many
// requests wait for it, each within its own context and the fetch's
// budget.

// lookup returns the state of origin o's robots.txt at now, fetching the
// file (from host dial, if not empty, as agent ua) when the cache has no
// usable state, and whether it waited for a fetch. Concurrent requests for
// an origin share one fetch (a flight of t.flights); each stops waiting
// when its own context ends, or when the fetch outlasts its budget (a Base
// or Store that ignores its context): the stale copy, if one may stand in,
// or else an unreachable state decides then. The fetch outlives the
// request that started it, as others may wait on it, so it takes neither
// its cancellation nor its values (such as an httptrace.ClientTrace that
// belongs to that request): refresh makes a context of its own.
//
// A request to be sent leaves its response time before its deadline: with
// leave > 0, it stops waiting when no more than leave remains, as a
// request waiting for its turn does (Transport.MinResponseTime). A request
// whose deadline is closer than twice leave spends all but 50 ms of it
// (half, if it had less than 100 ms): a short deadline is its own.
func (t *Transport) lookup(ctx context.Context, o origin, dial, ua string, now time.Time, leave time.Duration) (st *originState, waited bool, err error) {
	k := t.robotsKey(o, ua)
	if st := t.cached(k); st != nil && st.fresh(now) {
		return st, false, nil
	}
	t.counters.misses.Add(1)
	done := t.onFlier(k, dial, ua)
	timer := getTimer(t.fetchBudget())
	defer putTimer(timer)
	var giveUp <-chan time.Time
	if deadline, ok := ctx.Deadline(); ok && leave > 0 {
		left := time.Until(deadline)
		if left < 2*leave {
			leave = min(minSendTime, left/2)
		}
		gt := getTimer(left - leave)
		defer putTimer(gt)
		giveUp = gt.C
	}
	select {
	case st := <-done:
		flierDone.Put(done) // emptied: received
		return st, true, nil
	case <-ctx.Done():
		// Not sent, and not refused: the URL may be asked for again.
		return nil, true, &PacingError{Origin: o.String(), Err: ctx.Err(), rules: true}
	case <-giveUp:
		return nil, true, &PacingError{Origin: o.String(), Err: context.DeadlineExceeded, rules: true, left: leave}
	case <-timer.C:
		return t.stuck(k), true, nil
	}
}

// onFlier has a flier, a goroutine whose stack grew deep in an earlier
// fetch, join the flight of k in t.flights (see refresh), and returns the
// channel that receives its state. The flier runs the refresh if no flight
// of k is under way, else waits in singleflight's Do for the one that is:
// each request that waits has a flier of its own. The request waits on
// the channel, and may stop waiting (the channel is then dropped, and the
// flier's send into its room is lost). A goroutine per flight (DoChan's)
// would grow its stack, deep in the fetch, every time (31,000
// instructions of a cold origin's 106,000, BenchmarkColdOrigin,
// cachegrind), and hand the state over twice more. A flier that is done
// waits for the next job, unless maxIdleFliers wait already, and ends when
// none comes for flierIdle. An idle flier holds no Transport.
func (t *Transport) onFlier(k stateKey, dial, ua string) chan *originState {
	done := flierDone.Get().(chan *originState)
	j := flierJob{t: t, k: k, dial: dial, ua: ua, done: done}
	select {
	case jobs <- j: // an idle flier takes it
	default:
		go flier(j)
	}
	return done
}

// A flierJob is a refresh for a flier to run, and where its result goes.
type flierJob struct {
	t        *Transport
	k        stateKey
	dial, ua string
	done     chan *originState // room for one
}

// run joins j's flight, and sends its state on j.done.
func (j flierJob) run() {
	t, k := j.t, j.k
	v, _, _ := t.flights.Do(k.flightKey(), func() (any, error) { return t.refresh(k, j.dial, j.ua), nil })
	j.done <- v.(*originState)
}

// flierDone holds the channels that fliers hand their results back on,
// each emptied before it is put back (by the request that received).
var flierDone = sync.Pool{New: func() any { return make(chan *originState, 1) }}

const (
	maxIdleFliers = 4
	flierIdle     = time.Second
)

var (
	jobs       = make(chan flierJob) // jobs handed to idle fliers
	idleFliers atomic.Int32
)

// flier runs j, and then the jobs it is handed while it waits, for
// flierIdle at most between two.
func flier(j flierJob) {
	idle := time.NewTimer(flierIdle)
	defer idle.Stop()
	for {
		j.run()
		j = flierJob{}
		if idleFliers.Add(1) > maxIdleFliers {
			idleFliers.Add(-1)
			return
		}
		idle.Reset(flierIdle)
		select {
		case j = <-jobs:
			idleFliers.Add(-1)
		case <-idle.C:
			idleFliers.Add(-1)
			return
		}
	}
}

// flightKey returns the name of k's flight in Transport.flights: what
// tells two keys apart, in a string.
func (k stateKey) flightKey() string {
	scheme := "http://"
	if k.origin.https {
		scheme = "https://"
	}
	return scheme + k.origin.host + "\x00" + k.path + "\x00" + k.agent
}

// timers holds stopped timers, for the waits of lookup.
var timers sync.Pool

// getTimer returns a timer that fires after d; putTimer stops it and keeps
// it for another.
func getTimer(d time.Duration) *time.Timer {
	if tm, ok := timers.Get().(*time.Timer); ok {
		tm.Reset(d) // a stopped timer's channel is empty (Go 1.23)
		return tm
	}
	return time.NewTimer(d)
}

func putTimer(tm *time.Timer) {
	tm.Stop()
	timers.Put(tm)
}

// fetchBudget is the longest a request waits for a fetch of a robots.txt:
// FetchTimeout, the time the signals may spend on their files (another
// FetchTimeout for ACAP's permissions references), and a quarter more, so
// that a fetch that ends on time is never cut short.
func (t *Transport) fetchBudget() time.Duration {
	return t.fetchTimeout() + t.fetchTimeout()/4 + t.signalBudget()
}

var errStuck = errors.New("robotsguard: the fetch outlasted FetchTimeout: Base or the Store does not honour its context")

// stuck returns the state that decides for o while its fetch outlasts its
// budget: the last one, if its copy may stand in, or else an unreachable
// one, which is not cached.
func (t *Transport) stuck(k stateKey) *originState {
	o := k.origin
	now := t.now()
	if prev := t.cached(k); prev != nil && prev.status != 0 && t.usableStale(prev, now) {
		return prev
	}
	err := &FetchError{URL: o.robotsURL(), Err: errStuck}
	return t.newState(k, &cache.Entry{Failures: 1, FailingSince: now, RetryAt: now, Err: err.Error()}, err, parsed{})
}
