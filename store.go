package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/robotsguard/robotsguard/cache"
)

// Calls to the Store: each bounded by its context whatever the Store does,
// a panic in one recovered, and what comes back checked like any input
// from elsewhere.

// maxSkew is how far ahead of the clock an entry in the Store may have been
// received: clocks of a fleet differ a little.
const maxSkew = 5 * time.Minute

// load reads the entry for url from the Store, if there is one usable,
// within a quarter of FetchTimeout (and of ctx). An
// entry is data from elsewhere: one that does not decode, or was encoded
// by another version, is skipped (and left in place); one received further
// ahead of now than maxSkew is ignored; other times ahead of now are
// brought back to now (a retry time, to the longest back-off), so that a
// skewed clock or a bad entry cannot keep a copy fresh, or an origin
// blocked, for long.
func (t *Transport) load(ctx context.Context, url string, now time.Time) *cache.Entry {
	if t.Store == nil {
		return nil
	}
	// A quarter of the fetch's budget: a slow Store leaves the rest to
	// the fetch.
	ctx, cancel := context.WithTimeout(ctx, t.fetchTimeout()/4)
	defer cancel()
	var b []byte
	var ok bool
	err := t.storeCall(ctx, func(ctx context.Context) (err error) {
		b, ok, err = t.Store.Get(ctx, cache.Key(url))
		return err
	})
	if err != nil {
		t.storeFailed("get", url, err)
		return nil
	}
	if !ok {
		return nil
	}
	var e cache.Entry
	err = e.UnmarshalBinary(b)
	if err == nil && len(e.Body) > t.maxSize()+1 {
		err = fmt.Errorf("robotsguard: a body of %d bytes, over the size limit", len(e.Body))
	}
	if err != nil {
		level := slog.LevelWarn
		if errors.Is(err, cache.ErrVersion) {
			level = slog.LevelDebug
		}
		t.log(level, "skipping a cache entry that cannot be read", "url", url, "error", err)
		return nil
	}
	if e.Received.Sub(now) > maxSkew || e.FailingSince.Sub(now) > maxSkew {
		t.log(slog.LevelWarn, "ignoring a cache entry from the future", "url", url, "received", e.Received)
		return nil
	}
	for _, tm := range []*time.Time{&e.Requested, &e.Received, &e.FailingSince} {
		if tm.After(now) {
			*tm = now
		}
	}
	if limit := now.Add(maxRetryAfter); e.RetryAt.After(limit) {
		e.RetryAt = limit
	}
	return &e
}

// save writes the entry for url to the Store, if there is one, for as
// long as it may be of use, within a quarter of FetchTimeout (and of ctx).
func (t *Transport) save(ctx context.Context, url string, e *cache.Entry) {
	if t.Store == nil {
		return
	}
	b, err := e.MarshalBinary()
	if err != nil {
		return
	}
	ttl := t.cachePolicy().Expiry(e).Sub(t.now())
	if ttl <= 0 {
		return
	}
	// A quarter of the fetch's budget too, at most what is left of it:
	// the requests waiting on the fetch wait for this call.
	ctx, cancel := context.WithTimeout(ctx, t.fetchTimeout()/4)
	defer cancel()
	err = t.storeCall(ctx, func(ctx context.Context) error {
		return t.Store.Set(ctx, cache.Key(url), b, ttl)
	})
	if err != nil {
		t.storeFailed("set", url, err)
	}
}

// maxStoreCalls is the number of Store calls that may be under way at
// once; more are skipped. A call that does not return when its context
// ends keeps its slot until it does, so a Store that hangs costs a bounded
// number of goroutines, and then no more calls.
const maxStoreCalls = 64

var errStoreBusy = errors.New("robotsguard: too many Store calls under way")

