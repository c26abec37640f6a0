package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
)

// The many-origins benchmarks run a Transport against an in-process Base
// that serves a real robots.txt for each of many origins, as a crawl does:
//
//	go test -run '^$' -bench 'Origins|CachedRequest|Crawl|ColdOrigin|PolicyHeap' -benchtime 1x -full | tee out.txt
//	benchstat -col /transport out.txt
//
// Without -full they run at a size small enough for CI (a few thousand
// origins); -full runs them at up to 100,000 origins, and -full -million
// adds a million origins to BenchmarkOriginsHeap (about 2 GB of heap).
var (
	full    = flag.Bool("full", false, "run the many-origins benchmarks at full size (up to 100,000 origins)")
	million = flag.Bool("million", false, "with -full, BenchmarkOriginsHeap also holds 1,000,000 origins of median-size files (about 2 GB)")
)

// sizes returns small or, with -full, large.
func sizes(small, large []int) []int {
	if *full {
		return large
	}
	return small
}

var (
	corpusFilesOnce sync.Once
	allFiles        [][]byte // every robots.txt of the corpus, by name
	medianFiles     [][]byte // those of about the median size of popular sites' files (706 B)
)

// corpusFiles returns the bodies of the corpus, every file or those of
// median size (500 to 950 bytes: a mean of about 700).
func corpusFiles(b testing.TB, median bool) [][]byte {
	corpusFilesOnce.Do(func() {
		dir := corpusDir()
		var names []string
		for _, sub := range []string{"robots", "robots-longtail"} {
			ns, _ := filepath.Glob(filepath.Join(dir, sub, "*.txt"))
			names = append(names, ns...)
		}
		sort.Strings(names)
		for _, n := range names {
			body, err := os.ReadFile(n)
			if err != nil {
				continue
			}
			allFiles = append(allFiles, body)
			if len(body) >= 500 && len(body) <= 950 {
				medianFiles = append(medianFiles, body)
			}
		}
	})
	fs := allFiles
	if median {
		fs = medianFiles
	}
	if len(fs) == 0 {
		b.Fatalf("no robots.txt files in %s", corpusDir())
	}
	return fs
}

// originHost is the host of origin i; originIndex reads i back.
func originHost(i int) string { return "o" + strconv.Itoa(i) + ".test" }

func originIndex(host string) int {
	i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(host, "o"), ".test"))
	return i
}

// corpusBase is an in-process Base: origin i serves files[i%len(files)] as
// its robots.txt, fresh for a day (so that no file expires during a long
// benchmark), and a short page at every other path. It counts the
// robots.txt requests.
//
// Its robots.txt responses carry a Content-Type and a Cache-Control
// field; with real set, the header a web server sends with a static file
// (Date, Content-Type, ETag, Cache-Control, made for each response), and
// with bare set, an empty one.
type corpusBase struct {
	files      [][]byte
	real, bare bool
	fetches    atomic.Int64
}

var page = []byte("<html>ok</html>")

