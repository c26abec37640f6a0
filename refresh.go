package robotsguard

import (
	"bytes"
	"context"
	"errors"
	"runtime/debug"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/policy"
)

// Refreshing an origin's state: from the Store when another Transport
// fetched the file, else by fetching it (fetcher.go), then parsing it and
// building the state that requests decide by (state.go).

// parsed is what a robots.txt body holds: its rules, and the signals'
// parts (see signal), as Transport.signals orders them.
type parsed struct {
	robots  *policy.Robots
	signals []signalPart
}

// parse parses e's body, when its status says the rules apply, and reads
// the signals' parts of it (fetching the files they read that are not
// fresh in memory).
func (t *Transport) parse(o origin, e *cache.Entry, dial, ua string) parsed {
	if e.Status == 0 || t.statusPolicy()(e.Status) != AccessRules {
		return parsed{}
	}
	return parsed{robots: t.Parser.Parse(e.Body), signals: t.readSignals(robotsRead{o, dial, ua, e.Body}, nil)}
}

// refresh brings o's state up to date: from memory, if another caller did
// meanwhile; from the Store, if another Transport fetched the file (or
// backs off from it); else by fetching it. A panic on the way (in Base,
// the StatusPolicy or the library) fails the fetch instead of the process,
// and never leaves the origin with fewer rules than it had.
func (t *Transport) refresh(k stateKey, dial, ua string) (st *originState) {
	o := k.origin
	start := t.now()
	prev := t.cached(k)
	if prev != nil && prev.fresh(start) {
		return prev
	}
	var old *cache.Entry
	if prev != nil {
		old = prev.full()
	}
	defer func() {
		if v := recover(); v != nil {
			st = t.panicked(k, prev, old, &FetchError{URL: o.robotsURL(), Err: &PanicError{Value: v, Stack: debug.Stack()}})
		}
	}()
	var url string // the Store's key, and the events'
	if t.Store != nil || t.observed() {
		url = k.storeURL()
	}
	wall := start // the deadline is in real time, whatever the Clock
	if t.Clock != nil {
		wall = time.Now()
	}
	res := t.obtain(o, url, start, wall.Add(t.fetchTimeout()), old, func(ctx context.Context, old *cache.Entry) fetchResult {
		return t.fetch(ctx, o, dial, ua, old)
	})
	st = t.keep(k, res.entry, res.err, t.parseFor(o, res.entry, prev, dial, ua), res.until)
	if st.bodyless {
		putBodyBuf(res.buf) // parsed, and dropped
	}
	return st
}

// panicked returns the state of o after its refresh panicked with err: a
// failure that keeps the last rules, when they are what the entry holds,
// and is unreachable otherwise.
func (t *Transport) panicked(k stateKey, prev *originState, old *cache.Entry, err error) (st *originState) {
	o := k.origin
	defer func() {
		if recover() != nil { // the StatusPolicy, the Observer or the Logger again
			st = t.newState(k, &cache.Entry{Failures: 1, Err: err.Error()}, err, parsed{})
		}
	}()
	res := t.failed(old, nil, err)
	e := res.entry
	p := parsed{}
	if prev != nil && prev.parsed && prev.sameBody(e) {
		p = parsed{robots: prev.robots, signals: prev.more.signals}
	} else if e.Status != 0 {
		n := *e
		n.Status, n.Body, n.Header = 0, nil, nil // rules that were never parsed: none stands in
		e = &n
	}
	st = t.keep(k, e, err, p, time.Time{})
	t.fetched(FetchEvent{URL: o.robotsURL(), Origin: o.String(), Outcome: OutcomeFailed, Err: err})
	return st
}

// obtain returns the entry for the resource at url (a robots.txt, or a
// permissions reference of o's) at start, given old, the last one known:
// the Store's, when another Transport fetched it since and it is fresh, or
// when it is backing off from a failure; else the result of fetch, saved
// to the Store. It ends by deadline (real time, whatever the Clock): the
// Store takes a quarter of FetchTimeout at most before the fetch, and the
// last quarter before the deadline after it.
func (t *Transport) obtain(o origin, url string, start, deadline time.Time, old *cache.Entry, fetch func(context.Context, *cache.Entry) fetchResult) fetchResult {
	fetchBy := deadline
	if t.Store != nil {
		fetchBy = deadline.Add(-t.fetchTimeout() / 4)
	}
	ctx := newDeadlineCtx(fetchBy)
	defer ctx.cancel()
	if e := t.load(ctx, url, start); e != nil && newer(e, old) {
		if t.decisive(e, start) {
			return t.fromStore(o, url, e)
		}
		old = e
	}
	// A file still fresh (with ACAP on, here only for its references) is
	// not fetched again.
	if old != nil && old.Failures == 0 && old.Status != 0 && start.Before(t.cachePolicy().Freshness(old).Until) {
		return fetchResult{entry: old}
	}
	if l, ok := t.Store.(cache.Locker); ok {
		e, unlock, busy := t.elect(ctx, l, url, old)
		defer unlock()
		if e != nil {
			return t.fromStore(o, url, e)
		}
		if busy {
			return t.standIn(url, old, start)
		}
	}
	res := fetch(ctx, old)
	if t.observed() {
		ev := t.fetchEvent(url, o, res.outcome, res.entry, res.err, t.now().Sub(start))
		ev.Warning = res.warn
		t.fetched(ev)
	} else {
		t.fetched(FetchEvent{Outcome: res.outcome}) // the counters alone
	}
	if t.Store == nil || !t.cachePolicy().Storable(res.entry) {
		return res
	}
	res.buf = nil // the Store may keep the body
	// The fetch's context may be over (a time-out): the Store keeps the
	// quarter of the budget left for it.
	sctx, scancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer scancel()
	if res.err != nil {
		// A failure does not replace a newer success another process
		// stored meanwhile: that one is used.
		if e := t.load(sctx, url, t.now()); e != nil && e.Failures == 0 && e.Received.After(res.entry.Received) {
			return fetchResult{entry: e, outcome: OutcomeFromStore}
		}
	}
	t.save(sctx, url, res.entry)
	return res
}