// storeCall runs f, a call to the Store, and returns its error, or ctx's
// when ctx ends first, or a *PanicError when f panics, or errStoreBusy
// without calling it when maxStoreCalls are under way. A call that does
// not return when ctx ends is left to finish on its own.
func (t *Transport) storeCall(ctx context.Context, f func(context.Context) error) error {
	select {
	case t.storeSlots <- struct{}{}:
	default:
		return errStoreBusy
	}
	done := make(chan error, 1)
	go func() {
		defer func() { <-t.storeSlots }()
		defer func() {
			if v := recover(); v != nil {
				done <- &PanicError{Value: v, Stack: debug.Stack()}
			}
		}()
		done <- f(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *Transport) storeFailed(op, url string, err error) {
	t.counters.storeErrors.Add(1)
	t.log(slog.LevelWarn, "cache store failed", "op", op, "url", url, "error", fmt.Sprint(err))
}

func (t *Transport) log(level slog.Level, msg string, args ...any) {
	if t.Logger == nil {
		return
	}
	t.Logger.Log(context.Background(), level, msg, args...)
}

// maxElections bounds the times elect tries the lock: a Locker whose Wait
// returns while another holds the lock would otherwise keep it spinning.
const maxElections = 8

// elect makes this process the one of the fleet that fetches url (whose
// last known entry is old), through the Store's cache.Locker. It returns
// an entry another process stored meanwhile, when one decides (the one the
// fetch would have been), or else the function that releases the lock this
// process took, if any, once the fetch is stored. It spends a quarter of
// FetchTimeout at most (and no more than ctx) waiting for other processes'
// fetches, and then lets this one fetch: an error, a slow holder or one
// that died costs a fetch, never a request the rules refuse. When another
// process holds the lock and old may stand in for the file while it
// revalidates it (see mayStandIn), elect returns at once with busy true
// instead of waiting.
func (t *Transport) elect(ctx context.Context, l cache.Locker, url string, old *cache.Entry) (e *cache.Entry, unlock func(), busy bool) {
	nop := func() {}
	wctx, cancel := context.WithTimeout(ctx, t.fetchTimeout()/4)
	defer cancel()
	key := cache.Key(url)
	for range maxElections {
		var token string
		var held bool
		err := t.storeCall(wctx, func(ctx context.Context) (err error) {
			deadline, _ := ctx.Deadline()
			ttl := max(time.Until(deadline)+t.fetchTimeout(), time.Millisecond) // past the fetch and the save
			token, held, err = l.TryLock(ctx, key, ttl)
			return err
		})
		if err != nil {
			t.storeFailed("lock", url, err)
			return nil, nop, false
		}
		if held {
			unlock := func() {
				uctx, cancel := context.WithTimeout(context.Background(), t.fetchTimeout()/4)
				defer cancel()
				if err := t.storeCall(uctx, func(ctx context.Context) error { return l.Unlock(ctx, key, token) }); err != nil {
					t.storeFailed("unlock", url, err)
				}
			}
			// The last holder may have stored the entry just before it
			// released the lock.
			if e := t.load(wctx, url, t.now()); e != nil && newer(e, old) && t.decisive(e, t.now()) {
				unlock()
				return e, nop, false
			}
			return nil, unlock, false
		}
		if t.mayStandIn(old, t.now()) {
			return nil, nop, true
		}
		if err := t.storeCall(wctx, func(ctx context.Context) error { return l.Wait(ctx, key) }); err != nil {
			if wctx.Err() == nil {
				t.storeFailed("wait", url, err)
			} else if ctx.Err() == nil {
				t.log(slog.LevelInfo, "another process's fetch outlasted the wait for it; fetching", "url", url, "waited", t.fetchTimeout()/4)
			}
			return nil, nop, false
		}
		if e := t.load(wctx, url, t.now()); e != nil && newer(e, old) && t.decisive(e, t.now()) {
			return e, nop, false
		}
		// The holder stored nothing that decides (it failed, or died):
		// the lock is free, and the next try may take it.
	}
	t.log(slog.LevelInfo, "other processes took the fetch lock and stored nothing that decides, again and again; fetching", "url", url, "tries", maxElections)
	return nil, nop, false
}

// standInStep is how long a stale copy standing in for a file that
// another process revalidates is used before this process looks in the
// Store again for the new one.
const standInStep = time.Second

// mayStandIn reports whether old, this process's last entry of a file,
// may be used at now, stale, while another process of the fleet
// revalidates the file (stale-while-revalidate across the fleet): a
// response, not a failure, stale for less than its grace (see
// standInEnd), which the cache policy lets stand in for the file (under a
// Strict policy, not one marked must-revalidate or no-cache).
func (t *Transport) mayStandIn(old *cache.Entry, now time.Time) bool {
	if old == nil || old.Failures > 0 || old.Status == 0 {
		return false
	}
	return now.Before(t.standInEnd(old)) && t.cachePolicy().UsableStale(old, now)
}

// standInEnd returns when e, stale, may no longer stand in for its file
// while another process revalidates it: a quarter of FetchTimeout past
// its lifetime (the longest this process would have waited for that
// process's fetch instead), or its lifetime again if shorter, so that a
// copy is never used past twice its lifetime. RFC 9309 §2.4 asks a
// crawler not to use a copy older than 24 hours; one is used beyond its
// lifetime only while the fleet's fetch of it is under way, as a request
// waiting on that fetch would have been decided by the old rules had it
// come a moment earlier.
func (t *Transport) standInEnd(e *cache.Entry) time.Time {
	until := t.cachePolicy().Freshness(e).Until
	lifetime := max(until.Sub(e.Received), 0)
	return until.Add(min(t.fetchTimeout()/4, lifetime))
}

// standIn returns old, a stale copy of the file at url that another
// process revalidates, as the result of obtaining it at now: used until
// this process looks again for the new one in the Store, standInStep
// later, or until it may no longer stand in (standInEnd), when this
// process waits for the revalidation as a cold file's fetch is waited
// for.
func (t *Transport) standIn(url string, old *cache.Entry, now time.Time) fetchResult {
	until := now.Add(standInStep)
	if end := t.standInEnd(old); end.Before(until) {
		until = end
	}
	t.log(slog.LevelDebug, "stale copy stands in while another process revalidates it", "url", withoutFragment(url), "until", until)
	return fetchResult{entry: old, until: until}
}
