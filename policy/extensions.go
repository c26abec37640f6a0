package policy

import (
	"bytes"
	"github.com/robotsguard/robotsguard/internal/ascii"
	"math"
	"strconv"
	"time"
)

// This file reads the group-level lines that RFC 9309 leaves to crawlers
// (§2.2.4): Crawl-delay and Request-rate.

// A Rate is a Request-rate: at most Requests requests every Per. The zero
// Rate means no rate was given.
type Rate struct {
	Requests int
	Per      time.Duration
}

// Interval returns the pause between two requests that the rate asks for,
// or 0 for the zero Rate.
func (r Rate) Interval() time.Duration {
	if r.Requests <= 0 || r.Per <= 0 {
		return 0
	}
	return r.Per / time.Duration(r.Requests)
}

// slower reports whether r allows fewer requests per unit of time than o.
func (r Rate) slower(o Rate) bool {
	// r.Requests/r.Per < o.Requests/o.Per, in floating point to avoid
	// overflow.
	return float64(r.Requests)*float64(o.Per) < float64(o.Requests)*float64(r.Per)
}

// ParseCrawlDelay reads the value of a Crawl-delay line as Group.CrawlDelay
// does, for linters and tools that read lines one by one.
func ParseCrawlDelay(value string) (time.Duration, bool) {
	f, ok := parseCrawlDelay([]byte(value))
	return seconds(f), ok
}

// ParseRequestRate reads the value of a Request-rate line as
// Group.RequestRate does.
func ParseRequestRate(value string) (Rate, bool) { return parseRequestRate([]byte(value)) }

// parseCrawlDelay reads a Crawl-delay value: a non-negative decimal number
// of seconds ("10", "0.5"). Text after the number and whitespace (such as a
// unit) is ignored.
func parseCrawlDelay(v []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(firstField(v)), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}

// parseRequestRate reads a Request-rate value "n/d" where d is a number
// with an optional unit s, m or h (seconds when absent): "1/5" is one
// request every 5 seconds, "10/1m" ten a minute. A visit-time window after
// the rate ("1/5 0600-0845") is ignored.
func parseRequestRate(v []byte) (Rate, bool) {
	f := firstField(v)
	slash := bytes.IndexByte(f, '/')
	if slash <= 0 {
		return Rate{}, false
	}
	n, err := strconv.Atoi(string(f[:slash]))
	if err != nil || n <= 0 {
		return Rate{}, false
	}
	d := f[slash+1:]
	unit := time.Second
	if len(d) > 0 {
		switch ascii.Lower(d[len(d)-1]) {
		case 's':
			d = d[:len(d)-1]
		case 'm':
			unit, d = time.Minute, d[:len(d)-1]
		case 'h':
			unit, d = time.Hour, d[:len(d)-1]
		}
	}
	per, err := strconv.ParseFloat(string(d), 64)
	if err != nil || math.IsNaN(per) || per <= 0 {
		return Rate{}, false
	}
	return Rate{Requests: n, Per: seconds(per * unit.Seconds())}, true
}

// firstField returns v up to its first whitespace.
func firstField(v []byte) []byte {
	for i, c := range v {
		if ascii.IsSpace(c) {
			return v[:i]
		}
	}
	return v
}

// seconds converts s seconds to a Duration, saturating at the largest one.
func seconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}
