package robotsredis_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/internal/robotsgen"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// go test -run TestFleetInvariant -fleet-invariant 2m -v ./robotsredis
var (
	fleetInvariantFor  = flag.Duration("fleet-invariant", 3*time.Second, "how long TestFleetInvariant crawls")
	fleetInvariantSeed = flag.Uint64("fleet-invariant.seed", 9309, "seed of TestFleetInvariant's files, faults and URLs")
)

// TestFleetInvariant: the root's load invariant (invariant_test.go at the
// repository root) across a fleet: three Fleets with clients of their own
// crawl the same origins through one Redis, behind a proxy, while Redis
// fails at random: killed and restarted empty, its replies held past
// CallTimeout (reservations whose answers are lost), or cut off. Each
// origin serves random robots.txt files (some changing at every fetch,
// some flapping 404 and 503), judges every request against the files it
// served, and records when each process's requests arrive. Zero requests
// the files forbade; each process's requests to an origin an interval
// apart at least, Redis answering or not; and the fleet's, in any window
// of 20 intervals, within the README's promise: one an interval while the
// fleet shares the pace, each process one per Size intervals while alone,
// so (1 + 1/Size) per interval at most while some processes are alone and
// others are not, and a request more for each fault (Redis restarted
// empty forgets the slots it gave).
func TestFleetInvariant(t *testing.T) {
	s := startRedis(t)
	p := newProxy(t, s.addr())
	fleetInvariant(t, func(t testing.TB) redis.UniversalClient { return p.client(t) }, []invariantFault{
		{"restart empty", func(pause func() bool) { s.kill(); pause(); s.start() }},
		{"replies late", func(pause func() bool) {
			p.setDelay(DefaultCallTimeoutForTest + 50*time.Millisecond)
			pause()
			p.setDelay(0)
		}},
		{"cut off", func(pause func() bool) { p.cut(); pause(); p.restore() }},
	})
}

// An invariantFault is a fault of Redis that fleetInvariant injects: run
// starts it, calls pause (which waits 100-400 ms, or until the run ends),
// and ends it.
type invariantFault struct {
	name string
	run  func(pause func() bool)
}

