package robotsredis_test

import (
	"bufio"
	"context"
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

// startCluster starts a Redis Cluster of n masters on loopback and returns
// its nodes once the cluster's state is ok. Each node keeps its cluster
// configuration (nodes.conf) in its directory, so that a node killed and
// started again rejoins the cluster with its identity and its slots.
func startCluster(t testing.TB, n int) []*redisServer {
	t.Helper()
	var nodes []*redisServer
	for range n {
		nodes = append(nodes, startRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"))
	}
	addrs := addrsOf(nodes)
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
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

// waitClusterOK waits until every node of a cluster says its state is ok
// and sees no node failing. No event says when every node agrees: it reads
// their state, for a bounded time.
func waitClusterOK(t testing.TB, addrs []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		for {
			info, _ := c.ClusterInfo(ctx).Result()
			nodes, _ := c.ClusterNodes(ctx).Result()
			if strings.Contains(info, "cluster_state:ok") && !strings.Contains(nodes, "fail") {
				break
			}
			select {
			case <-ctx.Done():
				c.Close()
				t.Fatalf("cluster node %s not ok: %s\n%s", a, info, nodes)
			case <-time.After(50 * time.Millisecond):
			}
		}
		c.Close()
	}
}

// slotOwner returns the node of a cluster that holds the keys of origin
// (which carry it in a hash tag), as the cluster's slot map says.
func slotOwner(t testing.TB, nodes []*redisServer, origin string) *redisServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := nodes[0].client(t)
	slot, err := c.ClusterKeySlot(ctx, "{"+origin+"}").Result()
	if err != nil {
		t.Fatalf("CLUSTER KEYSLOT: %v", err)
	}
	shards, err := c.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatalf("CLUSTER SHARDS: %v", err)
	}
	for _, sh := range shards {
		for _, r := range sh.Slots {
			if r.Start <= slot && slot <= r.End {
				for _, nd := range sh.Nodes {
					for _, s := range nodes {
						if nd.Role == "master" && int(nd.Port) == s.port {
							return s
						}
					}
				}
			}
		}
	}
	t.Fatalf("no node of %v serves slot %d: %+v", addrsOf(nodes), slot, shards)
	return nil
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
