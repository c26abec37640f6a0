package robotsredis_test

import (
	"context"
	"flag"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// go test -run '^$' -bench . ./robotsredis            (1,000 origins)
// go test -run '^$' -bench Origins -origins 10000 .   (the full size)
var benchOrigins = flag.Int("origins", 1000, "origins of BenchmarkOrigins")

// instant is a Base that answers at once, without a network: robots.txt
// allows everything, pages are "ok".
type instant struct{}

func (instant) RoundTrip(r *http.Request) (*http.Response, error) {
	body := "ok"
	if r.URL.Path == "/robots.txt" {
		body = "User-agent: *\nAllow: /\n"
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Cache-Control": {"max-age=3600"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

func get(b *testing.B, c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// BenchmarkHotOrigin: Redis round trips per request to an origin whose
// robots.txt is held in memory: none for the cache; one for the pace; two
// when a request also holds one of the origin's places (the default, one
// request under way), released when its response ends.
func BenchmarkHotOrigin(b *testing.B) {
	for _, bc := range []struct {
		name  string
		pace  bool
		limit int
	}{{"cache", false, 0}, {"cache+pace", true, -1}, {"cache+pace+place", true, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			s := startRedis(b)
			f, calls := newFleet(b, s)
			tr := &robotsguard.Transport{Base: instant{}, UserAgent: "BenchBot/1.0", Store: f, Delay: -1, MaxRequestsPerOrigin: bc.limit}
			if bc.pace {
				tr.Pacer = f
			}
			c := &http.Client{Transport: tr}
			get(b, c, "https://hot.example/warm")
			get(b, c, "https://hot.example/warm") // scripts loaded, subscribed
			calls.n.Store(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				get(b, c, "https://hot.example/page")
			}
			b.ReportMetric(float64(calls.n.Load())/float64(b.N), "redis-calls/op")
		})
	}
}

// BenchmarkPace: the cost of pacing one request (Acquire and Done, no
// interval, one place) through Redis on loopback, against a LocalPacer.
func BenchmarkPace(b *testing.B) {
	r := robotsguard.PaceRequest{Origin: "https://pace.example", Limit: 1}
	run := func(b *testing.B, p robotsguard.Pacer) {
		for i := 0; i < b.N; i++ {
			t, err := p.Acquire(context.Background(), r)
			if err != nil {
				b.Fatal(err)
			}
			t.Release()
		}
	}
	b.Run("local", func(b *testing.B) { run(b, &robotsguard.LocalPacer{}) })
	b.Run("redis", func(b *testing.B) {
		f, _ := newFleet(b, startRedis(b))
		run(b, f)
	})
}

// BenchmarkPeek: what telling an origin's turn costs (Fleet.Peek, which a
// crawl.Frontier calls after each response): one round trip to Redis on
// loopback, reserving nothing; compare with BenchmarkPace/redis, in the
// same run.
func BenchmarkPeek(b *testing.B) {
	f, calls := newFleet(b, startRedis(b))
	ctx := context.Background()
	o := "https://peek.example"
	t, err := f.Acquire(ctx, robotsguard.PaceRequest{Origin: o, Interval: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	t.Release()
	if _, err := f.Peek(ctx, o); err != nil { // the script loaded
		b.Fatal(err)
	}
	calls.n.Store(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d, err := f.Peek(ctx, o); err != nil || d < 0 {
			b.Fatal(d, err)
		}
	}
	b.ReportMetric(float64(calls.n.Load())/float64(b.N), "redis-calls/op")
}

// BenchmarkRelease: what ending a response costs its caller (Lease.Release,
// which closing a response body calls), with one request under way per
// origin (the default), cycling over 64 origins; ns/op is a request's
// Acquire and Release.
func BenchmarkRelease(b *testing.B) {
	f, _ := newFleet(b, startRedis(b))
	ctx := context.Background()
	var origins [64]string
	for i := range origins {
		origins[i] = "https://o" + strconv.Itoa(i) + ".example"
		t, err := f.Acquire(ctx, robotsguard.PaceRequest{Origin: origins[i], Limit: 1}) // scripts loaded, subscribed
		if err != nil {
			b.Fatal(err)
		}
		t.Release()
	}
	var release time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, err := f.Acquire(ctx, robotsguard.PaceRequest{Origin: origins[i%len(origins)], Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		t.Release()
		release += time.Since(start)
	}
	b.ReportMetric(float64(release.Nanoseconds())/float64(b.N), "release-ns/op")
}

// BenchmarkOrigins: requests per second of one process crawling many
// origins (-origins, 1,000 by default) through one Redis, 16 requests at
// once, with the robots cache and pace shared; the first request to each
// origin fetches its robots.txt (from an instant Base) under the fleet's
// lock.
func BenchmarkOrigins(b *testing.B) {
	s := startRedis(b)
	f, calls := newFleet(b, s)
	tr := &robotsguard.Transport{Base: instant{}, UserAgent: "BenchBot/1.0", Store: f, Pacer: f, Delay: -1}
	c := &http.Client{Transport: tr}
	n := *benchOrigins
	var next atomic.Int64
	b.SetParallelism(8) // 16 on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			get(b, c, "https://o"+strconv.FormatInt(i%int64(n), 10)+".example/p")
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(calls.n.Load())/float64(b.N), "redis-calls/op")
	if f.State() != robotsredis.Closed {
		b.Errorf("circuit %v", f.State())
	}
}
