package robotsredis

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// peekScript reads, on Redis's clock, how long a request to the origin
// would wait for its slot were it reserved now: the later of "next" (the
// first free slot) and "nb" (the end of a back-off), less Redis TIME, in
// µs, 0 when both have passed or are unset. It writes nothing. Pace state
// that asks for more than ARGV[1] µs is corrupt (a reservation would
// delete it): the answer is -2 then.
//
// KEYS: pace. ARGV: the longest delay µs.
var peekScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local v = redis.call('HMGET', KEYS[1], 'next', 'nb')
local wait = math.max(tonumber(v[1]) or 0, tonumber(v[2]) or 0) - now
if wait > tonumber(ARGV[1]) then
	return -2
end
return string.format('%.0f', math.max(wait, 0))`)

// peeker is a Fallback that tells, as Peek does, how long a request would
// wait for its turn (crawl.Peeker: the root package's crawl may not be
// imported here, which the tests do instead).
type peeker interface {
	Peek(ctx context.Context, origin string) (time.Duration, error)
}

// Peek tells, without reserving anything, how long a request to origin
// would wait for its slot were it asked for now: zero when it could go at
// once. It makes a crawl.Frontier (whose Transport's Pacer is the Fleet)
// learn the turns the fleet's other processes take, and the fleet's
// throttles (Throttle, from any process), before it hands out the
// origin's next URL.
//
// While Redis answers, it costs one round trip, bounded by CallTimeout and
// counted by the circuit breaker as every call is: a read-only script
// reads the origin's next free slot and the end of its back-off on Redis's
// clock (see Acquire); the answer is the later of the two, less Redis's
// now, and never sooner than an interval after the process's own last
// request to the origin was sent or ended, as Acquire would reserve it.
//
// Peek knows no PaceRequest: not the request's Limit, so it does not tell
// whether one of the origin's places is free (the requests under way
// across the fleet, and those queued for a place, may make a request wait
// longer: its Acquire waits for its turn in the queue); and not its
// Interval, only the slot the last reservation left free. A slot it
// reports free may be taken by another process before the request asks.
//
// When Redis is out of reach (the circuit is open, or the call fails),
// Peek answers from the process's own record, as Acquire would pace the
// request alone: Size intervals after its last request to the origin was
// sent or ended, in the process's window of the cycle (see Rank), and no
// sooner than Fallback says if it has a Peek method of the same signature.
// It never fails then. It fails only when ctx ends, with ctx's error.
func (f *Fleet) Peek(ctx context.Context, origin string) (time.Duration, error) {
	f.init()
	var µs int64
	err := f.call(ctx, "peek", func(ctx context.Context) (err error) {
		µs, err = peekScript.Run(ctx, f.Client, []string{paceKey(origin)}, maxDelay.Microseconds()).Int64()
		return err
	})
	if err == nil && (µs < 0 || µs > maxDelay.Microseconds()) {
		err = fmt.Errorf("robotsredis: peek: the script answered %d, not a wait", µs)
	}
	now := time.Now()
	if err == nil {
		d := time.Duration(µs) * time.Microsecond
		if own := f.sent.sinceOwn(origin, f.size(), now); own > d {
			d = own
		}
		return d, nil
	}
	if ctx.Err() != nil {
		return 0, fmt.Errorf("robotsredis: peek: %w", ctx.Err())
	}
	return f.peekAlone(ctx, origin, now), nil
}

// peekAlone is Peek's answer while Redis is out of reach, at now: when the
// process's next request to origin paced alone could go (see
// acquireAlone), from its own record.
func (f *Fleet) peekAlone(ctx context.Context, origin string, now time.Time) time.Duration {
	at, hold := f.sent.next(origin)
	if interval := hold / time.Duration(f.size()); interval > 0 {
		at = f.phase(later(at, now), interval) // in the process's window
	}
	d := max(at.Sub(now), 0)
	if p, ok := f.fallback.(peeker); ok {
		if fd, err := p.Peek(ctx, origin); err == nil && fd > d {
			d = fd
		}
	}
	return d
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
