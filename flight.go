package robotsguard

import (
	"context"
	"errors"
	"fmt"
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
// an origin share one fetch; each stops waiting when its own context ends,
// or when the fetch outlasts its budget (a Base or Store that ignores its
// context): the stale copy, if one may stand in, or else an unreachable
// state decides then.
func (t *Transport) lookup(ctx context.Context, o origin, dial, ua string, now time.Time) (st *originState, waited bool, err error) {
	k := t.robotsKey(o, ua)
	if st := t.cached(k); st != nil && st.fresh(now) {
		return st, false, nil
	}
	t.counters.misses.Add(1)
	f := t.join(k, dial, ua)
	timer := getTimer(t.fetchBudget())
	defer putTimer(timer)
	select {
	case <-f.done:
		return f.st, true, nil
	case <-ctx.Done():
		return nil, true, fmt.Errorf("robotsguard: waiting for %s: %w", o.robotsURL(), ctx.Err())
	case <-timer.C:
		return t.stuck(k), true, nil
	}
}

// A flight is a refresh of an origin's state under way, which every request
// that needs the state waits for.
type flight struct {
	done chan struct{} // closed once st is set
	st   *originState
}

// join returns the flight that refreshes the state k names, starting it
// (fetching from host dial, if not empty, as agent ua) unless one is under
// way. The fetch outlives the request that started it, as others may wait
// on it, so it takes neither its cancellation nor its values (such as an
// httptrace.ClientTrace that belongs to that request).
func (t *Transport) join(k stateKey, dial, ua string) *flight {
	t.flightMu.Lock()
	f := t.flights[k]
	if f != nil {
		t.flightMu.Unlock()
		return f
	}
	if t.flights == nil {
		t.flights = map[stateKey]*flight{}
	}
	f = &flight{done: make(chan struct{})}
	t.flights[k] = f
	t.flightMu.Unlock()
	j := job{t, k, f, dial, ua}
	started.Add(1)
	select {
	case jobs <- j: // an idle flier takes it
	default:
		go flier(j)
	}
	return f
}

// A job is a flight to run, with what fly needs.
type job struct {
	t        *Transport
	k        stateKey
	f        *flight
	dial, ua string
}

// Fliers are the goroutines that run flights, for every Transport of the
// process. A flier that is done waits for another flight, unless
// maxIdleFliers wait already: a new goroutine per fetch would grow its
// stack, deep in the fetch, every time. Idle fliers wait on a plain
// receive, without a timer each (a select on a timer costs every flight
// its timer's arming): one timer for all, the reaper's, ends them once no
// flight was started for flierIdle, so that they end flierIdle to twice
// that after the last one. An idle flier holds no Transport.
const (
	maxIdleFliers = 4
	flierIdle     = time.Second
)

var (
	jobs       = make(chan job) // flights handed to idle fliers; a job without a Transport ends one
	idleFliers atomic.Int32
	started    atomic.Uint64 // flights started, ever
	reaper     struct {
		armed atomic.Bool
		seen  atomic.Uint64 // started, when it was armed
		once  sync.Once
		timer *time.Timer // calls reap; made once
	}
)

// flier runs j, and then the jobs it is handed while it waits.
func flier(j job) {
	for {
		j.t.fly(j.k, j.f, j.dial, j.ua)
		j = job{}
		if idleFliers.Add(1) > maxIdleFliers {
			idleFliers.Add(-1)
			return
		}
		armReaper()
		j = <-jobs
		idleFliers.Add(-1)
		if j.t == nil {
			return // from reap
		}
	}
}

// armReaper arms the reaper's timer, unless it is armed.
func armReaper() {
	if !reaper.armed.CompareAndSwap(false, true) {
		return
	}
	reaper.seen.Store(started.Load())
	reaper.once.Do(func() { reaper.timer = time.AfterFunc(flierIdle, reap) })
	reaper.timer.Reset(flierIdle)
}

// reap ends the idle fliers when no flight was started since the reaper
// was armed, and arms it again while fliers are idle.
func reap() {
	if started.Load() == reaper.seen.Load() {
	end:
		for {
			select {
			case jobs <- job{}:
			default:
				break end
			}
		}
	}
	reaper.armed.Store(false)
	if idleFliers.Load() > 0 { // a flier that went idle meanwhile finds it disarmed, or this arms it
		armReaper()
	}
}

// fly runs flight f.
func (t *Transport) fly(k stateKey, f *flight, dial, ua string) {
	defer func() {
		t.flightMu.Lock()
		delete(t.flights, k)
		t.flightMu.Unlock()
		close(f.done)
	}()
	f.st = t.refresh(k, dial, ua)
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
// FetchTimeout, another for the permissions references with ACAP on, and a
// quarter more, so that a fetch that ends on time is never cut short.
func (t *Transport) fetchBudget() time.Duration {
	d := t.fetchTimeout() + t.fetchTimeout()/4
	if t.ACAP != nil {
		d += t.fetchTimeout()
	}
	return d
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
