package main

import (
	"strconv"
	"strings"
	"time"
)

// Durations for a person to read.

// duration writes d compactly: "24h", "1h30m", "2m5s", "1.5s", "200ms",
// "7d12h" (days from 48 hours on), without the zero units Duration.String
// writes ("24h0m0s").
func duration(d time.Duration) string {
	if d < time.Minute {
		if d%time.Second == 0 {
			return strconv.Itoa(int(d/time.Second)) + "s"
		}
		return d.Round(time.Millisecond).String()
	}
	var b strings.Builder
	if d >= 48*time.Hour {
		b.WriteString(strconv.Itoa(int(d/(24*time.Hour))) + "d")
		d %= 24 * time.Hour
	}
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.d; n > 0 {
			b.WriteString(strconv.Itoa(int(n)) + u.name)
			d -= n * u.d
		}
	}
	if d > 0 { // a fraction of a second past a minute
		b.WriteString(d.Round(time.Millisecond).String())
	}
	return b.String()
}

// wholeSeconds rounds a cache lifetime up to the second. The Transport
// counts it from the receipt of the response, less the age the response
// had then, which the 1-second resolution of the Date header makes up to
// a second more than it is: max-age=3600 is used for 59m59.4s. Rounded
// up, it is the lifetime the header gave, 3600 s.
func wholeSeconds(d time.Duration) time.Duration {
	if r := d % time.Second; r > 0 {
		d += time.Second - r
	}
	return d
}

// lifetime rounds a cache lifetime as a person reads it: up to the
// second, and, from ten minutes on, to the minute, as the age taken from
// it also counts the time the response took to arrive, which may be
// seconds (max-age=3600 is then used for 59m57s: "1h").
func lifetime(d time.Duration) time.Duration {
	if d = wholeSeconds(d); d >= 10*time.Minute {
		d = d.Round(time.Minute)
	}
	return d
}

// lifetimeWords says in words where a lifetime came from, from the
// FetchEvent.LifetimeSource of the Transport's Observer (see
// cache.Freshness): "Cache-Control max-age, capped at 24h". d is the
// lifetime, as shown.
func lifetimeWords(source string, d time.Duration) string {
	base, capped := strings.CutSuffix(source, " (capped)")
	base, floored := strings.CutSuffix(base, " (floored)")
	w, ok := map[string]string{
		"max-age":                           "Cache-Control max-age",
		"Expires":                           "Expires header",
		"Last-Modified heuristic":           "no max-age or Expires: a tenth of the time since Last-Modified",
		"DefaultAge":                        "no max-age or Expires: the cache policy's default",
		"MaxAge (no freshness information)": "no max-age, Expires or Last-Modified: the longest a robots.txt is cached",
		"no-cache":                          "Cache-Control no-cache",
		"no-store":                          "Cache-Control no-store",
		"max-age given twice":               "Cache-Control gives max-age twice",
		"Cache-Control that does not parse": "a Cache-Control that does not parse",
		"Expires that does not parse":       "an Expires that does not parse",
		"status not cacheable by default":   "a status not cacheable by default",
	}[base]
	if !ok {
		w = base
	}
	switch {
	case capped:
		w += ", capped at " + duration(d)
	case floored:
		w += ", raised to the " + duration(d) + " minimum"
	}
	return w
}
