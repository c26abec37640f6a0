package robotsredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
)

var _ robotsguard.Pacer = (*Fleet)(nil)

// Pacing for the fleet, by reservation: each request takes its own slot in
// its origin's schedule, kept in Redis and read on Redis's clock, in one
// round trip (a Lua script), then waits for it in its process.

// The pace of an origin is a hash under paceKey: "next", the first free
// slot, and "nb", the end of a back-off, in microseconds of Redis TIME.
// Its places (robotsguard.PaceRequest.Limit) are a sorted set under leaseKey: a token
// per request under way, scored by the lease's expiry. The requests that
// wait for a place are two sorted sets, of their tokens: under queueKey,
// scored by arrival (Redis TIME when each first found every place taken,
// or others waiting), and under ticketKey, scored by when each stops
// waiting unless it asks again (ticketTTL later).
func paceKey(origin string) string   { return "robotsguard/p1/" + tag(origin) }
func leaseKey(origin string) string  { return paceKey(origin) + "#leases" }
func queueKey(origin string) string  { return paceKey(origin) + "#queue" }
func ticketKey(origin string) string { return paceKey(origin) + "#tickets" }

// paceKeys returns the keys of reserveScript and releaseScript.
func paceKeys(origin string) []string {
	return []string{paceKey(origin), leaseKey(origin), queueKey(origin), ticketKey(origin)}
}

// ticketTTL is how long a request waiting for a place keeps its turn
// without asking again: a waiter asks at least every maxRecheck, so that a
// process that dies, or loses Redis, while its requests wait holds the
// origin's freed places for ticketTTL at most.
const ticketTTL = 3 * maxRecheck

// backoffName is the name published when origin's back-off is set, to
// wake the requests that wait for their slots.
func backoffName(origin string) string { return paceKey(origin) + "#backoff" }

// releaseLua defines release(pace, leases, queue, tickets, first, now),
// which ends the leases of the tokens in ARGV from first on, each followed
// by its request's interval in µs: the origin's next slot is then that
// interval after now at the earliest (the interval counts from the end of
// a response too). A token that waits in the queue leaves it (a request
// that gave up, or whose reservation's answer was lost). It returns
// whether it ended any lease or turn.
const releaseLua = `
local function release(pace, leases, queue, tickets, first, now)
	local released, interval = false, 0
	for i = first, #ARGV - 1, 2 do
		if redis.call('ZREM', leases, ARGV[i]) == 1 then
			released = true
			interval = math.max(interval, tonumber(ARGV[i + 1]) or 0)
		end
		if redis.call('ZREM', queue, ARGV[i]) == 1 then
			released = true
		end
		redis.call('ZREM', tickets, ARGV[i])
	end
	if interval > 0 then
		local after = now + interval
		if after > (tonumber(redis.call('HGET', pace, 'next')) or 0) then
			redis.call('HSET', pace, 'next', string.format('%.0f', after))
			redis.call('PEXPIRE', pace, math.max(redis.call('PTTL', pace), math.ceil(interval / 1000) + 60000))
		end
	end
	return released
end
`

