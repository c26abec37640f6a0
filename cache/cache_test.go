package cache_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gregjones/httpcache"
	"github.com/gregjones/httpcache/diskcache"

	"github.com/robotsguard/robotsguard/cache"
)

// httpcache's backends are LegacyStores.
var (
	_ cache.LegacyStore = httpcache.NewMemoryCache()
	_ cache.LegacyStore = (*diskcache.Cache)(nil)
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func entry(status int, fields ...string) *cache.Entry {
	h := http.Header{}
	for i := 0; i+1 < len(fields); i += 2 {
		h.Add(fields[i], fields[i+1])
	}
	return &cache.Entry{Status: status, Header: h, Requested: t0.Add(-2 * time.Second), Received: t0}
}

func httpDate(t time.Time) string { return t.Format(http.TimeFormat) }

// TestLifetimeAndAge checks the RFC 9111 §4.2 arithmetic under a Strict
// policy (no floor), with the 24-hour cap.
func TestLifetimeAndAge(t *testing.T) {
	strict := cache.Policy{Strict: true}
	tests := []struct {
		name     string
		e        *cache.Entry
		lifetime time.Duration
		age      time.Duration // at t0 + 10s
	}{
		{"max-age", entry(200, "Cache-Control", "max-age=600"), 600 * time.Second, 12 * time.Second},
		{"max-age=0", entry(200, "Cache-Control", "max-age=0"), 0, 12 * time.Second},
		{"max-age over Expires", entry(200, "Cache-Control", "max-age=60", "Expires", httpDate(t0.Add(time.Hour))), time.Minute, 12 * time.Second},
		{"Expires minus Date", entry(200, "Date", httpDate(t0.Add(-time.Minute)), "Expires", httpDate(t0.Add(time.Hour))), 61 * time.Minute, 70 * time.Second},
		{"Expires in the past", entry(200, "Date", httpDate(t0), "Expires", httpDate(t0.Add(-time.Hour))), 0, 12 * time.Second},
		{"invalid Expires", entry(200, "Expires", "0"), 0, 12 * time.Second},
		{"long max-age", entry(200, "Cache-Control", "max-age=999999999"), 999999999 * time.Second, 12 * time.Second},
		{"Age plus response delay", entry(200, "Cache-Control", "max-age=600", "Age", "100"), 600 * time.Second, 112 * time.Second},
		{"Age too large", entry(200, "Cache-Control", "max-age=600", "Age", "99999999999999999999"), 600 * time.Second, (1<<31 + 12) * time.Second},
		{"heuristic from Last-Modified", entry(200, "Date", httpDate(t0), "Last-Modified", httpDate(t0.Add(-10*time.Hour))), time.Hour, 12 * time.Second},
		{"heuristic without Last-Modified", entry(404), 24 * time.Hour, 12 * time.Second},
		{"403 is not heuristically cacheable", entry(403), 0, 12 * time.Second},
		{"302 is not heuristically cacheable", entry(302), 0, 12 * time.Second},
		{"max-age given twice: stale", entry(200, "Cache-Control", "max-age=0, MAX-AGE=3600"), 0, 12 * time.Second},
		{"no-cache", entry(200, "Cache-Control", "no-cache, max-age=600"), 0, 12 * time.Second},
		{"no-store", entry(200, "Cache-Control", "no-store"), 0, 12 * time.Second},
		{"unparsable Cache-Control", entry(200, "Cache-Control", "max-age=\"60"), 0, 12 * time.Second},
		{"two Cache-Control fields", entry(200, "Cache-Control", "public", "Cache-Control", "max-age=30"), 30 * time.Second, 12 * time.Second},
	}
	for _, tc := range tests {
		f := strict.Freshness(tc.e)
		if f.Lifetime != tc.lifetime {
			t.Errorf("%s: Lifetime = %v, want %v", tc.name, f.Lifetime, tc.lifetime)
		}
		if got := cache.InitialAge(tc.e) + t0.Add(10*time.Second).Sub(tc.e.Received); got != tc.age {
			t.Errorf("%s: age = %v, want %v", tc.name, got, tc.age)
		}
		fresh := tc.lifetime > tc.age
		if got := t0.Add(10 * time.Second).Before(f.Until); got != fresh {
			t.Errorf("%s: fresh = %v, want %v (until %v)", tc.name, got, fresh, f.Until)
		}
	}
}

// TestFreshnessUntil: the cap and the floor apply to what is left of the
// lifetime when the response is received, not to the lifetime.
func TestFreshnessUntil(t *testing.T) {
	var p cache.Policy
	strict := cache.Policy{Strict: true}
	tests := []struct {
		name   string
		p      cache.Policy
		e      *cache.Entry
		window time.Duration // Until minus Received
	}{
		{"a year old CDN copy with a long max-age", p, entry(200, "Cache-Control", "max-age=31536000", "Age", "172800"), 24 * time.Hour},
		{"same, Strict", strict, entry(200, "Cache-Control", "max-age=31536000", "Age", "172800"), 24 * time.Hour},
		{"Age beyond max-age: the floor", p, entry(200, "Cache-Control", "max-age=60", "Age", "600"), time.Minute},
		{"Age beyond max-age, Strict: stale on arrival", strict, entry(200, "Cache-Control", "max-age=60", "Age", "600"), 0},
		{"max-age less the response delay", p, entry(200, "Cache-Control", "max-age=600"), 598 * time.Second},
		{"403 without fields: heuristic, less the response delay", p, entry(403), 24*time.Hour - 2*time.Second},
		{"403 without fields, Strict: stale", strict, entry(403), 0},
	}
	for _, tc := range tests {
		if got := tc.p.Freshness(tc.e).Until.Sub(tc.e.Received); got != tc.window {
			t.Errorf("%s: fresh for %v after receipt, want %v", tc.name, got, tc.window)
		}
	}
}

func TestFloorAndStale(t *testing.T) {
	var p cache.Policy
	e := entry(200, "Cache-Control", "max-age=0")
	if got := p.Freshness(e).Until; !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("Until = %v, want one minute after receipt", got)
	}
	if !p.Storable(entry(200, "Cache-Control", "no-store")) || (cache.Policy{Strict: true}).Storable(entry(200, "Cache-Control", "no-store")) {
		t.Error("no-store: storable unless Strict")
	}
	if !p.UsableStale(e, t0.Add(29*24*time.Hour)) || p.UsableStale(e, t0.Add(30*24*time.Hour)) {
		t.Error("a copy stands in for 30 days after its last success")
	}
	mr := entry(200, "Cache-Control", "max-age=60, must-revalidate")
	if !p.UsableStale(mr, t0.Add(time.Hour)) || (cache.Policy{Strict: true}).UsableStale(mr, t0.Add(time.Hour)) {
		t.Error("must-revalidate forbids stale use only when Strict")
	}
	if p.UsableStale(&cache.Entry{Received: t0}, t0) {
		t.Error("an entry without a response cannot stand in")
	}
	failing := &cache.Entry{Failures: 3, FailingSince: t0}
	if p.LongUnreachable(failing, t0.Add(29*24*time.Hour)) || !p.LongUnreachable(failing, t0.Add(30*24*time.Hour)) {
		t.Error("LongUnreachable after 30 days of failures")
	}
	if p.LongUnreachable(&cache.Entry{Failures: 2, FailingSince: t0}, t0.Add(60*24*time.Hour)) {
		t.Error("two failures a month apart are not 30 days unreachable")
	}
}