// decisive reports whether e, an entry from the Store, decides at now
// without a fetch: a fresh response, or a failure whose back-off lasts.
func (t *Transport) decisive(e *cache.Entry, now time.Time) bool {
	return e.Failures == 0 && e.Status != 0 && now.Before(t.cachePolicy().Freshness(e).Until) ||
		e.Failures > 0 && now.Before(e.RetryAt)
}

// fromStore reports e, a decisive entry from the Store, and returns it as
// the result of a fetch of url.
func (t *Transport) fromStore(o origin, url string, e *cache.Entry) fetchResult {
	if e.Failures > 0 {
		// Another process failed and backs off: so does this one. (The
		// state takes the failure from the entry's Err.)
		t.fetched(FetchEvent{URL: withoutFragment(url), Origin: o.String(), Outcome: OutcomeFromStore, Err: errors.New(e.Err)})
	} else {
		t.fetched(t.fetchEvent(url, o, OutcomeFromStore, e, nil, 0))
	}
	return fetchResult{entry: e, outcome: OutcomeFromStore}
}

// newer reports whether e, from the Store, tells more than old: a response
// received later, or a back-off that lasts longer.
func newer(e, old *cache.Entry) bool {
	return old == nil || e.Received.After(old.Received) || e.Failures > 0 && e.RetryAt.After(old.RetryAt)
}

// sameBody reports whether a and b hold the same response body, with the
// same kind of status.
func sameBody(a, b *cache.Entry) bool {
	return a.Status/100 == b.Status/100 && bytes.Equal(a.Body, b.Body)
}

// sameBody reports whether e, the result of a fetch, holds st's body.
// When st dropped its body, e holds it when it comes from st's entry (a
// revalidation, a failure that keeps it): then it has no body either, as
// no fetch or Store returns a 2xx without one.
func (st *originState) sameBody(e *cache.Entry) bool {
	if st.bodyless {
		return e.Body == nil && e.Status/100 == int(st.status)/100
	}
	own := st.entry()
	return sameBody(e, &own)
}

// parseFor parses e for o as parse does, reusing the parse of prev when e
// holds the same body (a revalidation, a copy standing in for a failure):
// only the files the signals' parts read are read again.
func (t *Transport) parseFor(o origin, e *cache.Entry, prev *originState, dial, ua string) parsed {
	if prev == nil || !prev.parsed || e.Status == 0 || !prev.sameBody(e) {
		return t.parse(o, e, dial, ua)
	}
	return parsed{robots: prev.robots, signals: t.readSignals(robotsRead{o, dial, ua, e.Body}, prev.more.signals)}
}

// keep builds o's state and holds it in memory, unless the cache policy
// forbids storing it. A state is used without a new fetch until until,
// when it is not zero, or else for as long as e says.
func (t *Transport) keep(k stateKey, e *cache.Entry, err error, p parsed, until time.Time) *originState {
	st := t.newState(k, e, err, p)
	if !until.IsZero() {
		st.until = stampOf(until)
	}
	if asked, ok := t.capped(st, k); ok {
		t.noteCapped(st, k, asked)
	}
	if t.cachePolicy().Storable(e) {
		t.states.Set(k, st)
	} else {
		t.states.Delete(k)
	}
	return st
}

// capped returns the pause that st's rules ask of the agent of k, when it
// is above MaxDelay and the Transport crawls at MaxDelay rather than
// refuse (RefuseAboveMaxDelay).
func (t *Transport) capped(st *originState, k stateKey) (time.Duration, bool) {
	if t.RefuseAboveMaxDelay || t.NoPacing || st.robots == emptyRobots {
		return 0, false
	}
	g := st.group
	if t.UserAgent == "" {
		g = st.robots.Group(k.agent)
	}
	d, ok := askedDelay(g)
	return d, ok && d > t.maxDelay()
}

// noteCapped tells the Observer and the Logger that st's rules ask the
// agent of k for asked between requests, more than MaxDelay: once per
// origin and agent, unless the state it replaces asked the same.
func (t *Transport) noteCapped(st *originState, k stateKey, asked time.Duration) {
	if prev := t.cached(k); prev != nil {
		if d, ok := t.capped(prev, k); ok && d == asked {
			return
		}
	}
	agent := k.agent
	if t.UserAgent != "" {
		agent = strings.ToLower(t.token)
	}
	t.delayCapped(DelayEvent{Origin: st.name(), Agent: agent, Asked: asked, Applied: t.maxDelay()})
}
