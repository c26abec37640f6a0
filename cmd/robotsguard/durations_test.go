package main

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {200 * time.Millisecond, "200ms"}, {1500 * time.Millisecond, "1.5s"}, {2 * time.Second, "2s"},
		{time.Minute, "1m"}, {90 * time.Second, "1m30s"}, {time.Hour, "1h"}, {24 * time.Hour, "24h"},
		{25*time.Hour + 30*time.Minute, "25h30m"}, {7 * 24 * time.Hour, "7d"}, {30*24*time.Hour + 12*time.Hour, "30d12h"},
		{time.Minute + 500*time.Millisecond, "1m500ms"},
	} {
		if got := duration(tc.d); got != tc.want {
			t.Errorf("duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// A lifetime is shown as the header gave it, though the age the
// response had on receipt takes up to a second from it.
func TestLifetime(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{24*time.Hour - 600*time.Millisecond, "24h"}, {24 * time.Hour, "24h"},
		{time.Hour - 400*time.Millisecond, "1h"}, {time.Hour - 2500*time.Millisecond, "1h"},
		{10*time.Minute - 3*time.Second, "9m57s"}, {10*time.Minute + 20*time.Second, "10m"},
		{2*time.Hour + 29*time.Minute + 40*time.Second, "2h30m"},
		{90*time.Second - 200*time.Millisecond, "1m30s"}, {time.Minute, "1m"}, {40 * time.Second, "40s"},
	} {
		if got := duration(lifetime(tc.d)); got != tc.want {
			t.Errorf("lifetime(%v) shows %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := wholeSeconds(3599400 * time.Millisecond).Seconds(); got != 3600 {
		t.Errorf("wholeSeconds(59m59.4s) = %v s, want 3600", got)
	}
}

// Every source cache.Freshness names, and the bounds the Transport adds,
// read as words.
func TestLifetimeWords(t *testing.T) {
	for _, tc := range []struct {
		source string
		d      time.Duration
		want   string
	}{
		{"max-age", time.Hour, "Cache-Control max-age"},
		{"max-age (capped)", 24 * time.Hour, "Cache-Control max-age, capped at 24h"},
		{"Expires", 2 * time.Hour, "Expires header"},
		{"Expires (capped)", 24 * time.Hour, "Expires header, capped at 24h"},
		{"Last-Modified heuristic", 3 * time.Hour, "no max-age or Expires: a tenth of the time since Last-Modified"},
		{"DefaultAge", 7 * 24 * time.Hour, "no max-age or Expires: the cache policy's default"},
		{"MaxAge (no freshness information)", 24 * time.Hour, "no max-age, Expires or Last-Modified: the longest a robots.txt is cached"},
		{"no-cache (floored)", time.Minute, "Cache-Control no-cache, raised to the 1m minimum"},
		{"no-store (floored)", time.Minute, "Cache-Control no-store, raised to the 1m minimum"},
		{"max-age (floored)", time.Minute, "Cache-Control max-age, raised to the 1m minimum"},
		{"max-age given twice (floored)", time.Minute, "Cache-Control gives max-age twice, raised to the 1m minimum"},
		{"Cache-Control that does not parse (floored)", time.Minute, "a Cache-Control that does not parse, raised to the 1m minimum"},
		{"Expires that does not parse (floored)", time.Minute, "an Expires that does not parse, raised to the 1m minimum"},
		{"status not cacheable by default", 0, "a status not cacheable by default"},
		{"something new", time.Hour, "something new"},
	} {
		if got := lifetimeWords(tc.source, tc.d); got != tc.want {
			t.Errorf("lifetimeWords(%q) = %q, want %q", tc.source, got, tc.want)
		}
	}
}
