package robotsredis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
)

// Defaults of the Fleet fields.
const (
	DefaultCallTimeout = 250 * time.Millisecond
	DefaultFailures    = 3
	DefaultCooldown    = time.Second
	DefaultMaxCooldown = 30 * time.Second
	DefaultLeaseTTL    = 10 * time.Second
	DefaultMaxHold     = 10 * time.Minute
)

// A Fleet shares a robotsguard.Transport's robots.txt cache, fetch lock and
// pacing with the other processes of a crawler fleet, through one Redis
// (or Redis Cluster). It is a cache.Store and a cache.Locker (set it as
// Transport.Store) and a robotsguard.Pacer (set it as Transport.Pacer):
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true})
//	fleet := &robotsredis.Fleet{Client: rdb, Size: 8}
//	defer fleet.Close()
//	t := &robotsguard.Transport{UserAgent: "FooBot/1.0", Store: fleet, Pacer: fleet}
//
// Every Redis call goes through a circuit breaker: after Failures calls in
// a row fail, the Fleet stops calling Redis for Cooldown (doubling up to
// MaxCooldown while Redis stays down), then lets one call through to see
// whether it is back. While Redis is out of reach, the Transport works
// alone: the cache in memory, one fetch per origin in the process, and
// each origin paced Size times slower, in turns (see Rank), so that the
// fleet stays within an origin's Crawl-delay in aggregate. Nothing fails open:
// an origin whose robots.txt is not known is fetched before any request to
// it is sent, whether Redis answers or not.
//
// The zero Fleet, with Client set, is ready to use; set the fields before
// the first call and do not change them afterwards. A Fleet is safe for
// concurrent use. Close it to end its Redis subscription.
type Fleet struct {
	// Client is the Redis client: a *redis.Client, a *redis.ClusterClient
	// or a *redis.Ring. Create it with ContextTimeoutEnabled, so that
	// CallTimeout bounds every call. It must not be nil. The Fleet has a
	// *redis.ClusterClient reload its slot map after each call that
	// fails, and makes a call whose node could not be reached once more,
	// so that the fleet shares again through a replica as soon as the
	// cluster has promoted it in place of a master that died.
	Client redis.UniversalClient

	// Size is the number of processes in the fleet: while Redis is out of
	// reach, each process paces an origin Size times slower than its
	// Crawl-delay asks. Zero (or less) means 1.
	Size int

	// Rank is the process's place in the fleet, 1 to Size: while Redis is
	// out of reach, the process of rank k sends its requests to an
	// origin in the k-th interval of each cycle of Size intervals (cycles
	// counted on the wall clock from the Unix epoch), so that the fleet's
	// processes take turns rather than send theirs together. Give each
	// process a rank of its own (a worker's index, say) for an even
	// spread; ranks past Size wrap round. Zero (or less) means a rank
	// drawn at random when the Fleet is first used, which two processes
	// share with a chance of one in Size.
	Rank int

	// CallTimeout bounds each Redis call; a call that takes longer fails,
	// and counts towards opening the circuit. Zero means
	// DefaultCallTimeout. go-redis's own retries of a refused dial (5,
	// 100 ms apart, in each of a command's 4 tries, by default) outlast
	// it: a client with DialerRetries 1 has a call to a Redis that is
	// down fail in about 0.1 s instead, and lets a Redis Cluster's call be
	// made again on a replica that took over (see the package's README,
	// "When Redis fails").
	CallTimeout time.Duration

	// Failures is the number of failed Redis calls in a row that opens
	// the circuit. Zero means DefaultFailures.
	Failures int

	// Cooldown is how long the circuit stays open before one call tries
	// Redis again; it doubles, up to MaxCooldown, each time that call
	// fails. Zero means DefaultCooldown, and DefaultMaxCooldown.
	Cooldown, MaxCooldown time.Duration

	// LeaseTTL bounds how long a request holds one of its origin's
	// places (PaceRequest.Limit) when its process does not end it: a
	// process that dies frees its places LeaseTTL after it last renewed
	// them at the latest. The Fleet renews the leases of its requests
	// under way every third of LeaseTTL, so that none expires under a
	// live response, however slow (up to MaxHold), while Redis answers.
	// Zero means DefaultLeaseTTL.
	LeaseTTL time.Duration

	// MaxHold bounds how long the Fleet renews a request's lease: a
	// response body that is neither read to its end nor closed, with a
	// context that never ends, holds its origin's place for the fleet
	// for MaxHold and LeaseTTL at most; a live response that lasts
	// longer may lose its place to another request. Zero means
	// DefaultMaxHold. (The Transport's own LocalPacer lets requests that
	// wait take a place held for ten seconds.)
	MaxHold time.Duration

	// Fallback paces requests while Redis is out of reach, with intervals
	// multiplied by Size; the Fleet then sends each request in the
	// process's window of the cycle (see Rank). Nil means a
	// robotsguard.LocalPacer of the Fleet's own.
	Fallback robotsguard.Pacer

	// Logger hears of the circuit opening (Warn: Redis is out of reach,
	// the process works alone) and closing (Info: Redis answers again,
	// after how long), as OnState does. Nil means no logging.
	//
	// go-redis logs some failures of its own (a dial that fails, say) to
	// standard error, through a logger of its package, which a library
	// must leave alone. The Fleet's circuit breaker bounds them to a few
	// lines each time Redis goes (Failures calls, then a probe every
	// Cooldown); a program that wants them elsewhere, or not at all, sets
	// that logger once at start, with redis.SetLogger (or, to silence
	// them, logging.Disable from github.com/redis/go-redis/v9/logging).
	Logger *slog.Logger

	// OnState, if not nil, is called when the circuit opens (with the
	// error of the call that opened it) and when it closes again (with a
	// nil error), once each time: the probes of a half-open circuit are
	// not reported. It runs on the goroutine of the Redis call that
	// changed the state, and must be quick.
	OnState func(State, error)

	once     sync.Once
	breaker  breaker
	notify   notifier
	keeper   keeper   // releases, give-backs and renewals, in the background (see keep)
	sent     lastSent // the last fleet-paced request to each origin (see acquireAlone)
	fallback robotsguard.Pacer
	rank     int // 1 to Size: Rank, or drawn (see phase)
}