func (c *corpusBase) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	body, header := page, http.Header{"Content-Type": {"text/html"}}
	if req.URL.Path == "/robots.txt" {
		c.fetches.Add(1)
		i := originIndex(req.URL.Hostname())
		body = c.files[i%len(c.files)]
		switch {
		case c.bare:
			header = http.Header{}
		case c.real:
			// An ETag as nginx makes one: the file's modification time
			// and length, in hex.
			etag := `"` + strconv.FormatInt(1700000000+int64(i), 16) + "-" + strconv.FormatInt(int64(len(body)), 16) + `"`
			header = http.Header{
				"Date":          {time.Now().UTC().Format(http.TimeFormat)},
				"Content-Type":  {"text/plain"},
				"Etag":          {etag},
				"Cache-Control": {"max-age=86400"},
			}
		default:
			header = http.Header{"Content-Type": {"text/plain"}, "Cache-Control": {"max-age=86400"}}
		}
	}
	return &http.Response{
		Status: "200 OK", StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// fastClock is the system clock without the pauses: pacing does all its
// bookkeeping, but requests are not held back.
type fastClock struct{}

func (fastClock) Now() time.Time                                   { return time.Now() }
func (fastClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// benchAgent is the User-Agent of the benchmarks' Transports, and
// agentHeader a header that names it: requests carry it, as a crawler's
// do (a request without one is sent as a copy that has it). A shared,
// read-only header costs the benchmarks no allocation of their own.
const benchAgent = "BenchBot/1.0"

var agentHeader = http.Header{"User-Agent": {benchAgent}}

// originRequests returns a GET request for path on each of n origins,
// naming benchAgent.
func originRequests(n int, path string) []*http.Request {
	reqs := make([]*http.Request, n)
	for i := range reqs {
		reqs[i], _ = http.NewRequest(http.MethodGet, "http://"+originHost(i)+path, nil)
		reqs[i].Header.Set("User-Agent", benchAgent)
	}
	return reqs
}

// send sends req through rt, reads and closes the response; a refusal by
// the rules is not an error.
func send(b testing.TB, rt http.RoundTripper, req *http.Request) {
	resp, err := rt.RoundTrip(req)
	if err != nil {
		if errors.Is(err, robotsguard.ErrDisallowed) {
			return
		}
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func heapInUse() uint64 {
	live, _ := heapNow()
	return live
}

// heapNow returns the heap live after a collection (the bytes of the
// objects reachable), and the heap in use then (the spans that hold them,
// with the free room in those spans).
func heapNow() (live, inUse uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.HeapInuse
}

// BenchmarkOriginsHeap is the heap a Transport holds per origin after one
// request to each of many origins, with default settings (the default
// Delay, so a LocalPacer's pace per origin included; a clock that does
// not sleep the pauses): live-bytes/origin is the heap live after a
// collection, inuse-bytes/origin the heap in use then, next to the size
// of their robots.txt files (file-bytes/origin) and the size the cache
// counts against its bound (counted-bytes/origin). The robots.txt
// responses carry the header of a web server's static file, Date,
// Content-Type, ETag and Cache-Control (headers=real), or none at all
// (headers=none). cache=all has a CacheSize that holds every origin;
// cache=default the default one, whose live heap is then reported
// against its bound (heap/bound).
func BenchmarkOriginsHeap(b *testing.B) {
	for _, files := range []string{"median", "corpus"} {
		fs := corpusFiles(b, files == "median")
		large := []int{1000, 10000, 100000}
		if *million && files == "median" {
			large = append(large, 1000000)
		}
		for _, n := range sizes([]int{1000}, large) {
			for _, cache := range []string{"all", "default"} {
				if cache == "default" && n != 100000 && *full {
					continue
				}
				for _, headers := range []string{"real", "none"} {
					if headers == "none" && (files != "median" || cache != "all") {
						continue
					}
					b.Run(fmt.Sprintf("files=%s/origins=%d/cache=%s/headers=%s", files, n, cache, headers), func(b *testing.B) {
						originsHeap(b, fs, n, cache == "all", headers == "none")
					})
				}
			}
		}
	}
}

func originsHeap(b *testing.B, fs [][]byte, n int, all, bare bool) {
	reqs := originRequests(n, "/")
	fileBytes := 0
	for i := 0; i < n; i++ {
		fileBytes += len(fs[i%len(fs)])
	}
	var live, inUse, counted uint64
	for i := 0; i < b.N; i++ {
		base := &corpusBase{files: fs, real: !bare, bare: bare}
		tr := &robotsguard.Transport{Base: base, UserAgent: benchAgent, Clock: fastClock{}}
		if all {
			tr.CacheSize = 1 << 40
		}
		b.StopTimer()
		l0, u0 := heapNow()
		b.StartTimer()
		for _, req := range reqs {
			send(b, tr, req)
		}
		b.StopTimer()
		l1, u1 := heapNow()
		live += l1 - l0
		inUse += u1 - u0
		st := tr.Stats()
		counted += uint64(st.CacheBytes)
		if all && st.Entries != n {
			b.Fatalf("%d origins held, want %d", st.Entries, n)
		}
		runtime.KeepAlive(tr)
		b.StartTimer()
	}
	per := func(v uint64) float64 { return float64(v) / float64(b.N) / float64(n) }
	b.ReportMetric(per(live), "live-bytes/origin")
	b.ReportMetric(per(inUse), "inuse-bytes/origin")
	if all {
		b.ReportMetric(per(counted), "counted-bytes/origin")
	}
	b.ReportMetric(float64(fileBytes)/float64(n), "file-bytes/origin")
	if !all {
		b.ReportMetric(float64(live)/float64(b.N)/float64(robotsguard.DefaultCacheSize), "heap/bound")
	}
}

// BenchmarkPolicyHeap is policy's share of the per-origin heap: the heap
// held by 10,000 parsed files (files=median: of median size, cycled;
// files=corpus: the first 10,000 of the corpus), each with the matcher of
// one agent built, as the Transport holds them (heap-bytes/file, after
// GC), and what Robots.MemSize estimates of it (memsize-bytes/file).
func BenchmarkPolicyHeap(b *testing.B) {
	const n = 10000
	for _, files := range []string{"median", "corpus"} {
		fs := corpusFiles(b, files == "median")
		b.Run("files="+files, func(b *testing.B) {
			fileBytes := 0
			for i := 0; i < n; i++ {
				fileBytes += len(fs[i%len(fs)])
			}
			var held, est uint64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h0 := heapInUse()
				b.StartTimer()
				kept := make([]*policy.Robots, n)
				for j := range kept {
					r := policy.Parse(fs[j%len(fs)])
					r.Group("BenchBot/1.0").Decide("/")
					kept[j] = r
				}
				b.StopTimer()
				held += heapInUse() - h0
				for _, r := range kept {
					est += uint64(r.MemSize())
				}
				runtime.KeepAlive(kept)
				b.StartTimer()
			}
			b.ReportMetric(float64(held)/float64(b.N)/n, "heap-bytes/file")
			b.ReportMetric(float64(est)/float64(b.N)/n, "memsize-bytes/file")
			b.ReportMetric(float64(fileBytes)/n, "file-bytes/file")
		})
	}
}

// BenchmarkCachedRequest is the cost of an allowed request whose
// robots.txt is cached, with many origins cached, against the bare Base
// (transport=bare). Requests go round the origins in a scattered order.
// pacing=on keeps a pacer per origin (the default one-second Delay, with
// a clock that does not sleep); pacing=off has NoPacing.
//
// requests=new builds each request just before it is sent, as a crawler
// does (both transports pay for http.NewRequest); requests=built sends
// requests built beforehand, one per origin, which at many origins are
// out of the processor's caches: a Transport reads more of a request
// than the bare Base does, so this costs it more than the bare Base.
func BenchmarkCachedRequest(b *testing.B) {
	fs := corpusFiles(b, true)
	for _, n := range sizes([]int{1000, 10000}, []int{1000, 100000}) {
		urls := make([]string, n)
		for i := range urls {
			urls[i] = "http://" + originHost(i) + "/articles/2026/robots-and-you?page=2"
		}
		reqs := originRequests(n, "/articles/2026/robots-and-you?page=2")
		order := make([]int, n) // a fixed permutation: each origin once per round
		const stride = 7919     // prime, and no size here is its multiple
		for i := range order {
			order[i] = i * stride % n
		}
		run := func(b *testing.B, rt http.RoundTripper, base *corpusBase, built bool) {
			for _, req := range reqs {
				send(b, rt, req) // warm: fetch every robots.txt
			}
			fetched := base.fetches.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if built {
					send(b, rt, reqs[order[i%n]])
					continue
				}
				req, err := http.NewRequest(http.MethodGet, urls[order[i%n]], nil)
				req.Header = agentHeader
				if err != nil {
					b.Fatal(err)
				}
				send(b, rt, req)
			}
			b.StopTimer()
			if f := base.fetches.Load(); f != fetched {
				b.Fatalf("%d robots.txt fetches while every file was cached", f-fetched)
			}
		}
		for _, requests := range []string{"new", "built"} {
			built := requests == "built"
			b.Run(fmt.Sprintf("origins=%d/requests=%s/pacing=off/transport=bare", n, requests), func(b *testing.B) {
				base := &corpusBase{files: fs}
				run(b, base, base, built)
			})
			b.Run(fmt.Sprintf("origins=%d/requests=%s/pacing=off/transport=floor", n, requests), func(b *testing.B) {
				base := &corpusBase{files: fs}
				run(b, newFloorTransport(base, n), base, built)
			})
			for _, pacing := range []string{"off", "on"} {
				b.Run(fmt.Sprintf("origins=%d/requests=%s/pacing=%s/transport=robotsguard", n, requests, pacing), func(b *testing.B) {
					base := &corpusBase{files: fs}
					tr := &robotsguard.Transport{Base: base, UserAgent: "BenchBot/1.0", Clock: fastClock{}, CacheSize: 1 << 40}
					if pacing == "off" {
						tr.NoPacing = true
					}
					run(b, tr, base, built)
				})
			}
		}
	}
}

// floorTransport is about the least a RoundTripper that keeps state per
// origin can do on a cached request: find the origin's state by the hash
// of its host in a map of small keys, and read two cache lines of it (say,
// the state and the rule that decides), before it sends the request
// through base. Each origin holds floorBytes, about what a Transport holds
// per origin, so that at many origins the states lie as far apart in
// memory. transport=floor minus bare is what that costs: it grows with the
// number of origins as reads from memory replace reads from the
// processor's caches, whatever the layout of the state.
type floorTransport struct {
	base   http.RoundTripper
	seed   maphash.Seed
	states map[uint64][]byte
}

const floorBytes = 1344

func newFloorTransport(base http.RoundTripper, n int) *floorTransport {
	f := &floorTransport{base: base, seed: maphash.MakeSeed(), states: make(map[uint64][]byte, n)}
	for i := 0; i < n; i++ {
		s := make([]byte, floorBytes)
		s[floorBytes/2] = 1
		f.states[maphash.String(f.seed, originHost(i))] = s
	}
	return f
}

func (f *floorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := f.states[maphash.String(f.seed, req.URL.Host)]
	if len(s) == 0 || s[0]+s[len(s)/2] != 1 {
		return nil, fmt.Errorf("no state for %s", req.URL.Host)
	}
	return f.base.RoundTrip(req)
}

// BenchmarkCachedRequestParallel is BenchmarkCachedRequest at 1,000
// origins from every core at once: each goroutine goes round its own share
// of the origins. Run with -cpu 1,2: the ratio of the two shows how the
// Transport's throughput grows with cores, next to the bare Base's.
func BenchmarkCachedRequestParallel(b *testing.B) {
	fs := corpusFiles(b, true)
	const n = 1000
	reqs := originRequests(n, "/articles/2026/robots-and-you?page=2")
	run := func(b *testing.B, rt http.RoundTripper) {
		for _, req := range reqs {
			send(b, rt, req) // warm: fetch every robots.txt
		}
		var next atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			id, g := int(next.Add(1)-1), runtime.GOMAXPROCS(0)
			for i := id; pb.Next(); i += g {
				if i >= n {
					i = id
				}
				send(b, rt, reqs[i])
			}
		})
	}
	b.Run("pacing=off/transport=bare", func(b *testing.B) { run(b, &corpusBase{files: fs}) })
	for _, pacing := range []string{"off", "on"} {
		b.Run("pacing="+pacing+"/transport=robotsguard", func(b *testing.B) {
			tr := &robotsguard.Transport{Base: &corpusBase{files: fs}, UserAgent: "BenchBot/1.0", Clock: fastClock{}, NoPacing: pacing == "off"}
			run(b, tr)
		})
	}
}