// fleetInvariant crawls with three Fleets whose clients client makes,
// while faults, one at a time, befall their Redis (see TestFleetInvariant).
func fleetInvariant(t *testing.T, client func(testing.TB) redis.UniversalClient, faults []invariantFault) {
	const (
		procs    = 3
		workers  = 4 // per process
		origins  = 6
		interval = 40 * time.Millisecond
		maxAge   = time.Second
	)
	rng := rand.New(rand.NewPCG(*fleetInvariantSeed, 27))

	type site struct {
		fault  int // 0 none, 1 flapping 404 and 503, 2 rules change at every fetch
		mu     sync.Mutex
		rng    *rand.Rand
		file   string
		log    []robotsgen.Served
		arrive [procs][]time.Time // page requests, by process
		all    []time.Time
		bad    []string
		why    string // the answers served before the first bad request
	}
	sites := map[string]*site{}
	var names []string
	for i := range origins {
		name := fmt.Sprintf("o%d.test", i)
		o := &site{fault: i % 3, rng: rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))}
		o.file = robotsgen.Robots(o.rng)
		sites[name] = o
		names = append(names, name)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		host, _, _ := strings.Cut(r.Host, ":")
		o := sites[host]
		if o == nil {
			http.Error(w, "no such origin", http.StatusMisdirectedRequest)
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if r.URL.Path != "/robots.txt" {
			if !robotsgen.Allows(o.log, r.URL, now, 2*maxAge) {
				if len(o.bad) == 0 {
					o.why = robotsgen.Describe(o.log, r.URL, now)
					if n, err := strconv.ParseInt(r.Header.Get("X-Begun"), 10, 64); err == nil {
						o.why += fmt.Sprintf("\tthe request began %v before it arrived\n", now.Sub(time.Unix(0, n)))
					}
				}
				o.bad = append(o.bad, r.URL.RequestURI())
			}
			if n, err := strconv.Atoi(r.Header.Get("X-Process")); err == nil && n >= 0 && n < procs {
				o.arrive[n] = append(o.arrive[n], now)
			}
			o.all = append(o.all, now)
			io.WriteString(w, "ok")
			return
		}
		if o.fault == 2 {
			o.file = robotsgen.Robots(o.rng)
		}
		roll := o.rng.IntN(4)
		switch {
		case o.fault == 1 && roll == 0:
			// With the files' lifetime: a 404 without one is held for
			// MaxAge (a day), past the window acceptable judges by.
			o.log = append(o.log, robotsgen.Served{At: now})
			w.Header().Set("Cache-Control", fmt.Sprintf("max-age=%d", int(maxAge/time.Second)))
			w.WriteHeader(http.StatusNotFound)
			return
		case o.fault == 1 && roll == 1:
			o.log = append(o.log, robotsgen.Served{At: now, Fail: true})
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		o.log = append(o.log, robotsgen.Served{At: now, Rules: policy.Parse([]byte(o.file))})
		w.Header().Set("Cache-Control", fmt.Sprintf("max-age=%d", int(maxAge/time.Second)))
		io.WriteString(w, o.file)
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	var states [procs]atomic.Int64 // circuit openings, by process
	sentAt := &sendLog{at: map[string][]time.Time{}}
	grantedAt := &sendLog{at: map[string][]time.Time{}}
	var clients []*http.Client
	for i := range procs {
		f := &robotsredis.Fleet{Client: client(t), Size: procs, Cooldown: 50 * time.Millisecond, MaxCooldown: 200 * time.Millisecond,
			OnState: func(st robotsredis.State, _ error) {
				if st == robotsredis.Open {
					states[i].Add(1)
				}
			}}
		t.Cleanup(func() { f.Close() })
		base := &http.Transport{
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, network, addr) // every origin is this server
			},
			MaxIdleConnsPerHost: 16,
		}
		t.Cleanup(base.CloseIdleConnections)
		// MinResponseTime 50 ms: every request's deadline is the end of
		// the run, which the default (a second) would take a third of.
		tr := &robotsguard.Transport{Base: &stamped{base: base, sent: sentAt}, UserAgent: "TestBot/1.0", Store: f, Pacer: &timedPacer{Fleet: f, process: strconv.Itoa(i), granted: grantedAt},
			Delay: interval, FetchTimeout: 2 * time.Second, MinResponseTime: -1,
			// The files' lifetime, not the default floor of a minute:
			// they are fetched again, and shared, during the run.
			CachePolicy: cache.Policy{MinAge: maxAge}}
		clients = append(clients, &http.Client{Transport: tr})
	}

	ctx, cancel := context.WithTimeout(context.Background(), *fleetInvariantFor)
	defer cancel()
	// Faults, one at a time, each for 100-400 ms, 100-400 ms apart.
	injected := map[string]int{}
	faulted := make(chan struct{})
	frng := rand.New(rand.NewPCG(rng.Uint64(), 1))
	go func() {
		defer close(faulted)
		pause := func() bool {
			tm := time.NewTimer(time.Duration(100+frng.IntN(300)) * time.Millisecond)
			defer tm.Stop()
			select {
			case <-tm.C:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for pause() {
			f := faults[frng.IntN(len(faults))]
			injected[f.name]++
			f.run(pause)
		}
	}()

	var sent, refused atomic.Int64
	var errs sync.Map
	var wg sync.WaitGroup
	for i, c := range clients {
		for w := range workers {
			wg.Add(1)
			wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(i*workers+w)))
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					u := "http://" + names[wrng.IntN(len(names))] + robotsgen.Path(wrng)
					req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
					req.Header.Set("X-Process", strconv.Itoa(i))
					req.Header.Set("X-Begun", strconv.FormatInt(time.Now().UnixNano(), 10))
					resp, err := c.Do(req)
					switch {
					case err == nil:
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						sent.Add(1)
					case errors.Is(err, robotsguard.ErrDisallowed):
						refused.Add(1)
					case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
						// the end of the run: a request's turn after it
					default:
						errs.Store(err.Error(), true)
					}
				}
			}()
		}
	}
	wg.Wait()
	<-faulted

	// A timer that rings late, or a goroutine preempted between its turn
	// and its send (a loaded machine, -race), brings one request closer
	// to the next, whose turn was set an interval after the first's.
	tolerance := interval / 8
	var closest, granted, arrived time.Duration = 1 << 62, 1 << 62, 1 << 62
	worst, worstAt := 0, ""
	const window = 20 * interval
	allowed := int(window/interval)*(procs+1)/procs + 1 + 1
	for _, name := range names {
		o := sites[name]
		o.mu.Lock()
		if len(o.bad) > 0 {
			t.Errorf("%s (fault %d) got %d requests its files forbade, e.g. %q; robots.txt answers before it:\n%s", name, o.fault, len(o.bad), o.bad[0], o.why)
		}
		for pi, ts := range o.arrive {
			for k := 1; k < len(ts); k++ {
				arrived = min(arrived, ts[k].Sub(ts[k-1]))
			}
			ts := sentAt.at[name+"/"+strconv.Itoa(pi)]
			for k := 1; k < len(ts); k++ {
				gap := ts[k].Sub(ts[k-1])
				closest = min(closest, gap)
				if gap < interval-tolerance {
					t.Errorf("%s: process %d sent two requests %v apart, interval %v", name, pi, gap, interval)
				}
			}
			// The turns, as granted: a turn given back (its request
			// decided again) is not a request sent.
			ts = grantedAt.at[name+"/"+strconv.Itoa(pi)]
			for k := 1; k < len(ts); k++ {
				granted = min(granted, ts[k].Sub(ts[k-1]))
			}
		}
		all := slices.Clone(o.all)
		slices.SortFunc(all, func(a, b time.Time) int { return a.Compare(b) })
		for k := range all {
			n := 0
			for j := k; j < len(all) && all[j].Sub(all[k]) < window; j++ {
				n++
			}
			if n > worst {
				worst, worstAt = n, name
			}
		}
		o.mu.Unlock()
	}
	var opened []int64
	for i := range states {
		opened = append(opened, states[i].Load())
	}
	total := 0
	for _, n := range injected {
		total += n
	}
	t.Logf("%v: %d requests sent, %d refused; faults %v; circuits opened %v; closest requests of a process %v granted, %v sent, %v arrived; the most in %v at an origin %d (%s), promise %d + %d faults",
		*fleetInvariantFor, sent.Load(), refused.Load(), injected, opened, granted, closest, arrived, window, worst, worstAt, allowed, total)
	errs.Range(func(k, _ any) bool { t.Logf("error: %v", k); return true })
	if worst > allowed+total {
		t.Errorf("%d requests to %s in %v: more than the fleet's pace allows (%d, and one for each of %d faults)", worst, worstAt, window, allowed, total)
	}
	if sent.Load() == 0 || refused.Load() == 0 {
		t.Errorf("sent %d, refused %d: the load does not exercise both", sent.Load(), refused.Load())
	}
}