func (f *Fleet) init() {
	f.once.Do(func() {
		f.breaker.failures = orDefault(f.Failures, DefaultFailures)
		f.breaker.cooldown = orDefault(f.Cooldown, DefaultCooldown)
		f.breaker.maxCooldown = max(orDefault(f.MaxCooldown, DefaultMaxCooldown), f.breaker.cooldown)
		f.breaker.changed = f.stateChanged
		f.breaker.probe = func() { f.call(context.Background(), "probe", f.ping) }
		f.notify.client = f.Client
		f.keeper.kick = make(chan struct{}, 1)
		f.fallback = f.Fallback
		if f.Rank > 0 {
			f.rank = (f.Rank-1)%f.size() + 1
		} else {
			f.rank = 1 + rand.IntN(f.size())
		}
		if f.fallback == nil {
			f.fallback = &robotsguard.LocalPacer{}
		}
	})
}

// ping is the probe of an open circuit: PING, or, to a Redis Cluster,
// PING to each master of a slot map reloaded first. A cluster whose
// master died answers a PING from any other node, though the dead master's
// slots answer nothing until a replica takes them; and the client's map,
// which go-redis does not reload when a node cannot be reached (see
// reroute), would go on sending their calls to the dead node after the
// promotion. So the circuit closes when every slot has a master that
// answers, and the calls after it go to the masters that do. (A shard
// with no master keeps the circuit open, even in a cluster that serves
// the other slots: the circuit is the process's, not a slot's, and the
// process works alone, as safely, meanwhile.)
func (f *Fleet) ping(ctx context.Context) error {
	if c, ok := f.Client.(slotMapper); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.Ping(ctx).Err() })
	}
	return f.Client.Ping(ctx).Err()
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

func (f *Fleet) size() int { return max(f.Size, 1) }

// Close ends the Fleet's Redis subscription (the one that wakes requests
// waiting for another process's fetch or place), and its work in the
// background: the places of ended requests not released yet, and those it
// could not give back yet (see Acquire), are tried once more, within
// CallTimeout; the leases of requests still under way are no longer
// renewed, and expire after LeaseTTL. It does not close Client. A request
// that ends after Close releases its place on its own goroutine.
func (f *Fleet) Close() error {
	f.init()
	f.breaker.stopped.Store(true)
	f.closeKeeper()
	return f.notify.close()
}

// State is the state of the circuit between a Fleet and Redis.
type State uint8

const (
	// Closed: Redis answers; the fleet shares its cache and pace.
	Closed State = iota
	// Open: Redis failed; the process works alone until a probe call
	// succeeds.
	Open
	// HalfOpen: one call is trying Redis again.
	HalfOpen
)

func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// State returns the state of the circuit now.
func (f *Fleet) State() State {
	f.init()
	return f.breaker.state()
}

