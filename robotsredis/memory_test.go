package robotsredis_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// go test -run '^$' -bench Memory -benchtime 1x ./robotsredis                          (20,000 origins)
// go test -run '^$' -bench Memory -benchtime 1x -memory-origins 1000000 ./robotsredis (the target)
var memoryOrigins = flag.Int("memory-origins", 20000, "origins stored by BenchmarkMemory")

// corpusFiles returns the robots.txt files of the shared corpus's robots/
// (the popular sites; the dictionary was trained on the others), by size.
func corpusFiles(b *testing.B) [][]byte {
	files, _ := filepath.Glob("../../shared/corpus/robots/*.txt")
	if len(files) == 0 {
		b.Skip("no corpus at ../../shared/corpus/robots")
	}
	var out [][]byte
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, body)
	}
	slices.SortFunc(out, func(x, y []byte) int { return len(x) - len(y) })
	return out
}

// around returns the files within 10% of n bytes.
func around(files [][]byte, n int) [][]byte {
	var out [][]byte
	for _, f := range files {
		if len(f) >= n*9/10 && len(f) <= n*11/10 {
			out = append(out, f)
		}
	}
	return out
}

// entryBytes returns the root's encoding of a 200 response with body, with
// the caching fields responses commonly carry.
func entryBytes(b *testing.B, body []byte, i int) []byte {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	e := &cache.Entry{Status: 200, Body: body, Requested: now, Received: now.Add(80 * time.Millisecond),
		Header: http.Header{"Cache-Control": {"max-age=86400"}, "Date": {now.Format(http.TimeFormat)},
			"Last-Modified": {now.Add(-900 * time.Hour).Format(http.TimeFormat)}, "Etag": {`"5e1f-` + strconv.FormatInt(now.Unix(), 16) + `"`}}}
	v, err := e.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func usedMemory(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatalf("no used_memory in INFO memory: %q", info)
	return 0
}

// BenchmarkMemory: Redis's used_memory per origin, each origin's entry
// stored as a Transport stores it (Fleet.Set, 30 days), against the
// root's encoding stored as it is (the "raw" runs: what a Fleet stored
// before entries were compressed), for files of the corpus's mean size
// (2,962 bytes, ±10%), of its median size (706), and the corpus itself
// (every file in turn). -memory-origins sets the number of origins.
func BenchmarkMemory(b *testing.B) {
	files := corpusFiles(b)
	total := 0
	for _, f := range files {
		total += len(f)
	}
	sets := []struct {
		name  string
		files [][]byte
	}{
		{"mean", around(files, total/len(files))},
		{"median", around(files, len(files[len(files)/2]))},
		{"corpus", files},
	}
	for _, set := range sets {
		for _, raw := range []bool{true, false} {
			name := set.name
			if raw {
				name += "/raw"
			} else {
				name += "/fleet"
			}
			b.Run(name, func(b *testing.B) {
				for range b.N {
					memoryRun(b, set.files, raw)
				}
			})
		}
	}
}

func memoryRun(b *testing.B, files [][]byte, raw bool) {
	b.StopTimer()
	s := startRedis(b)
	f, _ := newFleet(b, s)
	f.CallTimeout = 10 * time.Second // a busy machine: what is measured is memory
	c := s.client(b)
	ctx := context.Background()
	before := usedMemory(b, c)
	n := *memoryOrigins
	const workers = 4
	var wg sync.WaitGroup
	var entryBytesSum, valueBytesSum int64
	var mu sync.Mutex
	b.StartTimer()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sum, vsum int64
			pipe := c.Pipeline()
			for i := w; i < n; i += workers {
				body := files[i%len(files)]
				key := cache.Key(fmt.Sprintf("https://www.site%d.example/robots.txt", i))
				e := entryBytes(b, body, i)
				sum += int64(len(e))
				if !raw {
					vsum += int64(len(robotsredis.EncodeValue(e)))
				}
				if raw {
					// As a Fleet stored it before: the key with the
					// origin in a hash tag, the entry as it is.
					pipe.Set(ctx, strings.Replace(key, "https://www.site"+strconv.Itoa(i)+".example", "{https://www.site"+strconv.Itoa(i)+".example}", 1), e, 30*24*time.Hour)
					if pipe.Len() == 500 {
						if _, err := pipe.Exec(ctx); err != nil {
							b.Error(err)
							return
						}
					}
				} else if err := f.Set(ctx, key, e, 30*24*time.Hour); err != nil {
					b.Error(err)
					return
				}
			}
			if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil && pipe.Len() > 0 {
				b.Error(err)
			}
			mu.Lock()
			entryBytesSum += sum
			valueBytesSum += vsum
			mu.Unlock()
		}()
	}
	wg.Wait()
	b.StopTimer()
	if got := c.DBSize(ctx).Val(); got != int64(n) {
		b.Fatalf("%d keys in Redis, want %d", got, n)
	}
	used := usedMemory(b, c) - before
	b.ReportMetric(float64(used)/float64(n), "redis-B/origin")
	b.ReportMetric(float64(entryBytesSum)/float64(n), "entry-B/origin")
	if !raw {
		b.ReportMetric(float64(valueBytesSum)/float64(n), "value-B/origin")
	}
	b.ReportMetric(float64(used)/float64(n)*1e6/(1<<30), "GiB/1M-origins")
	b.StartTimer()
}