// reserveScript reserves a slot: the later of now, "next" and "nb"; "next"
// becomes that slot plus the interval. With a limit, it first takes a
// place, in the order of arrival: a request is given one when a place is
// free for it, with fewer free than waiters ahead of it; else it takes
// its turn in the queue (or keeps it, and asks again within ticketTTL),
// and is answered busy. Waiters whose turns lapsed are dropped (64 a call
// at most). It returns {delay µs (-1 when busy), backoff (1 when "nb" set
// the slot), µs until the earliest lease or turn lapses, the "next" it
// set}. Times are integers written with %.0f: Lua's default format would
// round them.
//
// Ahead of the reservation, it releases the places of the process's
// requests to the origin that have ended since its last call (see keep),
// and tells those waiting for a place when one is left free.
//
// State that asks for a delay over ARGV[5] is corrupt: it is deleted, and
// the answer is -2.
//
// The slot is ARGV[8] after now at the earliest: the process's own last
// request to the origin was sent or ended less than an interval ago (the
// slots Redis gave are forgotten when it restarts empty, and the requests
// the process paced alone were never known to it).
//
// A request that would wait more than ARGV[9] (unless it is negative: no
// deadline) for its slot, or that finds no place free with less than an
// interval to wait, cannot go in time: it takes nothing, leaves the queue
// if it was in it, and is answered -3 with, in place of the lease's time,
// the wait for the earliest slot it could have (see PaceRequest.MinTimeLeft).
//
// KEYS: pace, leases, queue, tickets. ARGV: interval µs, limit, lease TTL
// µs, token, the longest delay µs, channel, ticket TTL µs, the earliest
// delay µs, the longest wait µs, then the token and interval µs of each
// place to release.
var reserveScript = redis.NewScript(releaseLua + `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, limit, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local maxwait = tonumber(ARGV[9]) or -1
local released = release(KEYS[1], KEYS[2], KEYS[3], KEYS[4], 10, now)
local function wake()
	if released and (limit <= 0 or redis.call('ZCARD', KEYS[2]) < limit) then
		redis.call('PUBLISH', ARGV[6], KEYS[2])
	end
end
if limit > 0 then
	local nows = string.format('%.0f', now)
	redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nows)
	local lapsed = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', nows, 'LIMIT', 0, 64)
	if #lapsed > 0 then
		redis.call('ZREM', KEYS[3], unpack(lapsed))
		redis.call('ZREM', KEYS[4], unpack(lapsed))
		released = true
	end
	local free = limit - redis.call('ZCARD', KEYS[2])
	local rank = redis.call('ZRANK', KEYS[3], ARGV[4])
	local ahead = rank or redis.call('ZCARD', KEYS[3])
	if free <= ahead and maxwait >= 0 then
		-- A place frees no sooner than now, and the requests ahead go
		-- an interval apart after it.
		local v = redis.call('HMGET', KEYS[1], 'next', 'nb')
		local nxt, nb = tonumber(v[1]) or 0, tonumber(v[2]) or 0
		local at = math.max(now + interval, nxt, nb) + ahead * interval
		if at - now > maxwait then
			if rank then
				redis.call('ZREM', KEYS[3], ARGV[4])
				redis.call('ZREM', KEYS[4], ARGV[4])
				released = true
			end
			wake()
			local backoff = 0
			if nb > now and nb >= nxt then backoff = 1 end
			return {-3, backoff, at - now, 0}
		end
	end
	if free <= ahead then
		if not rank then
			redis.call('ZADD', KEYS[3], nows, ARGV[4])
		end
		local ticket = tonumber(ARGV[7])
		redis.call('ZADD', KEYS[4], string.format('%.0f', now + ticket), ARGV[4])
		for _, k in ipairs({KEYS[3], KEYS[4]}) do
			redis.call('PEXPIRE', k, math.ceil(ticket / 1000) + 1000)
		end
		wake()
		local soonest = ticket
		for _, k in ipairs({KEYS[2], KEYS[4]}) do
			local first = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
			if first[2] then
				soonest = math.min(soonest, tonumber(first[2]) - now)
			end
		end
		return {-1, 0, math.max(soonest, 0), 0}
	end
	if rank then
		redis.call('ZREM', KEYS[3], ARGV[4])
		redis.call('ZREM', KEYS[4], ARGV[4])
	end
end
local v = redis.call('HMGET', KEYS[1], 'next', 'nb')
local nxt, nb = tonumber(v[1]) or 0, tonumber(v[2]) or 0
if nxt > now + tonumber(ARGV[5]) or nb > now + tonumber(ARGV[5]) then
	redis.call('DEL', KEYS[1])
	wake()
	return {-2, 0, 0, 0}
end
local slot = math.max(now + (tonumber(ARGV[8]) or 0), nxt, nb)
local backoff = 0
if nb > now and nb >= nxt then backoff = 1 end
if maxwait >= 0 and slot - now > 0 and slot - now > maxwait then
	wake()
	return {-3, backoff, slot - now, 0}
end
local next = string.format('%.0f', slot + interval)
redis.call('HSET', KEYS[1], 'next', next)
redis.call('PEXPIRE', KEYS[1], math.ceil((math.max(slot + interval, nb) - now) / 1000) + 60000)
if limit > 0 then
	redis.call('ZADD', KEYS[2], string.format('%.0f', slot + lease), ARGV[4])
	redis.call('PEXPIRE', KEYS[2], math.max(redis.call('PTTL', KEYS[2]), math.ceil((slot + lease - now) / 1000) + 1000))
end
wake()
return {slot - now, backoff, 0, next}`)

