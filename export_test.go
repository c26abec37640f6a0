package robotsguard

import (
	"context"
	"net/url"
	"time"
)

// Test hooks: tests replace sleeping and shorten the retry waits of
// robots.txt fetches.

func SetSleep(t *Transport, f func(context.Context, time.Duration) error) { t.sleep = f }

func SetRetryWait(t *Transport, min, max time.Duration) { t.retryWaitMin, t.retryWaitMax = min, max }

// Pacers returns the number of origins with pacing state.
func Pacers(t *Transport) int { return t.pacers.len() }

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
