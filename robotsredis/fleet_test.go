package robotsredis_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// The multi-process tests run the test binary again as crawler processes
// ("workers"), which take commands on stdin and answer on stdout, against
// httptest origins and one Redis.

func TestMain(m *testing.M) {
	// go-redis logs each failed dial to standard error, through a
	// logger of its package: the tests that cut Redis off would print
	// dozens of lines that say what they check. A program sets that
	// logger itself (see Fleet.Logger); the tests, which are one, quiet
	// it.
	logging.Disable()
	if os.Getenv("ROBOTSREDIS_WORKER") != "" {
		worker()
		return
	}
	os.Exit(m.Run())
}

// offsetClock is the system clock moved forward by a test, so that cached
// files go stale without waiting.
type offsetClock struct{ off atomic.Int64 }

func (c *offsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *offsetClock) Sleep(ctx context.Context, d time.Duration) error {
	return robotsguard.SystemClock{}.Sleep(ctx, d)
}

// worker is a crawler process. Commands:
//
//	crawl M N URL...  M goroutines send N requests each, cycling over the URLs
//	advance D         moves the clock forward by D
//	heal              waits until the circuit is closed (Redis is back)
func worker() {
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	size, _ := strconv.Atoi(os.Getenv("ROBOTSREDIS_SIZE"))
	closed := make(chan struct{}, 1) // a circuit closed
	fleet := &robotsredis.Fleet{
		Client: newClient(nil, strings.Split(os.Getenv("ROBOTSREDIS_ADDRS"), ",")),
		Size:   size, CallTimeout: 500 * time.Millisecond, Failures: 1,
		Cooldown: 50 * time.Millisecond, MaxCooldown: 100 * time.Millisecond,
		OnState: func(s robotsredis.State, err error) {
			say("state %s", s)
			if s == robotsredis.Closed {
				select {
				case closed <- struct{}{}:
				default:
				}
			}
		},
	}
	defer fleet.Close()
	clock := &offsetClock{}
	// A waiter waits for the holder's fetch a quarter of FetchTimeout (2s),
	// longer than it goes without rereading the lock (1s), so that a
	// release published while its subscription reconnects (Redis just
	// restarted) costs a reread, not a second fetch.
	// What the Transport logs (a store that failed, a fetch made alone)
	// comes as "log" lines, which a test prints when a check fails.
	logs := slog.New(slog.NewTextHandler(lineWriter(func(l string) { say("log %s", l) }), nil))
	tr := &robotsguard.Transport{
		UserAgent: "FleetBot/1.0", Store: fleet, Pacer: fleet, Clock: clock, FetchTimeout: 8 * time.Second,
		Logger: logs,
	}
	if v := os.Getenv("ROBOTSREDIS_LIMIT"); v != "" {
		tr.MaxRequestsPerOrigin, _ = strconv.Atoi(v)
	}
	client := &http.Client{Transport: tr}
	say("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch f[0] {
		case "crawl":
			m, _ := strconv.Atoi(f[1])
			n, _ := strconv.Atoi(f[2])
			urls := f[3:]
			var allowed, refused, other atomic.Int64
			var firstErr atomic.Value
			var wg sync.WaitGroup
			for g := range m {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range n {
						resp, err := client.Get(urls[(g+i)%len(urls)])
						switch {
						case err == nil:
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							allowed.Add(1)
						case errors.Is(err, robotsguard.ErrDisallowed):
							refused.Add(1)
						default:
							other.Add(1)
							firstErr.CompareAndSwap(nil, err.Error())
						}
					}
				}()
			}
			wg.Wait()
			say("done allowed=%d refused=%d other=%d err=%v", allowed.Load(), refused.Load(), other.Load(), firstErr.Load())
		case "advance":
			d, _ := time.ParseDuration(f[1])
			clock.off.Add(int64(d))
			say("done")
		case "heal":
			// The breaker probes Redis when each cooldown ends.
			timeout := time.After(20 * time.Second)
		heal:
			for fleet.State() != robotsredis.Closed {
				select {
				case <-closed:
				case <-timeout:
					break heal
				}
			}
			say("done state=%s", fleet.State())
		}
	}
}

