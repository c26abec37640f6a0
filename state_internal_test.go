package robotsguard

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/policy"
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
	for i, k := range packedFields {
		if packedIndex(k) != i {
			t.Errorf("packedIndex(%q) = %d, want %d", k, packedIndex(k), i)
		}
	}
}

// TestPackHeader: a header's caching fields are packed in the order of
// packedFields, and unpacked as KeepCaching keeps them, whether gather
// walks the header or looks its fields up.
func TestPackHeader(t *testing.T) {
	h := http.Header{"Content-Type": {"text/plain"}, "Etag": {`"x"`}, "Cache-Control": {"max-age=60", "public"}, "Age": {"3"},
		"Date": {"Sun, 01 Mar 2026 12:00:00 GMT"}, "Expires": {"0", "Sun, 01 Mar 2026 12:10:00 UTC"}}
	// Dates as TimeFormat spells them in 9 bytes, other values as they came.
	want := "\x00max-age=60\x00\x00public\x00\x81\x00\x00\x00\x00\x69\xa4\x2a\x40\x023\x00\x030\x00\x03Sun, 01 Mar 2026 12:10:00 UTC\x00\x04\"x\"\x00"
	for _, extra := range []int{0, maxWalkedHeader} {
		for i := range extra {
			h.Set(fmt.Sprint("X-Field-", i), "v")
		}
		var v packedValues
		n := v.gather(h)
		got := string(v.appendPacked(nil))
		if got != want || n != len(got) {
			t.Errorf("%d fields: packed %q (length %d), want %q", len(h), got, n, want)
		}
		if u := unpackHeader(got); !reflect.DeepEqual(u, cache.KeepCaching(h)) {
			t.Errorf("%d fields: unpacked %v, want %v", len(h), u, cache.KeepCaching(h))
		}
	}
	h["Date"] = []string{"a\x00b"}
	var v packedValues
	if n := v.gather(h); n != -1 {
		t.Errorf("a field with a NUL: length %d, want -1", n)
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
		st := tr.newState(stateKey{origin: o}, e, nil, tr.parse(o, e, "", ""))
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

// TestStamp: a state's times come back as they went in, to the
// nanosecond; the zero time stays zero, and times a Store's entry may hold
// beyond what 64 bits of nanoseconds count stay on their side of every
// time a clock gives.
func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 23, 8, 30, 0, 123456789, time.UTC)
	for _, tm := range []time.Time{now, now.Add(-time.Nanosecond), time.Unix(0, 0), time.Date(1700, 1, 1, 0, 0, 0, 1, time.UTC)} {
		if got := stampOf(tm).time(); !got.Equal(tm) {
			t.Errorf("stampOf(%v).time() = %v", tm, got)
		}
	}
	if got := stampOf(time.Time{}); got != noStamp || !got.time().IsZero() {
		t.Errorf("the zero time is stamped %d, read back as %v", got, got.time())
	}
	far, past := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)
	if stampOf(far) <= stampOf(now) || !stampOf(far).time().After(now) {
		t.Errorf("year 9999 stamped %d, not after %d", stampOf(far), stampOf(now))
	}
	if stampOf(past) >= stampOf(now) || stampOf(past) == noStamp || !stampOf(past).time().Before(now) {
		t.Errorf("year 1 stamped %d, not before %d, or as the zero time", stampOf(past), stampOf(now))
	}
	st := &originState{until: stampOf(now)}
	if !st.fresh(now.Add(-time.Nanosecond)) || st.fresh(now) {
		t.Error("a state is fresh until its time, not at it")
	}
	if (&originState{until: noStamp}).fresh(now) {
		t.Error("a state without a time is fresh")
	}
}

// TestStateIsItsKey: the in-memory cache tells states apart by what they
// hold of their key: scheme, host (an IPv6 zone's too), agent and path.
func TestStateIsItsKey(t *testing.T) {
	tr := &Transport{}
	long := strings.Repeat("a", 70000)                     // past what nh holds: kept in stateMore
	zone := origin{https: true, host: "[fe80::1%en0]:443"} // named "https://[fe80::1%25en0]:443"
	keys := []stateKey{
		{origin: origin{host: "example.com:80"}},
		{origin: origin{https: true, host: "example.com:443"}},
		{origin: origin{host: "example.com:443"}},
		{origin: origin{https: true, host: "example.org:443"}},
		{origin: origin{https: true, host: "example.com:443"}, agent: "testbot"},
		{origin: origin{https: true, host: "example.com:443"}, agent: "otherbot"},
		{origin: origin{https: true, host: "example.com:443"}, agent: long},
		{origin: origin{https: true, host: "example.com:443"}, agent: long + "b"},
		{origin: zone},
		{origin: origin{https: true, host: "[fe80::1%en1]:443"}},
	}
	e := &cache.Entry{Status: 200, Header: http.Header{"Cache-Control": {"max-age=60"}}}
	for i, k := range keys {
		st := tr.newState(k, e, nil, parsed{})
		if got := st.origin(); got != k.origin {
			t.Errorf("state of %+v has origin %+v", k.origin, got)
		}
		if st.agent() != k.agent || !reflect.DeepEqual(unpackHeader(st.hdr()), e.Header) {
			t.Errorf("state of key %d: agent of %d bytes, header %q", i, len(st.agent()), st.hdr())
		}
		for j, other := range keys {
			if st.is(other) != (i == j) {
				t.Errorf("state of key %d is(key %d) = %v", i, j, !(i == j))
			}
		}
	}
	ref := (&siteFile{entry: &cache.Entry{}}).state(stateKey{origin: zone, path: "/acap.txt"})
	for _, k := range []stateKey{{origin: zone}, {origin: zone, path: "/acap.txt"}} {
		if ref.is(k) != (k.path != "") {
			t.Errorf("the state of a reference is(%+v) = %v", k, !(k.path != ""))
		}
	}
}