// BenchmarkCrawl is a breadth-first crawl of many origins, three pages
// each (every origin's first page, then every origin's second, ...), with
// the Transport's default settings (and a clock that does not sleep the
// pacing pauses): robots-fetches/origin counts the robots.txt fetches,
// one when every file stays cached. cache=all has a CacheSize that holds
// every origin, for comparison. The files are the whole corpus, cycled.
func BenchmarkCrawl(b *testing.B) {
	fs := corpusFiles(b, false)
	for _, n := range sizes([]int{2000}, []int{10000, 100000}) {
		var pages [3][]*http.Request
		for p := range pages {
			pages[p] = originRequests(n, "/page/"+strconv.Itoa(p+1))
		}
		for _, cache := range []string{"default", "all"} {
			b.Run(fmt.Sprintf("origins=%d/cache=%s", n, cache), func(b *testing.B) {
				var fetches int64
				for i := 0; i < b.N; i++ {
					base := &corpusBase{files: fs}
					tr := &robotsguard.Transport{Base: base, UserAgent: "BenchBot/1.0", Clock: fastClock{}}
					if cache == "all" {
						tr.CacheSize = 1 << 40
					}
					for _, reqs := range pages {
						for _, req := range reqs {
							send(b, tr, req)
						}
					}
					fetches += base.fetches.Load()
				}
				b.ReportMetric(float64(fetches)/float64(b.N)/float64(n), "robots-fetches/origin")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(3*n), "ns/page")
			})
		}
	}
}