// cancelScript gives a slot back when no later one was reserved after it
// ("next" is still the one it set), and its place, if any, with a notice
// to those waiting for one.
//
// KEYS: pace, leases. ARGV: the "next" the slot set, the interval µs,
// token, channel.
var cancelScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'next') == ARGV[1] then
	redis.call('HSET', KEYS[1], 'next', string.format('%.0f', tonumber(ARGV[1]) - tonumber(ARGV[2])))
end
if ARGV[3] ~= '' and redis.call('ZREM', KEYS[2], ARGV[3]) == 1 then
	redis.call('PUBLISH', ARGV[4], KEYS[2])
end
return 0`)

// releaseScript ends requests' leases and turns (see releaseLua), and
// tells those waiting for a place.
//
// KEYS: pace, leases, queue, tickets. ARGV: channel, then the token and
// interval µs of each place.
var releaseScript = redis.NewScript(releaseLua + `
local t = redis.call('TIME')
if release(KEYS[1], KEYS[2], KEYS[3], KEYS[4], 2, tonumber(t[1]) * 1000000 + tonumber(t[2])) then
	redis.call('PUBLISH', ARGV[1], KEYS[2])
end
return 0`)

// renewScript renews leases: each that is still in the set expires the
// lease TTL after now, unless it expires later already. (A lease past its
// expiry that is still in the set kept its place: a reservation drops
// those that have expired before it counts the places taken.)
//
// KEYS: leases. ARGV: lease TTL µs, then the tokens.
var renewScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local upto = now + tonumber(ARGV[1])
for i = 2, #ARGV do
	local s = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i]))
	if s and s < upto then
		redis.call('ZADD', KEYS[1], 'XX', string.format('%.0f', upto), ARGV[i])
	end
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
	redis.call('PEXPIRE', KEYS[1], math.max(ttl, math.ceil(tonumber(ARGV[1]) / 1000) + 1000))
end
return 0`)

