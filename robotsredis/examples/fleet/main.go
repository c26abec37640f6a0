// Command fleet runs crawler workers that share one Redis: they fetch an
// origin's robots.txt once between them, and space their requests to it by
// its Crawl-delay together, as one polite crawler would.
//
//	go run ./examples/fleet -start-redis          # starts redis-server on a free loopback port
//	go run ./examples/fleet -redis localhost:6379 # or uses yours (it writes robotsguard/* keys)
//
// Each worker has its own Transport and Fleet, as separate processes
// would; the origin is a local test server that counts what it receives.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

func main() {
	addr := flag.String("redis", "", "address of a Redis to use")
	start := flag.Bool("start-redis", false, "start redis-server on a free loopback port (needs redis-server on PATH)")
	workers := flag.Int("workers", 3, "workers sharing the Redis")
	requests := flag.Int("requests", 4, "requests per worker")
	flag.Parse()
	if *start {
		a, stop, err := startRedis()
		if err != nil {
			log.Fatal(err)
		}
		defer stop()
		*addr = a
	}
	if *addr == "" {
		fmt.Fprintln(os.Stderr, "fleet: give -redis ADDR or -start-redis")
		os.Exit(2)
	}

	var robots, private atomic.Int64
	var mu sync.Mutex
	var pages []time.Time
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			robots.Add(1)
			io.WriteString(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.2\n")
		case strings.HasPrefix(r.URL.Path, "/private/"):
			private.Add(1)
		default:
			mu.Lock()
			pages = append(pages, time.Now())
			mu.Unlock()
		}
	}))
	defer site.Close()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var wg sync.WaitGroup
	for w := range *workers {
		rdb := redis.NewClient(&redis.Options{Addr: *addr, ContextTimeoutEnabled: true, DialerRetries: 1})
		defer rdb.Close()
		fleet := &robotsredis.Fleet{Client: rdb, Size: *workers, Logger: logger}
		defer fleet.Close()
		client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FleetBot/1.0", Store: fleet, Pacer: fleet}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range *requests {
				path := "/page/" + strconv.Itoa(w) + "-" + strconv.Itoa(i)
				if i == 0 {
					path = "/private/report"
				}
				resp, err := client.Get(site.URL + path)
				var d *robotsguard.DisallowedError
				switch {
				case errors.As(err, &d):
					fmt.Printf("worker %d: %s refused: line %d %q\n", w, path, d.Decision.Rule.Line, d.Decision.Rule)
				case err != nil:
					fmt.Printf("worker %d: %s: %v\n", w, path, err)
				default:
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					fmt.Printf("worker %d: %s %s\n", w, path, resp.Status)
				}
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("robots.txt fetched %d time(s) for %d workers; %d disallowed requests received\n", robots.Load(), *workers, private.Load())
	if len(pages) > 1 {
		mean := pages[len(pages)-1].Sub(pages[0]) / time.Duration(len(pages)-1)
		fmt.Printf("%d pages, %v apart on average (Crawl-delay 0.2s, for the fleet as a whole)\n", len(pages), mean.Round(time.Millisecond))
	}
}

// startRedis starts redis-server on a free loopback port, without
// persistence, and returns its address once it accepts connections.
func startRedis() (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "fleet-redis")
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--logfile", "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("fleet: starting redis-server: %w", err)
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait(); os.RemoveAll(dir) }
	ready := make(chan bool)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				ready <- true
				io.Copy(io.Discard, out)
				return
			}
		}
		ready <- false
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case ok := <-ready:
		if ok {
			return "127.0.0.1:" + strconv.Itoa(port), stop, nil
		}
	case <-ctx.Done():
	}
	stop()
	return "", nil, errors.New("fleet: redis-server did not start")
}
