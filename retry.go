package robotsguard

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy returns a go-retryablehttp CheckRetry for a client that sends
// through a Transport (retryablehttp.Client.HTTPClient.Transport). It
// decides as next does (nil means retryablehttp.DefaultRetryPolicy), except
// that it never retries:
//   - a refusal (ErrDisallowed, ErrUnsupportedURL), redirect hops
//     included: the rules do not change within seconds, and an
//     unreachable robots.txt is fetched again by the Transport on its own
//     schedule, not on each attempt;
//   - a *PacingError: the origin's pace would not let the request go
//     before its deadline, and would not on the next attempt either;
//     requeue the URL for the error's NotBefore instead;
//   - a 429 or 503 whose Retry-After asks for more than a minute: the
//     response is returned, for the caller to requeue the URL for then,
//     rather than a goroutine blocked for each attempt (the Transport
//     holds every request to that origin until then, up to MaxBackoff).
//
// Use Backoff with it, so that a 429 or 503 is waited for once, by the
// Transport, rather than by both.
func RetryPolicy(next retryablehttp.CheckRetry) retryablehttp.CheckRetry {
	if next == nil {
		next = retryablehttp.DefaultRetryPolicy
	}
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil {
			var pe *PacingError
			if errors.Is(err, ErrDisallowed) || errors.Is(err, ErrUnsupportedURL) || errors.As(err, &pe) {
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

// maxRetryWait is the longest Retry-After that RetryPolicy retries after.
const maxRetryWait = time.Minute

// Backoff returns a go-retryablehttp Backoff for a client that sends
// through a Transport: it waits as next does (nil means
// retryablehttp.DefaultBackoff), except after a 429 or 503 response, where
// it does not wait at all: the Transport holds the retry, and every other
// request to that origin, until the end of the origin's back-off (the
// Retry-After, capped by MaxBackoff, or a doubling pause). With both
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