// DefaultCallTimeoutForTest is the Fleet's default CallTimeout.
const DefaultCallTimeoutForTest = robotsredis.DefaultCallTimeout

// sendLog records when each process sent its page requests to each
// origin (when the Transport handed them to its Base), or when its Pacer
// granted their turns.
type sendLog struct {
	mu sync.Mutex
	at map[string][]time.Time // by "origin/process"
}

// timedPacer is a process's Fleet, as its Pacer, that records when it
// grants each turn, in granted (by "origin/process").
type timedPacer struct {
	*robotsredis.Fleet
	process string
	granted *sendLog
}

func (p *timedPacer) Acquire(ctx context.Context, r robotsguard.PaceRequest) (robotsguard.Lease, error) {
	l, err := p.Fleet.Acquire(ctx, r)
	if err == nil {
		k := strings.TrimPrefix(r.Origin, "http://") + "/" + p.process
		p.granted.mu.Lock()
		p.granted.at[k] = append(p.granted.at[k], time.Now())
		p.granted.mu.Unlock()
	}
	return l, err
}

type stamped struct {
	base http.RoundTripper
	sent *sendLog
}

func (s *stamped) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path != "/robots.txt" {
		k := r.URL.Hostname() + "/" + r.Header.Get("X-Process")
		s.sent.mu.Lock()
		s.sent.at[k] = append(s.sent.at[k], time.Now())
		s.sent.mu.Unlock()
	}
	return s.base.RoundTrip(r)
}

