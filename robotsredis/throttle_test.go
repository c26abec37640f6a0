package robotsredis_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsguard/robotsguard"
)

// throttled returns how long origin's throttle lasts from now, by Redis's
// "nb" and clock.
func throttled(t *testing.T, c *redis.Client, origin string) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	nb, err := c.HGet(ctx, "robotsguard/p1/{"+origin+"}", "nb").Result()
	if err != nil {
		t.Fatalf("HGET nb: %v", err)
	}
	µs, err := strconv.ParseInt(nb, 10, 64)
	if err != nil {
		t.Fatalf("nb %q: %v", nb, err)
	}
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatalf("TIME: %v", err)
	}
	return time.UnixMicro(µs).Sub(now)
}

// TestPaceThrottle: Fleet.Throttle holds the origin for the duration it is
// given, from Redis's now: a Transport whose Clock runs an hour ahead of
// the system's, answered 429 with Retry-After: 1, holds the fleet for a
// second, not an hour and a second.
func TestPaceThrottle(t *testing.T) {
	s := startRedis(t)
	c := s.client(t)
	f, _ := newFleet(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	f.Throttle(ctx, "https://throttle.example", 400*time.Millisecond)
	if d := throttled(t, c, "https://throttle.example"); d <= 0 || d > 400*time.Millisecond {
		t.Errorf("Throttle for 400ms: held for %v from Redis's now", d)
	}

	var first bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if !first {
			first = true
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer site.Close()
	clock := &offsetClock{}
	clock.off.Store(int64(time.Hour))
	client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "ThrottleBot/1.0", Pacer: f, Clock: clock}}
	req, _ := http.NewRequestWithContext(ctx, "GET", site.URL+"/page", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", resp.StatusCode)
	}
	if d := throttled(t, c, site.URL); d <= 0 || d > time.Second {
		t.Errorf("429 with Retry-After: 1, to a Transport an hour ahead: the fleet held for %v", d)
	}
}

// TestPaceThrottleLong: a throttle longer than the longest delay the Fleet
// takes from Redis (a day) holds the fleet for that day, rather than
// making the pace state look corrupt, which would be deleted and let the
// next request go at once.
func TestPaceThrottleLong(t *testing.T) {
	s := startRedis(t)
	f1, _ := newFleet(t, s)
	f2, _ := newFleet(t, s)
	o := "https://long.example"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f1.Throttle(ctx, o, 48*time.Hour)
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	l, err := f2.Acquire(short, robotsguard.PaceRequest{Origin: o, Interval: time.Second})
	cancelShort()
	var pe *robotsguard.PacingError
	switch {
	case err == nil:
		l.Release()
		t.Fatalf("a request went at once after a throttle of 48h (waited %v)", l.Waited)
	case !errors.As(err, &pe) || !pe.Throttled:
		t.Fatalf("Acquire after a throttle of 48h: %v, want a throttled *PacingError", err)
	case time.Until(pe.NotBefore) < 23*time.Hour:
		t.Errorf("NotBefore in %v after a throttle of 48h, want a day at least", time.Until(pe.NotBefore))
	}
}