func TestRevalidated(t *testing.T) {
	e := entry(200, "ETag", `"a"`, "Cache-Control", "max-age=60", "Last-Modified", httpDate(t0.Add(-time.Hour)))
	e.Body = []byte("User-agent: *\n")
	e.Failures, e.Err = 2, "boom"
	if v := e.Validators(); v.Get("If-None-Match") != `"a"` || v.Get("If-Modified-Since") != httpDate(t0.Add(-time.Hour)) {
		t.Errorf("Validators() = %v", v)
	}
	n := e.Revalidated(http.Header{"Cache-Control": {"max-age=3600"}, "Content-Type": {"x"}}, t0.Add(time.Hour), t0.Add(time.Hour+time.Second))
	if n.Header.Get("Cache-Control") != "max-age=3600" || n.Header.Get("Etag") != `"a"` || n.Header.Get("Content-Type") != "" ||
		!bytes.Equal(n.Body, e.Body) || n.Failures != 0 || n.Err != "" || !n.Received.Equal(t0.Add(time.Hour+time.Second)) {
		t.Errorf("Revalidated = %+v", n)
	}
	if e.Header.Get("Cache-Control") != "max-age=60" {
		t.Error("Revalidated changed the original entry")
	}
}

func TestEntryRoundTrip(t *testing.T) {
	e := &cache.Entry{
		Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n"),
		Header:    http.Header{"Etag": {`"v1"`}, "Cache-Control": {"max-age=60", "public"}},
		Requested: t0, Received: t0.Add(time.Second),
		Failures: 1, FailingSince: t0.Add(time.Hour), RetryAt: t0.Add(2 * time.Hour), Err: "status 503",
	}
	b, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got cache.Entry
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Header, e.Header) || !bytes.Equal(got.Body, e.Body) || got.Status != 200 ||
		!got.Received.Equal(e.Received) || !got.RetryAt.Equal(e.RetryAt) || !got.FailingSince.Equal(e.FailingSince) ||
		got.Failures != 1 || got.Err != e.Err || !got.Requested.Equal(t0) {
		t.Errorf("round trip: %+v, want %+v", got, e)
	}
	for i := range b { // every truncation fails cleanly
		if err := new(cache.Entry).UnmarshalBinary(b[:i]); err == nil {
			t.Fatalf("UnmarshalBinary of %d of %d bytes succeeded", i, len(b))
		}
	}
}

