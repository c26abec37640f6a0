package robotsguard

import (
	"context"
	"math"
	"strconv"
	"time"

	"golang.org/x/time/rate"
)

// The Transport-wide rate: MaxRate caps the requests the Transport sends
// per second, whatever their origins, for a crawler's own bandwidth or
// budget. The origins' pace is theirs; this one is the crawler's.

// newLimiter returns a limiter of MaxRate, or nil when MaxRate
// sets no cap.
func (t *Transport) newLimiter() *rate.Limiter {
	if !(t.MaxRate > 0) || math.IsInf(t.MaxRate, 1) {
		return nil
	}
	burst := int(min(math.Ceil(t.MaxRate), math.MaxInt32))
	return rate.NewLimiter(rate.Limit(t.MaxRate), max(burst, 1))
}

// waitRate waits, on the Clock, until MaxRate lets a request go, and
// returns how long it waited. A request whose context's deadline comes
// first fails at once with a *PacingError that says when one could go;
// one whose context ends while it waits fails with the context's error in
// a *PacingError. Either way its token is given back.
func (t *Transport) waitRate(ctx context.Context, origin string) (time.Duration, error) {
	if t.limiter == nil {
		return 0, nil
	}
	now := t.now()
	r := t.limiter.ReserveN(now, 1)
	d := r.DelayFrom(now)
	if d <= 0 {
		return 0, nil
	}
	fail := func(err error) error {
		r.CancelAt(t.now())
		return &PacingError{Origin: origin, NotBefore: now.Add(d), Wait: d, Err: err, maxRate: t.MaxRate}
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)-t.minResponseTime() < d {
		return 0, fail(context.DeadlineExceeded)
	}
	if err := t.clock().Sleep(ctx, d); err != nil {
		return 0, fail(err)
	}
	return d, nil
}

// rateText says MaxRate for a person: "10 requests a second".
func rateText(r float64) string {
	return strconv.FormatFloat(r, 'g', 4, 64) + " requests a second"
}
