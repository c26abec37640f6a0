package robotsguard

import (
	"net/url"
	"time"
)

// Test hooks: tests shorten the retry waits of robots.txt fetches.

func SetRetryWait(t *Transport, min, max time.Duration) { t.retryWaitMin, t.retryWaitMax = min, max }

// Pacers returns the number of origins with pacing state.
func Pacers(t *Transport) int { return t.pacer.len() }

// OriginOf exposes the origin key of a URL.
var OriginOf = func(rawURL string) (string, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return "", err
	}
	o, err := originOf(u)
	return o.String(), err
}

func parseURL(s string) (*url.URL, error) { return url.Parse(s) }