// FuzzUnmarshal: entries come from shared stores; no input panics, and
// what decodes encodes back to the same bytes.
func FuzzUnmarshal(f *testing.F) {
	e := entry(200, "Etag", "x")
	e.Body = []byte("User-agent: *\n")
	b, _ := e.MarshalBinary()
	f.Add(b)
	f.Add([]byte("RG\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e cache.Entry
		if e.UnmarshalBinary(data) != nil {
			return
		}
		again, _ := e.MarshalBinary()
		var e2 cache.Entry
		if err := e2.UnmarshalBinary(again); err != nil || !reflect.DeepEqual(e, e2) {
			t.Fatalf("re-encoding changed the entry: %v", err)
		}
	})
}

func TestMemoryStoreBound(t *testing.T) {
	ctx := context.Background()
	s := cache.NewMemoryStore(10 << 10)
	for i := range 100 {
		s.Set(ctx, fmt.Sprint(i), make([]byte, 1000), time.Hour)
	}
	n := 0
	for i := range 100 {
		if _, ok, _ := s.Get(ctx, fmt.Sprint(i)); ok {
			n++
		}
	}
	if n == 0 || n > 10 {
		t.Errorf("%d entries of 1000 bytes kept in 10 KiB", n)
	}
	if _, ok, _ := s.Get(ctx, "99"); !ok {
		t.Error("the latest entry was evicted")
	}
	s.Set(ctx, "99", []byte("x"), 0)
	if _, ok, _ := s.Get(ctx, "99"); ok {
		t.Error("an entry set with no lifetime left is kept")
	}
}

func TestDefaultAge(t *testing.T) {
	week := 7 * 24 * time.Hour
	p := cache.Policy{MaxAge: week, DefaultAge: week}
	for _, tc := range []struct {
		e    *cache.Entry
		want time.Duration
	}{
		{entry(200), week},
		{entry(200, "Last-Modified", httpDate(t0.Add(-time.Hour))), week},
		{entry(200, "Cache-Control", "max-age=60"), time.Minute},
		{entry(200, "Cache-Control", "no-cache"), 0},
	} {
		if got := p.Freshness(tc.e).Lifetime; got != tc.want {
			t.Errorf("Lifetime(%v) = %v, want %v", tc.e.Header, got, tc.want)
		}
	}
}