// TestFleetClusterInvariant: TestFleetInvariant with a Redis Cluster of 3
// masters, each with a replica, each node behind a proxy of its own: the
// faults are the same (a master restarted empty, every reply late, every
// node cut off), and a master that fails over: killed, its replica takes
// its slots over (CLUSTER FAILOVER TAKEOVER: at once, rather than after
// the node timeout), and it comes back as the replica.
func TestFleetClusterInvariant(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	nodes := startCluster(t, 3, 1)
	proxies := map[string]*proxy{}
	for _, s := range nodes {
		proxies[s.addr()] = newProxy(t, s.addr())
	}
	// The shards, master first, as the cluster was created.
	var shards [][2]*redisServer
	for _, m := range nodes {
		for _, r := range nodes {
			if replicaOf(t, r) == m.port {
				shards = append(shards, [2]*redisServer{m, r})
			}
		}
	}
	if len(shards) != 3 {
		t.Fatalf("%d shards of a master and its replica, want 3", len(shards))
	}
	all := func(f func(p *proxy)) {
		for _, p := range proxies {
			f(p)
		}
	}
	restarted, failed := 0, 0
	fleetInvariant(t, func(t testing.TB) redis.UniversalClient {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrsOf(nodes), ContextTimeoutEnabled: true,
			Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if p := proxies[addr]; p != nil {
					addr = p.addr()
				}
				var d net.Dialer
				return d.DialContext(ctx, network, addr)
			}})
		t.Cleanup(func() { c.Close() })
		return c
	}, []invariantFault{
		{"restart empty", func(pause func() bool) {
			s := shards[restarted%len(shards)][0]
			restarted++
			s.kill()
			pause()
			s.start()
		}},
		{"replies late", func(pause func() bool) {
			all(func(p *proxy) { p.setDelay(DefaultCallTimeoutForTest + 50*time.Millisecond) })
			pause()
			all(func(p *proxy) { p.setDelay(0) })
		}},
		{"cut off", func(pause func() bool) {
			all((*proxy).cut)
			pause()
			all((*proxy).restore)
		}},
		{"failover", func(pause func() bool) {
			sh := &shards[failed%len(shards)]
			failed++
			sh[0].kill()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := sh[1].client(t).Do(ctx, "cluster", "failover", "takeover").Err()
			cancel()
			if err != nil {
				t.Errorf("CLUSTER FAILOVER TAKEOVER: %v", err)
			}
			pause()
			sh[0].start()
			sh[0], sh[1] = sh[1], sh[0]
		}},
	})
}

// replicaOf returns the port of the master of the cluster node s, or 0 if
// s is a master.
func replicaOf(t testing.TB, s *redisServer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := s.client(t).Info(ctx, "replication").Result()
	if err != nil {
		t.Fatalf("INFO replication: %v", err)
	}
	for l := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "master_port:"); ok {
			port, _ := strconv.Atoi(v)
			return port
		}
	}
	return 0
}
