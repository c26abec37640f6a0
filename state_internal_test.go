package robotsguard

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/cache"
)

// memRoundTripper serves body as every origin's robots.txt, fresh for a
// day, and an empty page at every other path.
type memRoundTripper struct{ body []byte }

func (m memRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	body, h := []byte(nil), http.Header{}
	if req.URL.Path == "/robots.txt" {
		body = m.body
		h.Set("Cache-Control", "max-age=86400")
		h.Set("Date", "Sun, 01 Mar 2026 12:00:00 GMT")
		h.Set("ETag", `"a1b2c3d4"`)
	}
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
}

// robotsOfSize returns a robots.txt of about n bytes, each file a little
// different (seed), as a crawl meets them.
func robotsOfSize(n, seed int) []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Disallow: /s%d/path-%d/\n", seed%97, i)
	}
	b.WriteString("Sitemap: https://example.com/sitemap.xml\n")
	return []byte(b.String())
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// crawlOrigins sends one request to each of n origins through tr.
func crawlOrigins(t *testing.T, tr *Transport, n int) {
	t.Helper()
	for i := range n {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://o%d.example/", i), nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}

// TestStateOverhead: what the cache charges to its bound for an origin
// covers the heap the Transport holds for it (its state, the parsed file,
// the cache's item, the pacer's state), and does not overstate it by much,
// with the body dropped and kept whole.
func TestStateOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n = 4000
	for _, whole := range []bool{false, true} {
		t.Run(fmt.Sprintf("whole=%v", whole), func(t *testing.T) {
			tr := &Transport{Base: memRoundTripper{robotsOfSize(700, 1)}, UserAgent: "TestBot/1.0", CacheSize: 1 << 40}
			tr.servesRobots.Store(whole)
			h0 := heapAlloc()
			crawlOrigins(t, tr, n)
			held := float64(heapAlloc()-h0) / n
			st := tr.Stats()
			if st.Entries != n {
				t.Fatalf("%d origins held, want %d", st.Entries, n)
			}
			charged := float64(st.CacheBytes) / n
			t.Logf("heap %.0f B per origin, charged %.0f", held, charged)
			if held > charged*1.05 || charged > held*1.3 {
				t.Errorf("heap %.0f B per origin, charged %.0f: the charge does not match", held, charged)
			}
			runtime.KeepAlive(tr)
		})
	}
}

// steppingClock moves 10 ms forward each time it is read.
type steppingClock struct{ n atomic.Int64 }

func (c *steppingClock) Now() time.Time {
	return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(c.n.Add(1)) * 10 * time.Millisecond)
}
func (c *steppingClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// TestHeapWithinBound: with more origins than CacheSize holds, crawled one
// after another (so that the pacer drops the state of idle ones), the heap
// the Transport holds stays within a quarter over the bound.
func TestHeapWithinBound(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	body := robotsOfSize(3000, 2)
	tr := &Transport{Base: memRoundTripper{body}, UserAgent: "TestBot/1.0", CacheSize: MinCacheSize, Clock: &steppingClock{}}
	h0 := heapAlloc()
	crawlOrigins(t, tr, 12000)
	held := heapAlloc() - h0
	st := tr.Stats()
	if st.Evictions == 0 {
		t.Fatalf("no evictions: %+v", st)
	}
	t.Logf("heap %d B for a bound of %d (%.2f), %d origins held", held, MinCacheSize, float64(held)/MinCacheSize, st.Entries)
	if float64(held) > 1.25*MinCacheSize {
		t.Errorf("heap %d B for a bound of %d B", held, MinCacheSize)
	}
	runtime.KeepAlive(tr)
}

// TestPackedFieldsAreKeepCaching: a state packs the fields an entry keeps,
// named as cache.KeepCaching names them.
func TestPackedFieldsAreKeepCaching(t *testing.T) {
	h := http.Header{"Content-Type": {"text/plain"}, "Set-Cookie": {"a=b"}}
	for i, k := range packedFields {
		h.Add(k, fmt.Sprint("v", i))
	}
	kept := cache.KeepCaching(h)
	if len(kept) != len(packedFields) {
		t.Fatalf("KeepCaching keeps %v, a state packs %v", kept, packedFields)
	}
	for _, k := range packedFields {
		if len(kept[k]) != 1 {
			t.Errorf("KeepCaching does not keep %s as named: %v", k, kept)
		}
	}
	if !cachingOnly(kept) || cachingOnly(h) {
		t.Error("cachingOnly does not tell KeepCaching's fields from others")
	}
}

// TestStateHeaderCachingFieldsOnly: the state of a fetched robots.txt
// holds the response's caching fields and no others, packed or kept whole
// (when the Transport started keeping files whole during the fetch too).
func TestStateHeaderCachingFieldsOnly(t *testing.T) {
	h := http.Header{
		"Content-Type":  {"text/plain"},
		"Set-Cookie":    {"session=secret"},
		"Cache-Control": {"max-age=600", "public"},
		"Etag":          {`"x"`},
		"Date":          {"Sun, 01 Mar 2026 12:00:00 GMT"},
	}
	want := cache.KeepCaching(h)
	o := origin{host: "example.com"}
	for _, whole := range []bool{false, true} {
		tr := &Transport{UserAgent: "TestBot/1.0"}
		tr.servesRobots.Store(whole)
		e := &cache.Entry{Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n"), Header: h, Received: time.Now()}
		st := tr.newState(o, e, nil, tr.parse(o, e, "", ""))
		got := st.full().Header
		if len(got) != len(want) {
			t.Errorf("whole=%v: state's header %v, want %v", whole, got, want)
		}
		for k, vs := range want {
			if strings.Join(got[k], "|") != strings.Join(vs, "|") {
				t.Errorf("whole=%v: %s is %q, want %q", whole, k, got[k], vs)
			}
		}
	}
}

// TestReapEndsIdleFliers: a flier waits for the next flight after its
// own, and a round of the reaper with no flight started since the last
// one ends it, and every other idle flier.
func TestReapEndsIdleFliers(t *testing.T) {
	tr := &Transport{Base: memRoundTripper{body: []byte("User-agent: *\nDisallow: /x\n")}, UserAgent: "T/1"}
	for i := range 3 {
		u := &url.URL{Scheme: "http", Host: fmt.Sprintf("o%d.test", i), Path: "/"}
		if _, err := tr.Robots(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	for idleFliers.Load() == 0 { // the flier goes idle once its flight is over
		runtime.Gosched()
	}
	for idleFliers.Load() > 0 {
		reap()
		runtime.Gosched()
	}
}
