package robotsredis_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
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
	for _, v := range []string{"", "RG\x02\xff\xff\xff", "RG\x09future", "garbage"} {
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
		if b, _ := c.Get(context.Background(), k).Bytes(); len(b) < 3 || string(b[:2]) != "RG" {
			t.Errorf("%q: the entry fetched was not stored under %s: %q", v, k, b)
		}
	}
	if f.State() != robotsredis.Closed {
		t.Errorf("circuit %v after reading bad entries", f.State())
	}
}