// lineWriter hands each line written to it to its func, without its
// newline (slog's handlers write one record a line, in one Write).
type lineWriter func(string)

func (w lineWriter) Write(p []byte) (int, error) {
	w(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// workerProc is a running worker.
type workerProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func startWorkers(t *testing.T, n int, addrs []string, env ...string) []*workerProc {
	t.Helper()
	var ws []*workerProc
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ROBOTSREDIS_WORKER="+strconv.Itoa(i),
			"ROBOTSREDIS_ADDRS="+strings.Join(addrs, ","), "ROBOTSREDIS_SIZE="+strconv.Itoa(n))
		cmd.Env = append(cmd.Env, env...)
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w := &workerProc{t: t, cmd: cmd, in: in, lines: make(chan string, 100)}
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				w.lines <- sc.Text()
			}
			close(w.lines)
		}()
		t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
		ws = append(ws, w)
	}
	for _, w := range ws {
		w.expect("ready")
	}
	return ws
}

func (w *workerProc) send(cmd string) {
	if _, err := io.WriteString(w.in, cmd+"\n"); err != nil {
		w.t.Fatalf("worker: %v", err)
	}
}

// expect returns the next line that starts with prefix, skipping others;
// seen, if not nil, gets the lines skipped.
func (w *workerProc) expect(prefix string, seen ...*[]string) string {
	w.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("worker exited while the test expected %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
			for _, s := range seen {
				*s = append(*s, l)
			}
		case <-timeout:
			w.t.Fatalf("worker did not answer %q", prefix)
		}
	}
}

// all sends cmd to every worker and returns their "done" lines.
func all(ws []*workerProc, cmd string, seen ...*[]string) []string {
	for _, w := range ws {
		w.send(cmd)
	}
	var out []string
	for _, w := range ws {
		out = append(out, w.expect("done", seen...))
	}
	return out
}

// origin is an httptest site with a robots.txt that disallows /private
// and asks for a Crawl-delay, revalidated by its ETag; it counts requests.
type origin struct {
	*httptest.Server
	mu          sync.Mutex
	robots      int
	conditional int
	private     int
	pages       []time.Time
	gate        chan struct{} // when not nil, robots.txt answers once it is closed
	onPage      func(n int)   // when not nil, called with the number of pages received
}

