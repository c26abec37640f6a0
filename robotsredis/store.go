package robotsredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard/cache"
)

// The Store and Locker: entries as the root package encodes them, under
// keys that put the origin in a hash tag, so that an origin's entry, fetch
// lock and pacing state share one Redis Cluster slot.

var (
	_ cache.Store  = (*Fleet)(nil)
	_ cache.Locker = (*Fleet)(nil)
)

// redisKey returns the Redis key of the cache key k ("robotsguard/e2/" and
// a URL): the same, with the URL's origin in a hash tag,
// "robotsguard/e2/{https://example.com}/robots.txt". A key without an
// origin that can be tagged is left as it is.
func redisKey(k string) string {
	o, ok := originIn(k)
	if !ok {
		return k
	}
	i := strings.Index(k, o)
	return k[:i] + "{" + o + "}" + k[i+len(o):]
}

// originIn returns the origin ("https://example.com") of the URL in the
// cache key k.
func originIn(k string) (string, bool) {
	i := strings.Index(k, "://")
	if i < 0 {
		return "", false
	}
	start := strings.LastIndexByte(k[:i], '/') + 1
	end := i + 3 + strings.IndexAny(k[i+3:]+"/", "/?#")
	o := k[start:end]
	if o == "" || end == i+3 || strings.ContainsAny(o, "{}") {
		return "", false
	}
	return o, true
}

// tag returns the hash tag of an origin, for the pacing keys.
func tag(origin string) string {
	if strings.ContainsAny(origin, "{}") {
		return origin
	}
	return "{" + origin + "}"
}

func lockKey(k string) string { return redisKey(k) + "#lock" }

// Get returns the entry stored under key (a cache.Key), decompressed (see
// encodeValue). A value that does not decode, or that a later version
// wrote in a format this one does not know, is a miss: logged, and
// replaced when the Transport stores the file it fetches instead.
func (f *Fleet) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var b []byte
	err := f.call(ctx, "get", func(ctx context.Context) (err error) {
		b, err = f.Client.Get(ctx, redisKey(key)).Bytes()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := decodeValue(b)
	if err != nil {
		if f.Logger != nil {
			level := slog.LevelWarn
			if errors.Is(err, errFormat) {
				level = slog.LevelDebug // a later version's, in a fleet being upgraded
			}
			f.Logger.Log(ctx, level, "robotsredis: cache entry skipped", "key", redisKey(key), "bytes", len(b), "error", err.Error())
		}
		return nil, false, nil
	}
	return v, true, nil
}

// Set stores value under key (a cache.Key) for ttl, compressed (see
// encodeValue); a ttl of zero or less deletes it.
func (f *Fleet) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return f.call(ctx, "set", func(ctx context.Context) error {
			return f.Client.Del(ctx, redisKey(key)).Err()
		})
	}
	v := encodeValue(value) // before the call: CallTimeout bounds Redis, not deflate
	return f.call(ctx, "set", func(ctx context.Context) error {
		return f.Client.Set(ctx, redisKey(key), v, max(ttl, time.Millisecond)).Err()
	})
}

// TryLock takes the fetch lock of key for ttl (SET NX PX with a random
// token), if no process holds it.
func (f *Fleet) TryLock(ctx context.Context, key string, ttl time.Duration) (string, bool, error) {
	var tok [16]byte
	rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	var ok bool
	err := f.call(ctx, "lock", func(ctx context.Context) (err error) {
		ok, err = f.Client.SetNX(ctx, lockKey(key), token, max(ttl, time.Millisecond)).Result()
		return err
	})
	if err != nil {
		return "", false, err
	}
	return token, ok, nil
}

// unlockScript deletes the lock KEYS[1] if the token ARGV[1] holds it, and
// tells the waiters on the channel ARGV[2].
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('DEL', KEYS[1])
	redis.call('PUBLISH', ARGV[2], KEYS[1])
	return 1
end
return 0`)

// Unlock releases the fetch lock of key if token still holds it, and wakes
// the processes waiting for it.
func (f *Fleet) Unlock(ctx context.Context, key, token string) error {
	return f.call(ctx, "unlock", func(ctx context.Context) error {
		return unlockScript.Run(ctx, f.Client, []string{lockKey(key)}, token, releasedChannel).Err()
	})
}

// Wait returns when the fetch lock of key is free: released (the
// holder's Unlock publishes it), or expired (its holder died). It listens
// for the release on the Fleet's subscription and reads the lock's time to
// live to wake at its expiry, so that it does not poll; should the
// subscription be down, it reads the lock again every maxRecheck, or
// halfway to ctx's deadline when that comes sooner.
func (f *Fleet) Wait(ctx context.Context, key string) error {
	return f.waitFree(ctx, lockKey(key), func(ctx context.Context) (time.Duration, error) {
		return f.Client.PTTL(ctx, lockKey(key)).Result()
	})
}

// maxRecheck is the longest a waiter goes without reading the state it
// waits on: a release published while the subscription was reconnecting is
// lost.
const maxRecheck = time.Second

// waitFree waits until held, which reads how long the thing named name
// stays held (zero or less: free), says it is free, waking on the
// notifications of name's release, at the expiry held gives, or after
// maxRecheck, whichever is first.
func (f *Fleet) waitFree(ctx context.Context, name string, held func(context.Context) (time.Duration, error)) error {
	f.init()
	wake, stop := f.notify.watch(ctx, name)
	defer stop()
	for {
		var d time.Duration
		err := f.call(ctx, "wait", func(ctx context.Context) (err error) {
			d, err = held(ctx)
			return err
		})
		if err != nil {
			return err
		}
		if d <= 0 {
			return nil // -2: no key; -1: no expiry, which this package never sets
		}
		wait := min(d, maxRecheck)
		if dl, ok := ctx.Deadline(); ok {
			// A waiter with little time left reads again before it
			// gives up, however short its wait.
			wait = min(wait, max(time.Until(dl)/2, 10*time.Millisecond))
		}
		tm := time.NewTimer(wait)
		select {
		case <-wake:
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		}
		tm.Stop()
	}
}
