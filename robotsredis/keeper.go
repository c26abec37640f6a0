package robotsredis

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Fleet's work in the background, on one goroutine, started when there is
// some and ended when there is none:
//
//   - releasing the places of the requests whose responses have ended, so
//     that ending a response (closing its body) costs its caller no round
//     trip to Redis: a release is queued, and the goroutine sends those
//     queued in one pipeline; a later request of the process to the same
//     origin takes those of its origin into its own reservation, ahead of
//     it, in the same round trip;
//   - giving back the places that no request holds: a reservation whose
//     answer is lost (it came after CallTimeout, or its connection failed)
//     may have taken a place in Redis all the same, as may one whose
//     cancel or release failed; while Redis cannot be reached, they are
//     kept, and given back as soon as it answers again;
//   - renewing the leases of the requests under way, every third of
//     LeaseTTL, so that leases can be short (a process that dies holds its
//     origins' places for LeaseTTL at most) and yet do not expire under a
//     live response, however slow, up to MaxHold.
//
// A give-back removes the lease alone, never the slot: the "next" a lost
// reservation set is not known (its answer carried it), and a cancel that
// compares it could not be run twice safely (another request may have
// taken the slot given back by the first run, and set the same "next"
// again). The origin's next slot stays an interval later than it need be:
// a gap, never two requests closer than the interval.

// A giveBack is a place to release or give back.
type giveBack struct {
	origin, token string
	// interval, when not zero, moves the origin's next slot to an interval
	// after the release at the earliest: the place was that of a request
	// that was sent. Zero gives back the place alone.
	interval time.Duration
	// until is when the lease expires in Redis at the latest, without
	// the release: it is dropped then.
	until time.Time
}

// maxGiveBacks bounds the places a Fleet keeps to release or give back.
// When it is reached, a release is made on its caller's goroutine, as if
// queued and sent at once; a give-back (Redis out of reach) drops the
// place whose lease expires first, which expires in Redis on its own.
const maxGiveBacks = 4096

// keeper holds a Fleet's background work.
type keeper struct {
	kick chan struct{} // buffered: a place was queued, the circuit closed, or Close was called

	mu      sync.Mutex            // guards the fields below
	pending map[string][]giveBack // places to release or give back, by origin, oldest first
	n       int                   // the number of places in pending
	held    map[string]held       // the leases of the requests under way, by token
	running bool                  // the goroutine is under way
	done    chan struct{}         // closed when the goroutine ends
	closed  bool                  // Close was called: nothing more is queued or renewed
}

// held is the lease of a request under way.
type held struct {
	origin string
	until  time.Time // when its renewals stop (MaxHold after it was taken)
}

// poke wakes the goroutine, if it waits.
func (k *keeper) poke() {
	select {
	case k.kick <- struct{}{}:
	default:
	}
}

// run starts the goroutine, or wakes it. k.mu is held.
func (f *Fleet) run() {
	k := &f.keeper
	if k.running {
		k.poke()
		return
	}
	k.running, k.done = true, make(chan struct{})
	go f.keep(k.done)
}

// giveBack queues b to be given back, and returns at once.
func (f *Fleet) giveBack(b giveBack) { f.queue(b, true) }

// queue queues b to be released or given back, and returns at once. When
// maxGiveBacks places are queued, it drops those whose leases have
// expired, then, if force is set, the one whose lease expires first; if
// not, it reports that b was not queued. So it does after Close.
func (f *Fleet) queue(b giveBack, force bool) bool {
	k := &f.keeper
	b.origin = strings.Clone(b.origin)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return false
	}
	if k.n >= maxGiveBacks {
		k.expire(time.Now())
		if k.n >= maxGiveBacks {
			if !force {
				return false
			}
			k.dropFirst()
		}
	}
	if k.pending == nil {
		k.pending = map[string][]giveBack{}
	}
	k.pending[b.origin] = append(k.pending[b.origin], b)
	k.n++
	f.run()
	return true
}

// expire drops the places whose leases have expired by now. k.mu is held.
func (k *keeper) expire(now time.Time) {
	for o, q := range k.pending {
		i := 0
		for _, b := range q {
			if now.Before(b.until) {
				q[i] = b
				i++
			}
		}
		clear(q[i:])
		k.n -= len(q) - i
		if i == 0 {
			delete(k.pending, o)
		} else {
			k.pending[o] = q[:i]
		}
	}
}

