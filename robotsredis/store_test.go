package robotsredis_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotsredis"
)

// TestStoreKeys: entries are stored as the root encodes them, under the
// cache key with the origin in a hash tag, for the ttl given.
func TestStoreKeys(t *testing.T) {
	s := startRedis(t)
	f, _ := newFleet(t, s)
	c := s.client(t)
	ctx := context.Background()
	for key, want := range map[string]string{
		cache.Key("https://example.com/robots.txt"):      "robotsguard/e2/{https://example.com}/robots.txt",
		cache.Key("http://a.example:8080/robots.txt#ua"): "robotsguard/e2/{http://a.example:8080}/robots.txt#ua",
		"no-url": "no-url",
	} {
		if err := f.Set(ctx, key, []byte("v"), time.Minute); err != nil {
			t.Fatal(err)
		}
		if ttl := c.PTTL(ctx, want).Val(); ttl <= 50*time.Second || ttl > time.Minute {
			t.Errorf("%s: TTL %v under %s, want a minute", key, ttl, want)
		}
		if b, ok, err := f.Get(ctx, key); err != nil || !ok || string(b) != "v" {
			t.Errorf("Get(%s) = %q, %v, %v", key, b, ok, err)
		}
	}
	if _, ok, err := f.Get(ctx, cache.Key("https://missing.example/robots.txt")); ok || err != nil {
		t.Errorf("Get of a missing key: %v, %v", ok, err)
	}
}

// TestStoreLock: one holder at a time; Unlock with another's token does
// nothing; Wait returns once the lock is released, or at once when free.
func TestStoreLock(t *testing.T) {
	s := startRedis(t)
	f1, _ := newFleet(t, s)
	f2, _ := newFleet(t, s)
	ctx := context.Background()
	key := cache.Key("https://example.com/robots.txt")
	tok, ok, err := f1.TryLock(ctx, key, time.Minute)
	if err != nil || !ok {
		t.Fatalf("TryLock: %v, %v", ok, err)
	}
	if _, ok, _ := f2.TryLock(ctx, key, time.Minute); ok {
		t.Fatal("two holders")
	}
	f2.Unlock(ctx, key, "not the token")
	waited := make(chan error)
	go func() { waited <- f2.Wait(ctx, key) }()
	f1.Unlock(ctx, key, tok)
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if err := f2.Wait(ctx, key); err != nil {
		t.Fatal(err)
	}
	// A holder that dies: its lock expires, and Wait sees it.
	if _, ok, _ := f1.TryLock(ctx, key, 50*time.Millisecond); !ok {
		t.Fatal("lock not free")
	}
	if err := f2.Wait(ctx, key); err != nil {
		t.Fatal(err)
	}
}

// TestStoreCorrupt: whatever Redis holds under a key, a Transport reads it
// without panicking and fetches the robots.txt.
func TestStoreCorrupt(t *testing.T) {
	s := startRedis(t)
	f, _ := newFleet(t, s)
	var logged bytes.Buffer
	f.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	robots := 0
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robots++
			w.Write([]byte("User-agent: *\nDisallow: /private\n"))
		}
	}))
	defer site.Close()
	c := s.client(t)
	k := "robotsguard/e2/{" + site.URL + "}/robots.txt"
	for _, v := range []string{"", "RG\x02\xff\xff\xff", "RG\x09future", "garbage",
		"RZ\x09a later format", "RZ\x01", "RZ\x01\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", "RZ\x01\x10\x00\x00\x00\x00garbage",
		"RZ\x00RG\x02\xff", "RZ\x00", "RZ\x02", "RZ\x02\x10\x00\x00\x00\x00garbage"} {
		robots = 0
		c.FlushAll(context.Background())
		c.Set(context.Background(), k, v, time.Minute)
		tr := &robotsguard.Transport{UserAgent: "FleetBot/1.0", Store: f, Pacer: f, NoPacing: true}
		resp, err := (&http.Client{Transport: tr}).Get(site.URL + "/page")
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		resp.Body.Close()
		if _, err := (&http.Client{Transport: tr}).Get(site.URL + "/private/x"); !errors.Is(err, robotsguard.ErrDisallowed) {
			t.Fatalf("%q: %v, want ErrDisallowed", v, err)
		}
		if robots != 1 {
			t.Errorf("%q: %d robots.txt fetches, want 1", v, robots)
		}
		if b, _ := c.Get(context.Background(), k).Bytes(); len(b) < 3 || string(b[:3]) != "RZ\x02" {
			t.Errorf("%q: the entry fetched was not stored under %s: %q", v, k, b)
		}
	}
	if f.State() != robotsredis.Closed {
		t.Errorf("circuit %v after reading bad entries", f.State())
	}
	// The four values of this package's own format that do not decode,
	// each time they are read.
	if n := strings.Count(logged.String(), "robotsredis: cache entry skipped"); n < 4 {
		t.Errorf("%d entries skipped logged, want 4 at least:\n%s", n, logged.String())
	}
}

// TestStoreOlderEntry: an entry a Fleet of the last version stored (the
// root's encoding as it is, uncompressed) is read: a fleet upgraded does
// not fetch every robots.txt again. What the Fleet stores now is shorter.
func TestStoreOlderEntry(t *testing.T) {
	s := startRedis(t)
	f, _ := newFleet(t, s)
	robots := 0
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robots++
		}
	}))
	defer site.Close()
	body := strings.Repeat("User-agent: *\nDisallow: /private\n", 20)
	now := time.Now()
	e := &cache.Entry{Status: 200, Body: []byte(body), Requested: now, Received: now,
		Header: http.Header{"Cache-Control": {"max-age=3600"}}}
	old, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	ctx := context.Background()
	k := "robotsguard/e2/{" + site.URL + "}/robots.txt"
	c.Set(ctx, k, old, time.Hour)
	tr := &robotsguard.Transport{UserAgent: "FleetBot/1.0", Store: f, Pacer: f, NoPacing: true}
	if _, err := (&http.Client{Transport: tr}).Get(site.URL + "/private/x"); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatalf("%v, want ErrDisallowed: the stored rules", err)
	}
	if robots != 0 {
		t.Errorf("%d robots.txt fetches, want 0: the entry of the last version was not read", robots)
	}
	if err := f.Set(ctx, cache.Key(site.URL+"/robots.txt"), old, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := c.StrLen(ctx, k).Val(); n >= int64(len(old))/3 {
		t.Errorf("stored in %d bytes, the entry has %d: not compressed", n, len(old))
	}
	if b, ok, err := f.Get(ctx, cache.Key(site.URL+"/robots.txt")); err != nil || !ok || !bytes.Equal(b, old) {
		t.Errorf("Get: %d bytes, %v, %v; want the entry back", len(b), ok, err)
	}
}