// ErrUnavailable is the error of every call the Fleet does not make to
// Redis because the circuit is open: Redis failed just before, and the
// process works alone until it answers again.
var ErrUnavailable = errors.New("robotsredis: Redis unavailable: circuit open after failed calls")

func (f *Fleet) stateChanged(s State, err error, down time.Duration) {
	if f.Logger != nil {
		if s == Open {
			f.Logger.Warn(fmt.Sprintf("robotsredis: Redis out of reach; working alone until it answers: robots.txt cache in memory, one fetch per origin in this process, each origin paced %d times slower", f.size()),
				"fleet_size", f.size(), "rank", f.rank, "error", fmt.Sprint(err))
		} else {
			f.Logger.Info("robotsredis: Redis answers again after "+down.Round(100*time.Millisecond).String()+"; sharing the fleet's robots.txt cache, fetch lock and pacing",
				"down", down)
		}
	}
	if f.OnState != nil {
		f.OnState(s, err)
	}
	if s == Closed {
		f.keeper.poke() // Redis answers again: give back what is kept
	}
}

// call runs one Redis call through the circuit breaker, bounded by
// CallTimeout. A redis.Nil answer is a success; so is a call cut short
// because ctx ended, which says nothing of Redis. A call to a Redis
// Cluster node that could not be reached is made once more (see reroute).
func (f *Fleet) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	f.init()
	probe, err := f.breaker.allow(time.Now())
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, orDefault(f.CallTimeout, DefaultCallTimeout))
	defer cancel()
	if _, ok := f.Client.(slotMapper); ok && probe && op != "probe" {
		// A call that may close the circuit (the first after a cooldown)
		// checks the cluster as the breaker's own probe does first, and
		// again if made again: a call that succeeds on one node says
		// nothing of the others.
		call := fn
		fn = func(ctx context.Context) error {
			if err := f.ping(ctx); err != nil {
				return err
			}
			return call(ctx)
		}
	}
	err = fn(cctx)
	if f.reroute(ctx, cctx, err) {
		err = fn(cctx)
	}
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		f.breaker.done(probe, nil, time.Now())
		return err
	case ctx.Err() != nil:
		f.breaker.cancelled(probe)
		return fmt.Errorf("robotsredis: %s: %w", op, ctx.Err())
	}
	f.breaker.done(probe, err, time.Now())
	return fmt.Errorf("robotsredis: %s: %w", op, err)
}

// slotMapper is a Redis Cluster client (*redis.ClusterClient), which maps
// the cluster's slots to the nodes that serve them: ReloadState reloads
// its map in the background; ForEachMaster reloads it first (keeping the
// map it has when no node answers), and then runs fn on each master.
type slotMapper interface {
	ReloadState(ctx context.Context)
	ForEachMaster(ctx context.Context, fn func(context.Context, *redis.Client) error) error
}

// reroute has a Redis Cluster client reload its slot map after a call
// failed with err (not redis.Nil, not cut short by ctx), and reports
// whether to make the call again: when no connection to its node could be
// made (the call did not reach it), the map is reloaded within cctx, the
// call's CallTimeout, and the call made again on the new map.
//
// go-redis (v9.22) reloads its map when a node answers MOVED, and
// otherwise once a minute (ClusterStateReloadInterval), not when a node
// cannot be reached (redis/go-redis#3979): a master that dies answers
// nothing, and the calls of its slots go on dialing it for up to that
// minute after the cluster has promoted its replica: each call to those
// slots would fail, and the fleet work alone for their origins (one
// robots.txt fetch per process) long after the cluster has healed. (The
// circuit's probe, see ping, reloads the map too.)
//
// The reload before the call made again must be done when it is: a
// reload in the background (ReloadState) often lands after it, and a
// process's first call to those slots after the promotion fails, as its
// request works alone. ForEachMaster, with nothing to run, is the one
// method of go-redis that reloads the map and returns once it has. Other
// failures (a reply late, say) reload it in the background; go-redis runs
// one reload at a time, and the circuit bounds the calls that fail.
func (f *Fleet) reroute(ctx, cctx context.Context, err error) bool {
	c, ok := f.Client.(slotMapper)
	if !ok || err == nil || errors.Is(err, redis.Nil) || ctx.Err() != nil {
		return false
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || cctx.Err() != nil {
		c.ReloadState(ctx)
		return false
	}
	reloaded := c.ForEachMaster(cctx, func(context.Context, *redis.Client) error { return nil })
	return reloaded == nil && cctx.Err() == nil
}