// backoffScript sets the end of a back-off, "nb", to Redis TIME plus the
// wait, unless it is already later, and wakes the waiting requests.
//
// KEYS: pace. ARGV: wait µs, channel, name published.
var backoffScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local nb = now + tonumber(ARGV[1])
local old = tonumber(redis.call('HGET', KEYS[1], 'nb')) or 0
if nb > old then
	redis.call('HSET', KEYS[1], 'nb', string.format('%.0f', nb))
	local ttl = redis.call('PTTL', KEYS[1])
	redis.call('PEXPIRE', KEYS[1], math.max(ttl, math.ceil(tonumber(ARGV[1]) / 1000) + 60000))
	redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 0`)

var tokens struct {
	prefix string
	n      atomic.Uint64
}

func init() {
	var b [8]byte
	rand.Read(b[:])
	tokens.prefix = hex.EncodeToString(b[:]) + "-"
}

// token returns a token unique in the fleet, for a lease.
func token() string { return tokens.prefix + strconv.FormatUint(tokens.n.Add(1), 36) }

// Acquire waits until a request to r.Origin may be sent, by the fleet's
// schedule for the origin: one round trip to Redis reserves the request's
// slot (r.Interval after the slot reserved before it, by any process, and
// not before the end of a back-off) and, with r.Limit, one of the origin's
// places. The request then waits in its process. A request that has to
// wait goes only with r.MinTimeLeft (50 ms at least, as with a
// robotsguard.LocalPacer) left before ctx's deadline: one whose slot or
// place would come later takes neither (the script tells, in the same
// round trip) and fails at once with a *robotsguard.PacingError that says
// when the origin's next slot is (NotBefore, Wait); a request that need
// not wait goes whatever its deadline. When ctx ends while it waits,
// Acquire gives the slot back if no later one was reserved, and the
// place, and fails with a *robotsguard.PacingError too.
//
// With a Limit, the request holds a place until its Lease is released: a
// lease that expires after LeaseTTL, renewed by the Fleet every third of
// it while the request is under way, so that a process that dies frees its
// places within LeaseTTL and a live response keeps its place however long
// it lasts. The release returns at once: the Fleet gives the place back in
// the background (in one pipeline with the other releases queued, or in
// the round trip of the process's next request to the origin, ahead of its
// reservation) and, as a LocalPacer does, starts the next interval from
// then: the interval counts from the end of each response as well as from
// its start. Requests that find every place taken, or others waiting for
// one, take a turn in a queue in Redis, in the order of arrival across
// the fleet, and wait for a place to be released (a notice on the Fleet's
// subscription) or to expire; a place is handed to the oldest waiter, so
// that no process starves, whichever released it. A waiter asks again at
// least every second, and keeps its turn for three seconds without asking
// (a process that dies while its requests wait holds a free place that
// long at most); one that gives up leaves the queue in the background.
// A request that finds a place free and nobody waiting takes it in one
// round trip, as before. Without a Limit, the release does nothing
// and the interval counts from the slots, that is from the times requests
// are sent: one round trip per request.
//
// A throttle set while a request waits (Throttle, from any process) sends
// it back to take a new slot.
//
// Whether Redis answers or not, a request goes an interval after the
// process's last request to the origin was sent or ended, at the
// earliest: its reservation asks for no sooner a slot (Redis restarted
// empty forgets the slots it gave), and a request whose slot came while
// another of the process was paced alone waits for the interval.
//
// When Redis cannot be reached, each process paces an origin alone, one
// request every Size intervals, in its own window of each cycle of Size
// intervals (see Rank), through Fallback; the first request to an origin
// paced so waits for the process's fleet-paced requests to it under way to
// end (for LeaseTTL at most), then until Size intervals after the last one
// was sent or ended (the Fleet remembers those of 16,384 origins; see
// maxSent). A request waiting alone whose turn comes while the circuit is
// closed (it closed again, or the call that failed did not open it) takes
// a slot of the fleet's instead, Failures times at most, so that it does
// not go between the slots the other processes take. A reservation whose
// answer is lost (it came after CallTimeout, or the connection failed) may
// have taken a place in Redis all the same; so may one whose cancel or
// release failed. The Fleet gives such places back in the background, by
// their tokens, as soon as Redis answers (at most 4,096 kept while it does
// not, each until its lease would have expired anyway), so that they do
// not hold the fleet's requests to the origin until LeaseTTL.
func (f *Fleet) Acquire(ctx context.Context, r robotsguard.PaceRequest) (robotsguard.Lease, error) {
	f.init()
	r.Interval = max(r.Interval, 0)
	ttl := orDefault(f.LeaseTTL, DefaultLeaseTTL)
	left := minLeft(r)
	start := time.Now()
	var backoff bool
	var placed <-chan struct{} // releases of the origin's places
	if r.Limit > 0 {
		wake, stop := f.notify.watch(ctx, leaseKey(r.Origin))
		defer stop()
		placed = wake
	}
	var tok string  // the request's place, and its turn while it waits for one
	var rejoins int // the times it waited alone, and came back to the fleet's schedule
	if r.Limit > 0 {
		tok = token()
	}
	for {
		var res []any
		called := time.Now()
		ended := f.keeper.take(r.Origin) // released ahead of the reservation
		own := max(f.sent.since(r.Origin, r.Interval, called), 0)
		maxWaitµs := int64(-1) // no deadline
		if dl, ok := ctx.Deadline(); ok {
			maxWaitµs = max(dl.Sub(called)-left, 0).Microseconds()
		}
		err := f.call(ctx, "pace", func(ctx context.Context) (err error) {
			res, err = reserveScript.Run(ctx, f.Client, paceKeys(r.Origin),
				releaseArgs([]any{r.Interval.Microseconds(), r.Limit, ttl.Microseconds(), tok, maxDelay.Microseconds(), releasedChannel, ticketTTL.Microseconds(), own.Microseconds(), maxWaitµs}, ended)...).Slice()
			return err
		})
		var delayµs, backoffFlag, leaseµs int64
		var next string
		if err == nil {
			delayµs, backoffFlag, leaseµs, next, err = reservation(res)
		}
		if err != nil {
			for _, b := range ended {
				f.giveBack(b) // releasing again is harmless: by token
			}
			if tok != "" && !errors.Is(err, ErrUnavailable) {
				// Redis may have run the script though its answer
				// is lost: the place it took, if it took one, is no
				// request's. Its lease ends ttl after its slot.
				f.giveBack(giveBack{origin: r.Origin, token: tok, until: called.Add(ttl + slotBound(r))})
			}
			if ctx.Err() != nil {
				return robotsguard.Lease{}, &robotsguard.PacingError{Origin: strings.Clone(r.Origin), Err: ctx.Err()}
			}
			l, err := f.acquireAlone(ctx, r, time.Since(start), rejoins < f.breaker.failures)
			if !errors.Is(err, errRejoin) {
				return l, err
			}
			// The circuit is closed as the request's turn comes (it
			// closed while the request waited alone, or a call failed
			// with the circuit closed): it takes the fleet's next slot,
			// with a token of its own (the old one may be given back
			// meanwhile); Failures times at most, for a Redis whose
			// answers fail without opening the circuit.
			rejoins++
			if tok != "" {
				tok = token()
			}
			continue
		}
		if delayµs == tooLate {
			// Nothing taken: the request could not go in time.
			at := called.Add(time.Duration(leaseµs) * time.Microsecond)
			return robotsguard.Lease{}, &robotsguard.PacingError{Origin: strings.Clone(r.Origin), NotBefore: at, Wait: max(time.Until(at), 0), Throttled: backoff || backoffFlag == 1, Err: context.DeadlineExceeded}
		}
		if delayµs < 0 { // no place for it yet: wait for its turn
			if err := waitPlace(ctx, placed, time.Duration(leaseµs)*time.Microsecond, r.Interval+left); err != nil {
				// Its turn is given up in the background.
				f.giveBack(giveBack{origin: r.Origin, token: tok, until: time.Now().Add(ticketTTL)})
				return robotsguard.Lease{}, &robotsguard.PacingError{Origin: strings.Clone(r.Origin), Err: err}
			}
			continue
		}
		delay := time.Duration(delayµs) * time.Microsecond
		backoff = backoff || backoffFlag == 1
		slot := reserved{origin: r.Origin, token: tok, next: next, interval: r.Interval, expires: called.Add(delay + ttl)}
		if delay <= 0 {
			return f.turn(ctx, r, slot, ttl, start, backoff)
		}
		at := called.Add(delay)
		if dl, ok := ctx.Deadline(); ok && dl.Sub(at) < left {
			// The reservation's answer came late: given back.
			f.cancel(slot)
			return robotsguard.Lease{}, &robotsguard.PacingError{Origin: strings.Clone(r.Origin), NotBefore: at, Wait: max(time.Until(at), 0), Throttled: backoff, Err: context.DeadlineExceeded}
		}
		again, err := f.sleep(ctx, r.Origin, delay)
		if err != nil {
			f.cancel(slot)
			return robotsguard.Lease{}, &robotsguard.PacingError{Origin: strings.Clone(r.Origin), NotBefore: at, Wait: max(time.Until(at), 0), Throttled: backoff, Err: err}
		}
		if !again {
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < left {
				// The timer fired late: too late to go.
				f.cancel(slot)
				return robotsguard.Lease{}, &robotsguard.PacingError{Origin: strings.Clone(r.Origin), NotBefore: at, Throttled: backoff, Err: context.DeadlineExceeded}
			}
			return f.turn(ctx, r, slot, ttl, start, backoff)
		}
		// A back-off was set meanwhile: take a slot after it, with a
		// token of its own (should the cancel fail, the token's place is
		// given back later).
		f.cancel(slot)
		backoff = true
		if tok != "" {
			tok = token()
		}
	}
}

// reservation reads the answer of reserveScript: untrusted, as anything
// from Redis is.
func reservation(res []any) (delay, backoff, lease int64, next string, err error) {
	if len(res) == 4 {
		var ok [4]bool
		delay, ok[0] = res[0].(int64)
		backoff, ok[1] = res[1].(int64)
		lease, ok[2] = res[2].(int64)
		switch v := res[3].(type) {
		case string:
			next, ok[3] = v, true
		case int64:
			next, ok[3] = strconv.FormatInt(v, 10), true
		}
		if ok == [4]bool{true, true, true, true} && (delay >= -1 || delay == tooLate) && delay <= maxDelay.Microseconds() {
			return delay, backoff, max(lease, 0), next, nil
		}
	}
	return 0, 0, 0, "", fmt.Errorf("robotsredis: pace: the reservation script answered %v, not a reservation", res)
}

// tooLate is the delay reserveScript answers when the request could not
// go with minLeft before its deadline: it took nothing.
const tooLate = -3

// slotBound returns how long after a reservation its slot comes at the
// latest, unless a throttle puts it later: the origin's places were
// reserved an interval apart, the last one an interval before it. Never
// more than maxDelay.
func slotBound(r robotsguard.PaceRequest) time.Duration {
	if r.Interval <= 0 {
		return 0
	}
	if n := maxDelay / r.Interval; int64(r.Limit) >= int64(n) {
		return maxDelay
	}
	return time.Duration(r.Limit+1) * r.Interval
}

// maxDelay bounds the delay Redis may impose: pace state that asks for
// more is corrupt, and the process paces alone (the reservation script
// deletes such state, so the next request shares the pace again).
const maxDelay = 24 * time.Hour

// reserved is a slot taken in an origin's schedule.
type reserved struct {
	origin, token string
	next          string // the "next" the reservation set
	interval      time.Duration
	expires       time.Time // when its lease expires, if it took a place
}

// cancel gives back a slot, if no later one was reserved, and its place.
// Should the call fail, the place is given back later (see giveBack), and
// the slot is not.
func (f *Fleet) cancel(s reserved) {
	ctx, cancel := context.WithTimeout(context.Background(), orDefault(f.CallTimeout, DefaultCallTimeout))
	defer cancel()
	err := f.call(ctx, "cancel", func(ctx context.Context) error {
		return cancelScript.Run(ctx, f.Client, []string{paceKey(s.origin), leaseKey(s.origin)}, s.next, s.interval.Microseconds(), s.token, releasedChannel).Err()
	})
	if err != nil && s.token != "" {
		f.giveBack(giveBack{origin: s.origin, token: s.token, until: s.expires})
	}
}

// sleep waits for d, or until ctx ends (with its error), or until a
// back-off of origin is set (again is true then).
func (f *Fleet) sleep(ctx context.Context, origin string, d time.Duration) (again bool, err error) {
	wake, stop := f.notify.watch(ctx, backoffName(origin))
	defer stop()
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return false, nil
	case <-wake:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// waitPlace waits until one of origin's places is released (wake
// receives it) or the earliest lease expires, in d, or for maxRecheck at
// most.
//
// A request that has no place need (an interval, and the time it must
// have left when it goes: see minLeft) before its deadline cannot go in
// time: it gives up then, with context.DeadlineExceeded, while its
// deadline has not passed (so that an http.Client returns its
// *robotsguard.PacingError, not its own time-out), as a LocalPacer does.
func waitPlace(ctx context.Context, wake <-chan struct{}, d, need time.Duration) error {
	wait := min(max(d, time.Millisecond), maxRecheck)
	if dl, ok := ctx.Deadline(); ok && need > 0 {
		giveUp := time.Until(dl.Add(-need))
		if giveUp <= 0 {
			return context.DeadlineExceeded
		}
		wait = min(wait, giveUp)
	}
	tm := time.NewTimer(wait)
	defer tm.Stop()
	select {
	case <-wake:
		return nil
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// turn returns the robotsguard.Lease of a request that may go, holding the
// place of slot's token, if any, whose lease lasts ttl. A release that fails is
// tried again later (see giveBack).
//
// The request goes an interval after the process's last request to the
// origin was sent or ended at the earliest, whatever its slot: a request
// of the process paced alone (Redis failed it) may have gone since the
// slot was reserved. Should ctx end first, or its deadline come too soon
// (see minLeft), the slot is cancelled.
func (f *Fleet) turn(ctx context.Context, r robotsguard.PaceRequest, slot reserved, ttl time.Duration, start time.Time, backoff bool) (robotsguard.Lease, error) {
	tok := slot.token
	hold := f.holdAlone(r.Interval)
	busy := 0
	if tok != "" {
		busy = 1
	}
	if err := f.claim(ctx, r.Origin, r.Interval, hold, busy, minLeft(r)); err != nil {
		f.cancel(slot)
		return robotsguard.Lease{}, err
	}
	t := robotsguard.Lease{Waited: time.Since(start), Throttled: backoff}
	if tok == "" {
		return t, nil
	}
	f.hold(tok, r.Origin)
	var once atomic.Bool
	t.OnRelease = func() {
		if once.Swap(true) {
			return
		}
		now := time.Now()
		f.sent.mark(r.Origin, now, hold, -1)
		f.keeper.unhold(tok)
		// Renewed while held, the lease expires ttl after now at
		// the latest.
		b := giveBack{origin: r.Origin, token: tok, interval: r.Interval, until: now.Add(ttl)}
		if f.queue(b, false) {
			return
		}
		// The queue is full, or the Fleet closed: released here.
		ctx, cancel := context.WithTimeout(context.Background(), orDefault(f.CallTimeout, DefaultCallTimeout))
		defer cancel()
		err := f.call(ctx, "release", func(ctx context.Context) error {
			return releaseScript.Run(ctx, f.Client, paceKeys(r.Origin), releaseArgs([]any{releasedChannel}, []giveBack{b})...).Err()
		})
		if err != nil {
			f.giveBack(b)
		}
	}
	return t, nil
}

// Throttle holds the fleet's requests to origin for d (a 429 or 503
// answer): "not before" d after Redis's now, on Redis's clock, whatever
// the clocks of the process and of its Transport say. Requests waiting for
// their slots, in every process, take new ones after it. A d over a day
// holds the fleet for a day: Redis state that asks for more is taken for
// corrupt. The Fallback pacer is told too, in case Redis fails before the
// throttle ends.
func (f *Fleet) Throttle(ctx context.Context, origin string, d time.Duration) {
	f.init()
	f.fallback.Throttle(ctx, origin, d)
	wait := min(d, maxDelay)
	if wait <= 0 {
		return
	}
	f.call(ctx, "backoff", func(ctx context.Context) error {
		return backoffScript.Run(ctx, f.Client, []string{paceKey(origin)}, wait.Microseconds(), releasedChannel, backoffName(origin)).Err()
	})
}