func newOrigin(t *testing.T, delay string) *origin {
	o := &origin{}
	body := "User-agent: *\nDisallow: /private\nCrawl-delay: " + delay + "\n"
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			o.mu.Lock()
			o.robots++
			gate := o.gate
			if r.Header.Get("If-None-Match") != "" {
				o.conditional++
			}
			o.mu.Unlock()
			if gate != nil {
				<-gate
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Cache-Control", "max-age=60")
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			io.WriteString(w, body)
			return
		}
		o.mu.Lock()
		if strings.HasPrefix(r.URL.Path, "/private") {
			o.private++
		}
		o.pages = append(o.pages, time.Now())
		n, onPage := len(o.pages), o.onPage
		o.mu.Unlock()
		if onPage != nil {
			onPage(n)
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *origin) counts() (robots, conditional, private, pages int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.robots, o.conditional, o.private, len(o.pages)
}

// checkDone fails the test unless every worker's crawl sent allowed and
// refused the expected numbers of requests, with no other error.
func checkDone(t *testing.T, lines []string, allowed, refused int) {
	t.Helper()
	want := fmt.Sprintf("done allowed=%d refused=%d other=0 ", allowed, refused)
	for _, l := range lines {
		if !strings.HasPrefix(l, want) {
			t.Errorf("worker: %s, want %s", l, want)
		}
	}
}

// gated runs crawl on every worker against o, holding o's robots.txt
// until all but one worker wait for the lock's holder (subscribed to the
// release channel), so that the fetch is shared, not sequential.
func gated(t *testing.T, ws []*workerProc, addrs []string, o *origin, crawl string, seen ...*[]string) []string {
	o.mu.Lock()
	o.gate = make(chan struct{})
	o.mu.Unlock()
	open := sync.OnceFunc(func() {
		o.mu.Lock()
		close(o.gate)
		o.gate = nil
		o.mu.Unlock()
	})
	// Should the wait fail (t.Fatal), the fetch held would hold o.Close,
	// at the test's cleanup, until the test binary's timeout.
	defer open()
	for _, w := range ws {
		w.send(crawl)
	}
	waitSubscribers(t, addrs, len(ws)-1)
	open()
	var out []string
	for _, w := range ws {
		out = append(out, w.expect("done", seen...))
	}
	return out
}

// waitSubscribers waits until n processes subscribe to the release
// channel: no event says so, so it reads Redis, for a bounded time.
func waitSubscribers(t *testing.T, addrs []string, n int) {
	t.Helper()
	c := newClient(t, addrs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		got := 0
		if len(addrs) == 1 {
			m, _ := c.PubSubNumSub(ctx, robotsredis.ReleasedChannel).Result()
			got = int(m[robotsredis.ReleasedChannel])
		} else {
			for _, a := range addrs { // a cluster's subscribers are per node
				m, _ := newClient(t, []string{a}).PubSubNumSub(ctx, robotsredis.ReleasedChannel).Result()
				got += int(m[robotsredis.ReleasedChannel])
			}
		}
		if got >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d processes subscribed, want %d", got, n)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func urls(o *origin) string {
	return o.URL + "/a " + o.URL + "/private/x " + o.URL + "/b " + o.URL + "/c"
}

// fleetColdAndStale: N processes × M requests to a cold origin cause one
// robots.txt fetch; once stale, one revalidation.
func fleetColdAndStale(t *testing.T, addrs []string) {
	const n, m, each = 3, 4, 4
	ws := startWorkers(t, n, addrs)
	o := newOrigin(t, "0.005")
	checkDone(t, gated(t, ws, addrs, o, fmt.Sprintf("crawl %d %d %s", m, each, urls(o))), m*each*3/4, m*each/4)
	if robots, _, private, _ := o.counts(); robots != 1 || private != 0 {
		t.Fatalf("cold: %d robots.txt fetches and %d disallowed requests received, want 1 and 0", robots, private)
	}
	all(ws, "advance 90s")
	checkDone(t, all(ws, fmt.Sprintf("crawl %d %d %s", m, each, urls(o))), m*each*3/4, m*each/4)
	if robots, cond, private, _ := o.counts(); robots != 2 || cond != 1 || private != 0 {
		t.Fatalf("stale: %d robots.txt requests (%d conditional) and %d disallowed received, want 2 (1) and 0", robots, cond, private)
	}
}

func TestFleetColdAndStale(t *testing.T) {
	s := startRedis(t)
	fleetColdAndStale(t, []string{s.addr()})
}

func TestFleetCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	addrs := addrsOf(startCluster(t, 3, 0))
	t.Run("fetch", func(t *testing.T) { fleetColdAndStale(t, addrs) })
	t.Run("rate", func(t *testing.T) { fleetRate(t, addrs, "ROBOTSREDIS_LIMIT=-1", 0.05, 0) })
}

// TestFleetRedisDown: Redis killed mid-crawl; the crawl goes on, alone,
// with no disallowed request sent, and shares again once Redis is back.
func TestFleetRedisDown(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts Redis")
	}
	fleetRedisDown(t, []*redisServer{startRedis(t)}, restart)
}

// TestFleetClusterNodeDown: the same with a 3-node Redis Cluster, whose
// node that holds the crawled origin's keys is killed mid-crawl, then
// started again with its cluster configuration, so that the cluster heals.
func TestFleetClusterNodeDown(t *testing.T) {
	fleetRedisDown(t, startCluster(t, 3, 0), restart)
}

// TestFleetClusterFailover: the same with a Redis Cluster of 3 masters,
// each with a replica, whose master that holds the crawled origin's keys
// is killed mid-crawl for good: the cluster promotes its replica, and the
// fleet shares again through it.
func TestFleetClusterFailover(t *testing.T) {
	fleetRedisDown(t, startCluster(t, 3, 1), failover)
}