// dropFirst drops the place whose lease expires first. k.mu is held.
func (k *keeper) dropFirst() {
	first, at := "", -1
	for o, q := range k.pending {
		for i, b := range q {
			if at < 0 || b.until.Before(k.pending[first][at].until) {
				first, at = o, i
			}
		}
	}
	if at < 0 {
		return
	}
	q := k.pending[first]
	copy(q[at:], q[at+1:])
	q[len(q)-1] = giveBack{}
	if q = q[:len(q)-1]; len(q) == 0 {
		delete(k.pending, first)
	} else {
		k.pending[first] = q
	}
	k.n--
}

// take takes the places of origin to release or give back, for a
// reservation to do ahead of its own.
func (k *keeper) take(origin string) []giveBack {
	k.mu.Lock()
	defer k.mu.Unlock()
	q := k.pending[origin]
	if q != nil {
		delete(k.pending, origin)
		k.n -= len(q)
	}
	return q
}

// putBack queues again the places whose release failed, ahead of those of
// their origins queued since, unless their leases have expired or the
// queue is full.
func (k *keeper) putBack(bs []giveBack) {
	now := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	for i := len(bs) - 1; i >= 0; i-- { // the last first, each ahead of the ones queued
		b := bs[i]
		if !now.Before(b.until) || k.n >= maxGiveBacks {
			continue
		}
		if k.pending == nil {
			k.pending = map[string][]giveBack{}
		}
		k.pending[b.origin] = append([]giveBack{b}, k.pending[b.origin]...)
		k.n++
	}
}

// hold records that the request that holds token's place at origin is
// under way: its lease is renewed until unhold.
func (f *Fleet) hold(token, origin string) {
	k := &f.keeper
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	if k.held == nil {
		k.held = map[string]held{}
	}
	k.held[token] = held{origin: strings.Clone(origin), until: time.Now().Add(orDefault(f.MaxHold, DefaultMaxHold))}
	f.run()
}

// unhold stops renewing token's lease.
func (k *keeper) unhold(token string) {
	k.mu.Lock()
	delete(k.held, token)
	k.mu.Unlock()
}

// keep is the goroutine: it releases the places queued, and renews the
// leases held every third of LeaseTTL, until there is nothing left to do.
// After a failed release it waits for the circuit to close, or Cooldown,
// before it tries again. Once Close is called, it tries what is queued
// within one CallTimeout, and ends.
func (f *Fleet) keep(done chan struct{}) {
	defer close(done)
	k := &f.keeper
	// Every third of LeaseTTL; never more often than every 10ms, which
	// would leave no time for anything else (a LeaseTTL that short lets
	// leases expire between renewals).
	every := max(orDefault(f.LeaseTTL, DefaultLeaseTTL)/3, 10*time.Millisecond)
	retry := orDefault(f.Cooldown, DefaultCooldown)
	renewAt := time.Now().Add(every)
	for {
		k.mu.Lock()
		closed := k.closed
		if k.n == 0 && (len(k.held) == 0 || closed) {
			k.running = false
			k.mu.Unlock()
			return
		}
		batch := k.pending
		k.pending, k.n = nil, 0
		holding := len(k.held) > 0
		k.mu.Unlock()

		if closed {
			ctx, cancel := context.WithTimeout(context.Background(), orDefault(f.CallTimeout, DefaultCallTimeout))
			f.releaseAll(ctx, batch)
			cancel()
			k.mu.Lock()
			k.pending, k.n, k.running = nil, 0, false
			k.mu.Unlock()
			return
		}
		wait := time.Duration(-1)
		if len(batch) > 0 {
			if failed := f.releaseAll(context.Background(), batch); len(failed) > 0 {
				k.putBack(failed)
				wait = retry
			}
		}
		if holding {
			if now := time.Now(); !now.Before(renewAt) {
				f.renew(context.Background())
				renewAt = now.Add(every)
			}
			if d := time.Until(renewAt); wait < 0 || d < wait {
				wait = d
			}
		}
		if wait < 0 {
			continue
		}
		tm := time.NewTimer(wait)
		select {
		case <-k.kick:
		case <-tm.C:
		}
		tm.Stop()
	}
}

