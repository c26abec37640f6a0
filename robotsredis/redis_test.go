package robotsredis_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a redis-server process of a test, on a loopback port,
// without persistence, stopped at the end of the test.
type redisServer struct {
	t    testing.TB
	port int
	dir  string
	args []string
	cmd  *exec.Cmd
}

// needRedis skips the test when redis-server is not installed, unless CI
// is set: CI installs it, and a test that skips there tests nothing.
func needRedis(t testing.TB) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-server is not installed (CI is set): %v", err)
		}
		t.Skip("redis-server is not installed")
	}
}

// freePort returns a loopback port that is free, and whose cluster bus
// port (10000 above) is free too.
func freePort(t testing.TB) int {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port+10000 > 65535 {
			continue
		}
		if b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000)); err == nil {
			b.Close()
			return port
		}
	}
	t.Fatal("no free port pair")
	return 0
}

func startRedis(t testing.TB, extra ...string) *redisServer {
	t.Helper()
	needRedis(t)
	s := &redisServer{t: t, port: freePort(t), dir: t.TempDir(), args: extra}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// start runs redis-server and returns once it accepts connections, as its
// log says.
func (s *redisServer) start() {
	s.t.Helper()
	s.kill() // one still running would be left behind, unstopped
	args := append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--logfile", "", "--daemonize", "no"}, s.args...)
	s.cmd = exec.Command("redis-server", args...)
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server: %v", err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				close(ready)
				break
			}
		}
		for sc.Scan() { // drain
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		s.t.Fatalf("redis-server on port %d did not start", s.port)
	}
}

// kill stops the server at once (SIGKILL), as a crash would.
func (s *redisServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	s.cmd = nil
}

func (s *redisServer) stop() { s.kill() }

func (s *redisServer) client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// startCluster starts a Redis Cluster of n masters, each with the given
// number of replicas, on loopback and returns its nodes once the cluster's
// state is ok and every replica is in sync with its master. Each node keeps
// its cluster configuration (nodes.conf) in its directory, so that a node
// killed and started again rejoins the cluster with its identity and its
// slots; a master killed for longer than the node timeout (2s) is replaced
// by one of its replicas. A master sends its data to a replica at once
// (repl-diskless-sync-delay 0), rather than wait 5s for other replicas.
func startCluster(t testing.TB, n, replicas int) []*redisServer {
	t.Helper()
	var nodes []*redisServer
	for range n * (1 + replicas) {
		nodes = append(nodes, startRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
			"--repl-diskless-sync-delay", "0"))
	}
	addrs := addrsOf(nodes)
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	waitClusterOK(t, addrs)
	return nodes
}

func addrsOf(nodes []*redisServer) []string {
	var addrs []string
	for _, s := range nodes {
		addrs = append(addrs, s.addr())
	}
	return addrs
}

// waitClusterOK waits until every node of addrs says the cluster's state is
// ok (all its slots served), sees none of addrs failing, and, if it is a
// replica, is in sync with its master. Nodes not in addrs (a master killed
// and replaced) may be failing. No event says when every node agrees: it
// reads their state, for a bounded time.
func waitClusterOK(t testing.TB, addrs []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		for {
			info, _ := c.ClusterInfo(ctx).Result()
			nodes, _ := c.ClusterNodes(ctx).Result()
			repl, _ := c.Info(ctx, "replication").Result()
			if strings.Contains(info, "cluster_state:ok") && !failing(nodes, addrs) &&
				(strings.Contains(repl, "role:master") || strings.Contains(repl, "master_link_status:up")) {
				break
			}
			select {
			case <-ctx.Done():
				c.Close()
				t.Fatalf("cluster node %s not ok: %s\n%s\n%s", a, info, nodes, repl)
			case <-time.After(50 * time.Millisecond):
			}
		}
		c.Close()
	}
}

// failing reports whether the CLUSTER NODES reply nodes flags one of addrs
// as failing, or suspected to ("fail?"), or says nothing of it.
func failing(nodes string, addrs []string) bool {
	for _, a := range addrs {
		seen := false
		for l := range strings.Lines(nodes) {
			// <id> <ip:port@cport> <flags> ...
			f := strings.Fields(l)
			if len(f) < 3 || strings.Split(f[1], "@")[0] != a {
				continue
			}
			if strings.Contains(f[2], "fail") {
				return true
			}
			seen = true
		}
		if !seen {
			return true
		}
	}
	return false
}

// slotOwner returns the node of a cluster that holds the keys of origin
// (which carry it in a hash tag), as the slot map of its first node not
// killed says.
func slotOwner(t testing.TB, nodes []*redisServer, origin string) *redisServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := servedBy(ctx, nodes, origin)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitPromoted waits until a replica has taken over the slot of origin,
// whose master dead was killed, and returns it. A cluster notices a dead
// master after its node timeout (2s): until then its state is ok, and
// its map still names the dead master. No event says when it has; it
// reads the map, for a bounded time.
func waitPromoted(t testing.TB, nodes []*redisServer, origin string, dead *redisServer) *redisServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		s, err := servedBy(ctx, nodes, origin) // never dead: it was killed
		if err == nil {
			return s
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no replica took over from %s: %v", dead.addr(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// servedBy returns the node of nodes, not killed, that the slot map of
// the first node not killed names as the online master of origin's slot.
func servedBy(ctx context.Context, nodes []*redisServer, origin string) (*redisServer, error) {
	var c *redis.Client
	for _, s := range nodes {
		if s.cmd != nil { // not killed
			c = redis.NewClient(&redis.Options{Addr: s.addr(), ContextTimeoutEnabled: true})
			defer c.Close()
			break
		}
	}
	if c == nil {
		return nil, errors.New("every node was killed")
	}
	slot, err := c.ClusterKeySlot(ctx, "{"+origin+"}").Result()
	if err != nil {
		return nil, fmt.Errorf("CLUSTER KEYSLOT: %w", err)
	}
	shards, err := c.ClusterShards(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("CLUSTER SHARDS: %w", err)
	}
	for _, sh := range shards {
		for _, r := range sh.Slots {
			if r.Start <= slot && slot <= r.End {
				for _, nd := range sh.Nodes {
					for _, s := range nodes {
						if nd.Role == "master" && nd.Health == "online" && int(nd.Port) == s.port && s.cmd != nil {
							return s, nil
						}
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("no node of %v serves slot %d: %+v", addrsOf(nodes), slot, shards)
}

func newClient(t testing.TB, addrs []string) redis.UniversalClient {
	var c redis.UniversalClient
	if len(addrs) > 1 {
		c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true})
	} else {
		c = redis.NewClient(&redis.Options{Addr: addrs[0], ContextTimeoutEnabled: true})
	}
	if t != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c
}

var _ = fmt.Sprint
