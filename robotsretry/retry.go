package robotsretry

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/pay"
)

// NewClient returns retryablehttp.NewClient() with its HTTP client sending
// through t, and with CheckRetry(nil) and Backoff(nil) as its CheckRetry
// and Backoff. Everything else is retryablehttp.NewClient's: its limits,
// its waits, and its Logger, which logs every attempt on standard error
// (set Logger to nil to silence it). NewClient panics if t is nil.
func NewClient(t *robotsguard.Transport) *retryablehttp.Client {
	if t == nil {
		panic("robotsretry: NewClient needs a Transport")
	}
	c := retryablehttp.NewClient()
	c.HTTPClient.Transport = t
	c.CheckRetry = CheckRetry(nil)
	c.Backoff = Backoff(nil)
	return c
}

// CheckRetry returns a go-retryablehttp CheckRetry for a client that sends
// through a robotsguard.Transport (retryablehttp.Client.HTTPClient.Transport).
// It decides as next does (nil means retryablehttp.DefaultRetryPolicy),
// except that it never retries:
//   - a refusal (robotsguard.ErrDisallowed, robotsguard.ErrUnsupportedURL),
//     redirect hops included: the rules do not change within seconds, and
//     an unreachable robots.txt is fetched again by the Transport on its
//     own schedule, not on each attempt;
//   - a *robotsguard.PacingError: the origin's pace would not let the
//     request go before its deadline, and would not on the next attempt
//     either; requeue the URL for the error's NotBefore instead;
//   - a pay-per-crawl error (pay.ErrPaymentRequired, pay.ErrOvercharged,
//     pay.ErrPolicy): the price, the budget and the policy are the same on
//     the next attempt, and a retry of a charged URL is not offered payment
//     (pay.ReasonPaid);
//   - a 429 or 503 whose Retry-After asks for more than a minute: the
//     response is returned, for the caller to requeue the URL for then,
//     rather than a goroutine blocked for each attempt (the Transport
//     holds every request to that origin until then, up to MaxThrottle).
//
// The errors it declines to retry are returned as they are, so that
// errors.Is and errors.As find them in the client's error. Use Backoff
// with it, so that a 429 or 503 is waited for once, by the Transport,
// rather than by both.
func CheckRetry(next retryablehttp.CheckRetry) retryablehttp.CheckRetry {
	if next == nil {
		next = retryablehttp.DefaultRetryPolicy
	}
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil {
			var pe *robotsguard.PacingError
			if errors.Is(err, robotsguard.ErrDisallowed) || errors.Is(err, robotsguard.ErrUnsupportedURL) || errors.As(err, &pe) ||
				errors.Is(err, pay.ErrPaymentRequired) || errors.Is(err, pay.ErrOvercharged) || errors.Is(err, pay.ErrPolicy) {
				return false, err
			}
		}
		if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
			if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok && d > maxRetryWait {
				return false, nil
			}
		}
		return next(ctx, resp, err)
	}
}

// maxRetryWait is the longest Retry-After that CheckRetry retries after.
const maxRetryWait = time.Minute

// Backoff returns a go-retryablehttp Backoff for a client that sends
// through a robotsguard.Transport: it waits as next does (nil means
// retryablehttp.DefaultBackoff), except after a 429 or 503 response, where
// it does not wait at all: the Transport holds the retry, and every other
// request to that origin, until the end of the origin's back-off (the
// Retry-After, capped by MaxThrottle, or a doubling pause). With both
// waiting, the waits would add up, and a Retry-After of a year would hold
// the client for a year. Do not use it with a Transport that has NoPacing
// set, which waits for nothing.
func Backoff(next retryablehttp.Backoff) retryablehttp.Backoff {
	if next == nil {
		next = retryablehttp.DefaultBackoff
	}
	return func(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
		if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
			return 0
		}
		return next(min, max, attempt, resp)
	}
}

// parseRetryAfter reads a Retry-After field (RFC 9110 §10.2.3): a number
// of seconds or an HTTP date. It is a copy of the root package's
// unexported parser; the cap of a day on a number of seconds keeps the
// Duration from overflowing.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		return time.Duration(min(n, uint64(24*time.Hour/time.Second))) * time.Second, true
	}
	if d, err := http.ParseTime(v); err == nil {
		return max(d.Sub(now), 0), true
	}
	return 0, false
}