// TestProbeFollowsFailover: the circuit opened by a Redis Cluster master
// that died closes once its replica has taken its slots, and on a slot
// map that says so: the calls after it go to the promoted replica, not to
// the dead node (go-redis keeps the map it loaded for a minute, and a
// PING answered by any other node would have closed the circuit on it).
func TestProbeFollowsFailover(t *testing.T) {
	nodes := startCluster(t, 3, 1)
	client := newClient(t, addrsOf(nodes)).(*redis.ClusterClient)
	states := make(chan robotsredis.State, 16)
	fleet := &robotsredis.Fleet{
		Client: client, Failures: 1, CallTimeout: time.Second,
		Cooldown: 20 * time.Millisecond, MaxCooldown: 50 * time.Millisecond,
		OnState: func(s robotsredis.State, err error) { states <- s },
	}
	defer fleet.Close()
	ctx := context.Background()
	const origin = "https://failover.example"
	key := cache.Key(origin + "/robots.txt")
	if err := fleet.Set(ctx, key, []byte("User-agent: *\n"), time.Minute); err != nil {
		t.Fatal(err)
	}
	master := slotOwner(t, nodes, origin)
	var replica *redisServer
	for _, s := range nodes {
		if replicaOf(t, s) == master.port {
			replica = s
		}
	}
	master.kill()
	if _, _, err := fleet.Get(ctx, key); err == nil {
		t.Fatal("Get with the origin's master dead: no error")
	}
	if s := <-states; s != robotsredis.Open {
		t.Fatalf("circuit %s after the master died, want open", s)
	}
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := replica.client(t).Do(tctx, "cluster", "failover", "takeover").Err()
	cancel()
	if err != nil {
		t.Fatalf("CLUSTER FAILOVER TAKEOVER: %v", err)
	}
	select {
	case s := <-states:
		if s != robotsredis.Closed {
			t.Fatalf("circuit %s, want closed", s)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("circuit %s 20s after the failover, want closed", fleet.State())
	}
	m, err := client.MasterForKey(ctx, "{"+origin+"}")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Options().Addr; got != replica.addr() {
		t.Errorf("circuit closed: the client sends the origin's calls to %s; want %s, the replica promoted (the dead master was %s)", got, replica.addr(), master.addr())
	}
	if _, _, err := fleet.Get(ctx, key); err != nil {
		t.Errorf("Get after the circuit closed: %v", err)
	}
}

// TestProbeShardWithoutMaster: while a shard of a Redis Cluster has no
// master (killed, no replica), the circuit stays open however many calls
// go to the other shards: the first call after each cooldown, which may
// close it, succeeds only if every master answers. Before, the circuit
// closed on a PING that any node answered, or on a call to a live shard,
// and opened again at the next call to the dead one.
func TestProbeShardWithoutMaster(t *testing.T) {
	nodes := startCluster(t, 3, 0)
	client := &probeCounter{
		ClusterClient: redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrsOf(nodes), ContextTimeoutEnabled: true, DialerRetries: 1}),
		probes:        make(chan struct{}, 100),
	}
	defer client.Close()
	var closes atomic.Int32
	fleet := &robotsredis.Fleet{
		Client: client, Failures: 1, CallTimeout: time.Second,
		Cooldown: 10 * time.Millisecond, MaxCooldown: 10 * time.Millisecond,
		OnState: func(s robotsredis.State, err error) {
			if s == robotsredis.Closed {
				closes.Add(1)
			}
		},
	}
	defer fleet.Close()
	ctx := context.Background()
	deadOrigin, liveOrigin := "https://o0.example", ""
	dead := slotOwner(t, nodes, deadOrigin)
	for i := 1; liveOrigin == ""; i++ {
		if o := fmt.Sprintf("https://o%d.example", i); slotOwner(t, nodes, o) != dead {
			liveOrigin = o
		}
	}
	dead.kill()
	if _, _, err := fleet.Get(ctx, cache.Key(deadOrigin+"/robots.txt")); err == nil {
		t.Fatal("Get with the origin's master dead: no error")
	}
	// Calls to the live shard, as fast as they come back, until the
	// cluster has been probed 20 times (by the breaker's probe or by a
	// call that took its place).
	live := cache.Key(liveOrigin + "/robots.txt")
	timeout := time.After(20 * time.Second)
	for n := 0; n < 20; {
		select {
		case <-client.probes:
			n++
		case <-timeout:
			t.Fatalf("%d probes in 20s, want 20", n)
		default:
			fleet.Get(ctx, live)
		}
	}
	if n := closes.Load(); n != 0 {
		t.Errorf("the circuit closed %d times while a shard had no master, want 0", n)
	}
	if s := fleet.State(); s == robotsredis.Closed {
		t.Errorf("circuit %s while a shard has no master", s)
	}
}