// BenchmarkColdOrigin is the cost of the first request to an origin: its
// robots.txt fetched (in process), parsed and compiled, then the request
// sent. transport=bare sends the same two requests through the bare Base,
// so robotsguard minus bare is the cost beyond the fetch itself.
func BenchmarkColdOrigin(b *testing.B) {
	fs := corpusFiles(b, true)
	b.Run("transport=bare", func(b *testing.B) {
		base := &corpusBase{files: fs}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h := originHost(i)
			robots, _ := http.NewRequest(http.MethodGet, "http://"+h+"/robots.txt", nil)
			req, _ := http.NewRequest(http.MethodGet, "http://"+h+"/", nil)
			req.Header = agentHeader
			send(b, base, robots)
			send(b, base, req)
		}
	})
	b.Run("transport=robotsguard", func(b *testing.B) {
		tr := &robotsguard.Transport{Base: &corpusBase{files: fs}, UserAgent: "BenchBot/1.0", Clock: fastClock{}}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequest(http.MethodGet, "http://"+originHost(i)+"/", nil)
			req.Header = agentHeader
			send(b, tr, req)
		}
	})
}

// BenchmarkHotOrigin is one origin asked by many goroutines at once, as an
// integration test or a crawl of one's own site does: with pacing state
// on and no pause (Delay -1), with one request under way at a time
// (limit=1, the default) and with no limit (limit=none, where no request
// waits for another and the cost is the state's alone). goroutines is the
// number of goroutines sending (b.SetParallelism); each request carries
// the Transport's User-Agent. Compare each with transport=bare at the same
// goroutines.
func BenchmarkHotOrigin(b *testing.B) {
	fs := corpusFiles(b, true)
	req, _ := http.NewRequest(http.MethodGet, "http://"+originHost(0)+"/articles/2026/robots-and-you?page=2", nil)
	req.Header.Set("User-Agent", "BenchBot/1.0")
	for _, g := range []int{1, 2, 64} {
		run := func(b *testing.B, rt http.RoundTripper) {
			send(b, rt, req) // fetch the robots.txt
			b.ReportAllocs()
			b.SetParallelism(max(g/runtime.GOMAXPROCS(0), 1))
			b.ResetTimer()
			if g == 1 {
				for i := 0; i < b.N; i++ {
					send(b, rt, req)
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					send(b, rt, req)
				}
			})
		}
		gs := "goroutines=" + strconv.Itoa(g)
		b.Run(gs+"/transport=bare", func(b *testing.B) { run(b, &corpusBase{files: fs}) })
		for _, limit := range []int{1, -1} {
			name := "limit=1"
			if limit < 0 {
				name = "limit=none"
			}
			b.Run(gs+"/transport=robotsguard/"+name, func(b *testing.B) {
				run(b, &robotsguard.Transport{Base: &corpusBase{files: fs}, UserAgent: "BenchBot/1.0", Clock: fastClock{}, Delay: -1, MaxRequestsPerOrigin: limit})
			})
		}
	}
}