// TestNamedState: a state's name, agent and packed header come back as
// they went in, whatever room they take.
func TestNamedState(t *testing.T) {
	o := origin{https: true, host: "example.com:443"}
	h := http.Header{"Etag": {`"x"`}}
	for n := 0; n < 300; n++ {
		agent := strings.Repeat("b", n)
		st, packed := namedState(o, agent, h, true)
		if !packed || st.name() != "https://example.com:443" || st.agent() != agent || !reflect.DeepEqual(unpackHeader(st.hdr()), h) {
			t.Fatalf("agent of %d bytes: name %q, agent of %d bytes, header %q", n, st.name(), len(st.agent()), st.hdr())
		}
	}
}

// The per-origin memory the cache's bound counts (stateOverhead) assumes a
// state of 144 bytes, in the size class of that size.
func TestStateSize(t *testing.T) {
	if n := unsafe.Sizeof(originState{}); n != 144 {
		t.Errorf("an originState is %d bytes, not 144", n)
	}
}

// TestStateMoreSize: the memory the cache's bound counts for a stateMore
// (moreOverhead) covers one.
func TestStateMoreSize(t *testing.T) {
	if n := unsafe.Sizeof(stateMore{}); n > moreOverhead {
		t.Errorf("a stateMore is %d bytes, more than the %d counted", n, moreOverhead)
	}
}

// TestNewStateAllocs: the state of a healthy origin is one allocation,
// its name and packed header in it; the stateMore that most states do
// not need is not allocated.
func TestNewStateAllocs(t *testing.T) {
	tr := &Transport{UserAgent: "TestBot/1.0"}
	tr.init()
	h := http.Header{"Cache-Control": {"max-age=86400"}, "Content-Type": {"text/plain"}}
	now := time.Now()
	e := &cache.Entry{Status: 200, Header: h, Body: []byte("x"), Requested: now, Received: now}
	p := parsed{robots: policy.Parse(robotsOfSize(300, 1))}
	k := stateKey{origin: origin{host: "example.com"}}
	st := tr.newState(k, e, nil, p) // builds the group's matcher
	if st.more != noMore || !st.bodyless {
		t.Fatalf("a healthy origin's state: more %+v, bodyless %v", st.more, st.bodyless)
	}
	if n := testing.AllocsPerRun(100, func() { tr.newState(k, e, nil, p) }); n != 1 {
		t.Errorf("newState: %v allocations, want 1", n)
	}
}

// TestPackedIndex: packedIndex finds each of packedFields at its place,
// and no other field.
func TestPackedIndex(t *testing.T) {
	for i, k := range packedFields {
		if got := packedIndex(k); got != i {
			t.Errorf("packedIndex(%q) = %d, want %d", k, got, i)
		}
	}
	for _, k := range []string{"", "Content-Type", "cache-control", "ETag", "Vary"} {
		if got := packedIndex(k); got != -1 {
			t.Errorf("packedIndex(%q) = %d, want -1", k, got)
		}
	}
}

// TestEvictedStateFreed: an origin's state that the cache evicted is
// garbage, parsed file and all, once no request holds it, though the
// LocalPacer keeps the origin's pace until it is idle: nothing the pacer
// keeps points into the state, whether a request made the pace or a
// back-off after a 429 answer did, and nor does the origin of a WaitEvent
// an Observer keeps.
func TestEvictedStateFreed(t *testing.T) {
	body := robotsOfSize(3000, 4)
	var kept []string // the origins of the WaitEvents an Observer was given
	for _, tc := range []struct {
		name string
		tr   *Transport
	}{
		{"request", &Transport{Base: memRoundTripper{body}, UserAgent: "TestBot/1.0", CacheSize: MinCacheSize}},
		{"back-off", &Transport{Base: tooMany{memRoundTripper{body}}, UserAgent: "TestBot/1.0", CacheSize: MinCacheSize, MaxRequestsPerOrigin: -1}},
		{"observer", &Transport{Base: memRoundTripper{body}, UserAgent: "TestBot/1.0", CacheSize: MinCacheSize, Delay: time.Second, Clock: &steppingClock{},
			Observer: &Observer{Waited: func(ev WaitEvent) { kept = append(kept, ev.Origin) }}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr
			crawlOrigins(t, tr, 1)
			if tr.Observer != nil {
				crawlOrigins(t, tr, 1) // waits its turn
				if len(kept) == 0 {
					t.Fatal("no request waited")
				}
			}
			o, err := originAt("http", "o0.example")
			if err != nil {
				t.Fatal(err)
			}
			k := tr.robotsKey(o, tr.UserAgent)
			st := tr.cached(k)
			if st == nil {
				t.Fatal("the state of o0.example is not cached")
			}
			name, freed := strings.Clone(st.name()), weak.Make(st)
			st = nil
			for i := 1; i < 12000; i++ { // past the bound: o0.example's state goes
				req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://o%d.example/", i), nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			if tr.cached(k) != nil {
				t.Fatalf("o0.example's state was not evicted: %+v", tr.Stats())
			}
			if tr.Observer == nil && tr.pacer.paceOf(name) == nil {
				t.Fatal("the pacer has no pace of o0.example: the test shows nothing")
			}
			runtime.GC()
			if freed.Value() != nil {
				t.Error("an evicted state is still reachable")
			}
			runtime.KeepAlive(tr)
		})
	}
}

// tooMany answers 429 Too Many Requests to every request but those for
// robots.txt, which it passes to its RoundTripper.
type tooMany struct{ http.RoundTripper }

func (m tooMany) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == "/robots.txt" {
		return m.RoundTripper.RoundTrip(req)
	}
	return &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}
