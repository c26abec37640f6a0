package robotscolly

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
)

// Requeue returns an OnError callback that sends again each request the
// Transport did not send because its origin's pace would not let it go
// before its deadline (a *robotsguard.PacingError, see PacingError, that
// matches context.DeadlineExceeded), and hands every other error to next
// (nil means none). colly marks a URL visited before its request is sent,
// so without it such a page is lost: an async crawl of a page of 80 links
// with a Crawl-delay of 0.2 seconds lost 30 of them to colly's 10-second
// request timeout.
//
// The callback waits, on the Transport's Clock, until NotBefore (when
// known: a request that gave up while it waited goes at once), then calls
// Request.Retry, which sends the request again (it skips colly's visited
// check) and paces it anew: a request that loses its turn again waits
// again. The wait holds the goroutine that runs the callback, and so
// colly's Wait: in an async crawl that is the request's own goroutine, and
// it holds no Parallelism slot of colly's LimitRule; in a synchronous crawl
// it is the crawl's, which the wait paces as it should. It ends early, and
// the error goes to next, when the collector's Context ends.
//
// A request held by its origin's back-off (a 429 or 503 answer:
// PacingError.Throttled) waits for its end, up to the Transport's
// MaxThrottle.
//
// A request refused because its origin's robots.txt could not be read (a
// *robotsguard.DisallowedError whose Reason is ReasonUnreachable or
// ReasonACAPReference: transient, RFC 9309 §2.3.1.4) is sent again the
// same way at the refusal's NotBefore, when the Transport fetches the file
// again, through TransientRetries failed fetches in a row of that
// robots.txt; past them, and until a request to the origin is decided by
// its rules, such refusals go to next. The failures of 4,096 origins are
// counted at most: a new origin takes the place of one given up, or else
// its refusals go to next at once.
//
// Every other refusal goes to next. A request whose context was canceled
// is not sent again, and neither is one that Retry cannot send (a body
// that cannot be rewound, colly's filters): next receives the error,
// joined with Retry's.
// next hears of each failure once: in a synchronous crawl, Retry returns
// the error of the request it sent, which OnError has already seen.
func (g *Guard) Requeue(next colly.ErrorCallback) colly.ErrorCallback {
	c, t := g.c, g.t
	return func(r *colly.Response, err error) {
		if r != nil && r.Request != nil {
			if v, ok := g.retrying.Load(headersKey(r.Request)); ok {
				v.(*atomic.Bool).Store(true) // reported, here or to next
			}
		}
		var notBefore time.Time
		again := false
		if pe := g.PacingError(r, err); pe != nil && errors.Is(pe, context.DeadlineExceeded) {
			notBefore, again = pe.NotBefore, true
		} else if d := transientRefusal(err); d != nil && g.g.failing.refused(d) {
			notBefore, again = d.NotBefore, true
		}
		if again && r.Request != nil {
			clock := t.Clock
			if clock == nil {
				clock = robotsguard.SystemClock{}
			}
			ctx := c.Context
			if ctx == nil {
				ctx = context.Background()
			}
			if werr := clock.Sleep(ctx, notBefore.Sub(clock.Now())); werr != nil {
				err = errors.Join(err, werr)
			} else if rerr, reported := g.retry(r.Request); rerr != nil && !reported {
				err = errors.Join(err, fmt.Errorf("robotscolly: requeueing %s: %w", r.Request.URL.Redacted(), rerr))
			} else {
				return
			}
		}
		if next != nil {
			next(r, err)
		}
	}
}

// retry sends r again, and returns Retry's error and whether OnError
// heard of the request meanwhile (Retry sent it, synchronously, and
// returns the error OnError was given).
func (g *Guard) retry(r *colly.Request) (err error, reported bool) {
	k, seen := headersKey(r), new(atomic.Bool)
	g.retrying.Store(k, seen) // Retry sends r's header map again
	defer g.retrying.CompareAndDelete(k, seen)
	err = r.Retry()
	return err, seen.Load()
}