// probeCounter is a Cluster client that tells each ForEachMaster call (a
// probe of the Fleet's circuit) on probes.
type probeCounter struct {
	*redis.ClusterClient
	probes chan struct{}
}

func (c *probeCounter) ForEachMaster(ctx context.Context, fn func(context.Context, *redis.Client) error) error {
	select {
	case c.probes <- struct{}{}:
	default:
	}
	return c.ClusterClient.ForEachMaster(ctx, fn)
}

// A fault is what happens to the Redis node that fleetRedisDown kills.
type fault int

const (
	restart  fault = iota // started again, empty (and rejoins its cluster)
	failover              // never started again: the cluster promotes its replica
)

// fleetRedisDown kills the Redis node that holds an origin's keys (the
// only one, or the master of the origin's cluster slot) while the fleet
// crawls it: the crawl goes on, alone, with no disallowed request sent;
// once the node is back (restart), or its replica has taken its slots
// (failover), every process's circuit closes, and a cold origin whose keys
// the node holds is fetched once for the fleet.
func fleetRedisDown(t *testing.T, nodes []*redisServer, f fault) {
	const n, m, each = 3, 4, 4
	addrs := addrsOf(nodes)
	owner := func(o *origin) *redisServer {
		if len(nodes) == 1 {
			return nodes[0]
		}
		return slotOwner(t, nodes, o.URL)
	}
	ws := startWorkers(t, n, addrs)
	a, b := newOrigin(t, "0.005"), newOrigin(t, "0.005")
	s := owner(a)
	// Every process knows a's rules, from one fetch, before Redis dies: a
	// process still waiting for the fetch would fetch it alone then.
	checkDone(t, gated(t, ws, addrs, a, fmt.Sprintf("crawl %d %d %s", m, each, urls(a))), m*each*3/4, m*each/4)
	warm := n * m * each * 3 / 4
	// Redis dies mid-crawl: when a has received a dozen more pages.
	killed := make(chan struct{})
	var keys []string
	a.mu.Lock()
	a.onPage = func(n int) {
		if n == warm+12 {
			// The node killed holds a's keys (in the cluster, not the others').
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			keys, _ = s.client(t).Keys(ctx, "*{"+a.URL+"}*").Result()
			cancel()
			s.kill()
			close(killed)
		}
	}
	a.mu.Unlock()
	const long = 4 * each
	var seen []string
	checkDone(t, all(ws, fmt.Sprintf("crawl %d %d %s", m, long, urls(a)), &seen), m*long*3/4, m*long/4)
	select {
	case <-killed:
	default:
		t.Fatalf("the crawl ended before Redis was killed, at %d pages of a", warm+12)
	}
	if len(keys) == 0 {
		t.Errorf("the Redis killed (%s) held none of %s's keys", s.addr(), a.URL)
	}
	if robots, _, private, pages := a.counts(); robots != 1 || private != 0 || pages != warm+n*m*long*3/4 {
		t.Errorf("Redis killed mid-crawl: %d robots.txt fetches, %d disallowed and %d allowed requests received; want 1, 0 and %d", robots, private, pages, warm+n*m*long*3/4)
	}
	checkDone(t, all(ws, fmt.Sprintf("crawl %d %d %s %s", m, each, urls(a), urls(b)), &seen), m*each*3/4, m*each/4)
	for _, o := range []*origin{a, b} {
		if robots, _, private, _ := o.counts(); private != 0 || robots < 1 || robots > n {
			t.Errorf("Redis down: %d robots.txt fetches, %d disallowed requests received; want 1 to %d, and 0", robots, private, n)
		}
	}
	if !slices.Contains(seen, "state open") {
		t.Errorf("no process saw its circuit open while Redis was down; it printed: %q", seen)
	}
	live := addrs
	switch {
	case f == failover:
		// The cluster's state is ok again once a replica of the killed
		// master has taken its slots, after the node timeout (2s) and an
		// election.
		live = slices.DeleteFunc(slices.Clone(addrs), func(a string) bool { return a == s.addr() })
		start := time.Now()
		dead := s
		s = waitPromoted(t, nodes, a.URL, dead)
		waitClusterOK(t, live)
		t.Logf("%s took over from %s in %v", s.addr(), dead.addr(), time.Since(start).Round(10*time.Millisecond))
	case len(nodes) > 1:
		s.start()
		waitClusterOK(t, addrs)
	default:
		s.start()
	}
	for _, l := range all(ws, "heal") {
		if l != "done state=closed" {
			t.Fatalf("worker after Redis came back: %s", l)
		}
	}
	// A cold origin whose keys the node back, or promoted, holds.
	c := newOrigin(t, "0.005")
	for i := 0; owner(c) != s; i++ {
		if i == 100 {
			t.Fatalf("no origin found on node %s", s.addr())
		}
		c.Close()
		c = newOrigin(t, "0.005")
	}
	var said []string
	checkDone(t, gated(t, ws, live, c, fmt.Sprintf("crawl %d %d %s", m, each, urls(c)), &said), m*each*3/4, m*each/4)
	if robots, _, private, _ := c.counts(); robots != 1 || private != 0 {
		t.Errorf("Redis back: %d robots.txt fetches of a cold origin, %d disallowed received; want 1 and 0; the workers said:\n%s", robots, private, strings.Join(said, "\n"))
	}
}