// TestFromLegacy: an httpcache backend serves as a Store.
func TestFromLegacy(t *testing.T) {
	ctx := context.Background()
	s := cache.FromLegacy(httpcache.NewMemoryCache())
	if _, ok, err := s.Get(ctx, "k"); ok || err != nil {
		t.Fatalf("Get of a missing key: %v, %v", ok, err)
	}
	if err := s.Set(ctx, "k", []byte("v"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get(ctx, "k"); !ok || err != nil || string(v) != "v" {
		t.Errorf("Get = %q, %v, %v", v, ok, err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := s.Get(done, "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a done context: %v", err)
	}
}

// TestEntryVersion: an entry of another encoding version is told apart
// from a corrupt one, and keys keep versions apart.
func TestEntryVersion(t *testing.T) {
	b, _ := entry(200).MarshalBinary()
	b[2]++
	err := new(cache.Entry).UnmarshalBinary(b)
	if !errors.Is(err, cache.ErrVersion) || !strings.HasPrefix(err.Error(), "robotsguard: ") {
		t.Errorf("UnmarshalBinary of another version: %v, want ErrVersion", err)
	}
	if err := new(cache.Entry).UnmarshalBinary([]byte("RG")); err == nil || errors.Is(err, cache.ErrVersion) {
		t.Errorf("UnmarshalBinary of garbage: %v", err)
	}
	if k := cache.Key("https://example.com/robots.txt"); !strings.HasSuffix(k, "https://example.com/robots.txt") || k == "https://example.com/robots.txt" {
		t.Errorf("Key = %q", k)
	}
}

// TestEmptyHeaderFieldRoundTrip: a header field without values does not
// break the round trip (a fuzzing find).
func TestEmptyHeaderFieldRoundTrip(t *testing.T) {
	e := &cache.Entry{Status: 200, Header: http.Header{"Etag": {}, "Age": {"1"}}}
	b, _ := e.MarshalBinary()
	var got cache.Entry
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	again, _ := got.MarshalBinary()
	if !bytes.Equal(b, again) || !reflect.DeepEqual(got.Header, http.Header{"Age": {"1"}}) {
		t.Errorf("round trip gave %v", got.Header)
	}
}

func TestFreshnessSource(t *testing.T) {
	var p cache.Policy
	for _, tc := range []struct {
		e               *cache.Entry
		source          string
		capped, floored bool
		window          time.Duration // Until minus Received; each entry is received 2s after its request
	}{
		{entry(200, "Cache-Control", "max-age=600"), "max-age", false, false, 598 * time.Second},
		{entry(200, "Cache-Control", "max-age=31536000"), "max-age", true, false, 24 * time.Hour},
		{entry(200, "Cache-Control", "no-cache"), "no-cache", false, true, time.Minute},
		{entry(200, "Date", httpDate(t0), "Expires", httpDate(t0.Add(time.Hour))), "Expires", false, false, time.Hour - 2*time.Second},
		{entry(200, "Date", httpDate(t0), "Last-Modified", httpDate(t0.Add(-10*time.Hour))), "Last-Modified heuristic", false, false, time.Hour - 2*time.Second},
		{entry(404), "MaxAge (no freshness information)", false, false, 24*time.Hour - 2*time.Second},
	} {
		f := p.Freshness(tc.e)
		if f.Source != tc.source || f.Capped != tc.capped || f.Floored != tc.floored || f.Until.Sub(tc.e.Received) != tc.window {
			t.Errorf("Freshness(%v) = %+v, want source %q capped %v floored %v, fresh for %v", tc.e.Header, f, tc.source, tc.capped, tc.floored, tc.window)
		}
	}
}

// TestExpiry: a Store keeps an entry as long as it can stand in for an
// unreachable robots.txt, and its failures as long as they count.
func TestExpiry(t *testing.T) {
	var p cache.Policy
	e := entry(200, "Cache-Control", "max-age=600")
	if got := p.Expiry(e); !got.Equal(t0.Add(cache.DefaultStaleLimit)) {
		t.Errorf("Expiry of a good entry = %v, want 30 days after receipt", got.Sub(t0))
	}
	failing := &cache.Entry{Failures: 3, FailingSince: t0, RetryAt: t0.Add(time.Hour)}
	if got := p.Expiry(failing); got.Before(t0.Add(cache.DefaultStaleLimit)) {
		t.Errorf("Expiry of failures = %v after they began, want past the stale limit", got.Sub(t0))
	}
}

// FuzzFreshness: header fields from any server give a freshness within the
// policy's bounds, without panicking.
func FuzzFreshness(f *testing.F) {
	f.Add(200, "max-age=600", "", "", "", "")
	f.Add(200, "", httpDate(t0), httpDate(t0.Add(time.Hour)), "", "")
	f.Add(404, "no-cache, max-age=5", "", "", "99999999999999999999", httpDate(t0.Add(-time.Hour)))
	f.Add(200, "max-age=\"60", "garbage", "0", "-1", "garbage")
	f.Fuzz(func(t *testing.T, status int, cc, date, expires, age, lastModified string) {
		if _, err := cache.CheckDirectives(cc); err != nil {
			t.Fatal(err)
		}
		e := &cache.Entry{Status: status, Header: http.Header{}, Requested: t0.Add(-time.Second), Received: t0}
		for k, v := range map[string]string{"Cache-Control": cc, "Date": date, "Expires": expires, "Age": age, "Last-Modified": lastModified} {
			if v != "" {
				e.Header.Set(k, v)
			}
		}
		for _, p := range []cache.Policy{{}, {Strict: true}, {MaxAge: time.Hour, MinAge: 2 * time.Hour}} {
			fr := p.Freshness(e)
			maxAge := p.MaxAge
			if maxAge == 0 {
				maxAge = cache.DefaultMaxAge
			}
			if d := fr.Until.Sub(e.Received); d < 0 || d > maxAge {
				t.Fatalf("%+v: fresh for %v after receipt, outside [0, %v]", p, d, maxAge)
			}
			if fr.Lifetime < 0 || fr.Source == "" {
				t.Fatalf("%+v: lifetime %v from %q", p, fr.Lifetime, fr.Source)
			}
			if p.Expiry(e).Before(fr.Until) {
				t.Fatalf("%+v: expires before it is stale", p)
			}
		}
	})
}

// TestMarshalRefusesWhatItCannotDecode: an entry that would not come back
// as it is fails to encode.
func TestMarshalRefusesWhatItCannotDecode(t *testing.T) {
	for _, e := range []*cache.Entry{
		{Status: 1000},
		{Status: -1},
		{Failures: -1},
		{Received: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)},
		{RetryAt: time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if b, err := e.MarshalBinary(); err == nil {
			var got cache.Entry
			t.Errorf("MarshalBinary(%+v) succeeded; decoding gives %v", e, got.UnmarshalBinary(b))
		}
	}
}

// TestSimpleDirectives: the common Cache-Control fields are read without
// the cacheobject parser, as it reads them; the others are left to it.
func TestSimpleDirectives(t *testing.T) {
	for _, tc := range []struct {
		v    string
		fast bool
	}{
		{"max-age=600", true},
		{"public, max-age=86400", true},
		{"max-age=0, no-cache, no-store, must-revalidate", true},
		{" ,private,\tmax-age=5 , ", true},
		{"no-transform, proxy-revalidate, immutable, max-age=007", true},
		{"max-age=1, max-age=2", true},
		{"max-age=999999999", true},
		{"", true},
		{"max-age=1234567890", false},
		{"MAX-AGE=5", false},
		{`max-age="5"`, false},
		{"max-age= 5", false},
		{"max-age =5", false},
		{"max-age=", false},
		{"max-age=5x", false},
		{`private="Set-Cookie"`, false},
		{"s-maxage=5", false},
		{"public\n", false},
	} {
		fast, err := cache.CheckDirectives(tc.v)
		if err != nil {
			t.Error(err)
		}
		if fast != tc.fast {
			t.Errorf("%q read without the parser: %v, want %v", tc.v, fast, tc.fast)
		}
	}
}

// TestFreshnessAllocs: the freshness of a response with common
// directives is read without allocating.
func TestFreshnessAllocs(t *testing.T) {
	e := entry(200, "Cache-Control", "public, max-age=600")
	e.Header.Set("Date", httpDate(t0))
	e.Received = t0
	var p cache.Policy
	if n := testing.AllocsPerRun(100, func() { p.Freshness(e) }); n != 0 {
		t.Errorf("Freshness allocates %v times", n)
	}
}