// closeKeeper stops the queueing and renewals, and waits for the goroutine
// to try what is queued (within one CallTimeout) and end.
func (f *Fleet) closeKeeper() {
	k := &f.keeper
	k.mu.Lock()
	k.closed = true
	running, done := k.running, k.done
	k.mu.Unlock()
	if running {
		k.poke()
		<-done
	}
}

// releaseArgs returns the arguments of releaseScript for bs, a place
// after another: token and interval in µs.
func releaseArgs(args []any, bs []giveBack) []any {
	for _, b := range bs {
		args = append(args, b.token, b.interval.Microseconds())
	}
	return args
}

// releaseAll releases the places of batch, one script call per origin, in
// one pipeline; it returns those whose call failed.
func (f *Fleet) releaseAll(ctx context.Context, batch map[string][]giveBack) (failed []giveBack) {
	if len(batch) == 0 {
		return nil
	}
	origins := make([]string, 0, len(batch))
	calls := make([]scriptCall, 0, len(batch))
	for o, bs := range batch {
		origins = append(origins, o)
		calls = append(calls, scriptCall{keys: paceKeys(o), args: releaseArgs([]any{releasedChannel}, bs)})
	}
	var cmds []*redis.Cmd
	err := f.call(ctx, "release", func(ctx context.Context) error {
		var err error
		cmds, err = runAll(ctx, f.Client, releaseScript, calls)
		return err
	})
	if err == nil {
		return nil
	}
	for i, o := range origins {
		if cmds == nil || cmds[i].Err() != nil {
			failed = append(failed, batch[o]...)
		}
	}
	return failed
}

// renew renews the leases held, one script call per origin, in one
// pipeline; those held for MaxHold are no longer renewed. A failure is
// left to the next renewal, a third of LeaseTTL later.
func (f *Fleet) renew(ctx context.Context) {
	k := &f.keeper
	now := time.Now()
	k.mu.Lock()
	byOrigin := make(map[string][]any, len(k.held))
	ttl := orDefault(f.LeaseTTL, DefaultLeaseTTL).Microseconds()
	for tok, h := range k.held {
		if !now.Before(h.until) {
			delete(k.held, tok)
			continue
		}
		if byOrigin[h.origin] == nil {
			byOrigin[h.origin] = []any{ttl}
		}
		byOrigin[h.origin] = append(byOrigin[h.origin], tok)
	}
	k.mu.Unlock()
	if len(byOrigin) == 0 {
		return
	}
	calls := make([]scriptCall, 0, len(byOrigin))
	for o, args := range byOrigin {
		calls = append(calls, scriptCall{keys: []string{leaseKey(o)}, args: args})
	}
	f.call(ctx, "renew", func(ctx context.Context) error {
		_, err := runAll(ctx, f.Client, renewScript, calls)
		return err
	})
}

// A scriptCall is the keys and arguments of one run of a script.
type scriptCall struct {
	keys []string
	args []any
}

// runAll runs s once for each call, in one pipeline (a round trip to each
// node that holds their keys). Calls that fail because Redis does not hold
// the script are run again with its source, in a second pipeline. It
// returns the command of each call, and the first error of any.
func runAll(ctx context.Context, c redis.UniversalClient, s *redis.Script, calls []scriptCall) ([]*redis.Cmd, error) {
	cmds := make([]*redis.Cmd, len(calls))
	if len(calls) == 1 {
		cmds[0] = s.Run(ctx, c, calls[0].keys, calls[0].args...)
		return cmds, cmds[0].Err()
	}
	pipe := c.Pipeline()
	for i, call := range calls {
		cmds[i] = s.EvalSha(ctx, pipe, call.keys, call.args...)
	}
	pipe.Exec(ctx)
	var again []int
	for i, cmd := range cmds {
		if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		pipe := c.Pipeline()
		for _, i := range again {
			cmds[i] = s.Eval(ctx, pipe, calls[i].keys, calls[i].args...)
		}
		pipe.Exec(ctx)
	}
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && err != redis.Nil {
			return cmds, err
		}
	}
	return cmds, nil
}