// TestFleetRate: the fleet's requests to an origin come one Crawl-delay
// apart in aggregate, however many processes send them: within 5% when
// requests are spaced by their slots alone; when each must also wait for
// the previous response to end (one request under way, the default), the
// response times add up, and no two requests come closer than the delay.
func TestFleetRate(t *testing.T) {
	addrs := []string{startRedis(t).addr()}
	t.Run("slots", func(t *testing.T) { fleetRate(t, addrs, "ROBOTSREDIS_LIMIT=-1", 0.05, 0) })
	// With one request under way at a time, each interval also holds the
	// response's time and the lease's round trips, which a busy machine
	// stretches: only the politeness is asserted, no request sooner than
	// the Crawl-delay after the previous one.
	t.Run("places", func(t *testing.T) { fleetRate(t, addrs, "ROBOTSREDIS_LIMIT=1", math.Inf(1), 0.95) })
}

// fleetRate checks the mean interval between the requests of a fleet to an
// origin that asks for 100ms, within tolerance, and the shortest at least
// minGap of it, when minGap is not zero.
func fleetRate(t *testing.T, addrs []string, env string, tolerance, minGap float64) {
	n, m, each := 3, 3, 4
	if testing.Short() {
		n, m, each = 2, 2, 4
	}
	const delay = 100 * time.Millisecond
	ws := startWorkers(t, n, addrs, env)
	o := newOrigin(t, "0.1")
	checkDone(t, all(ws, fmt.Sprintf("crawl %d %d %s/a %s/b", m, each, o.URL, o.URL)), m*each, 0)
	o.mu.Lock()
	pages := append([]time.Time(nil), o.pages...)
	o.mu.Unlock()
	if len(pages) != n*m*each {
		t.Fatalf("%d pages received, want %d", len(pages), n*m*each)
	}
	mean := pages[len(pages)-1].Sub(pages[0]) / time.Duration(len(pages)-1)
	var gaps []time.Duration
	for i := 1; i < len(pages); i++ {
		gaps = append(gaps, pages[i].Sub(pages[i-1]))
	}
	t.Logf("%d requests from %d processes: mean interval %v, shortest %v, Crawl-delay %v", len(pages), n, mean, slices.Min(gaps), delay)
	if d := float64(mean-delay) / float64(delay); d < -0.05 || d > tolerance {
		t.Errorf("mean interval %v, want %v, -5%% to +%.0f%%; intervals: %v", mean, delay, 100*tolerance, gaps)
	}
	if minGap > 0 && float64(slices.Min(gaps)) < minGap*float64(delay) {
		t.Errorf("shortest interval %v, want at least %.0f%% of %v; intervals: %v", slices.Min(gaps), 100*minGap, delay, gaps)
	}
}
