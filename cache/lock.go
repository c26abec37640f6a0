package cache

import (
	"context"
	"time"
)

// A Locker is a Store that can also elect, among the processes sharing it,
// the one that fetches a resource, so that a fleet fetches each robots.txt
// once however many of its processes need it. A Store may implement it;
// the transport uses it when it does.
//
// When the transport finds no fresh entry under a key, it calls TryLock
// with that key and, when it gets the lock, loads the entry once more (the
// last holder may just have stored it), fetches, stores the result, and
// calls Unlock. When another process holds the lock, it uses its own
// stale copy, if it has one that may stand in (see the transport's
// Store), and loads the entry again a moment later; or else it calls
// Wait, then loads the entry: one stored meanwhile is used; otherwise
// (the holder failed, or died and its lock expired) it tries the lock
// again. It waits a quarter of the fetch's time-out at most, and then
// fetches the file itself: a Locker saves fetches, it never decides
// whether a request is sent. Every error of these methods means "fetch it
// yourself".
//
// The lock of a key is the Locker's own: it does not change the entry
// under the key. Calls get contexts whose deadlines bound them, as those of
// a Store do.
type Locker interface {
	Store

	// TryLock takes the lock of key for ttl, if no one holds it, and
	// returns the token that releases it; ok is false, with a nil error,
	// when another holds it. A lock not released is released when its ttl
	// ends, so that a holder that dies blocks no one for long.
	TryLock(ctx context.Context, key string, ttl time.Duration) (token string, ok bool, err error)

	// Unlock releases the lock of key if token still holds it (the lock
	// may have expired and been taken by another since), and wakes the
	// callers of Wait.
	Unlock(ctx context.Context, key, token string) error

	// Wait returns when the lock of key is not held (released, expired,
	// or never taken), or when ctx ends, with ctx's error then.
	Wait(ctx context.Context, key string) error
}
