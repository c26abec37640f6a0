package robotsguard

import (
	"context"
	"math"
	"testing"
	"time"
)

// backoffs records the back-offs a Transport gives its Pacer.
type backoffs struct {
	LocalPacer
	waits []time.Duration
}

func (b *backoffs) Throttle(_ context.Context, _ string, d time.Duration) {
	b.waits = append(b.waits, d)
}

// TestBackoffDoubles: after 429 or 503 answers in a row without a
// Retry-After, the back-off doubles from the origin's interval up to
// MaxThrottle, and stays there, however long the interval and however
// many the answers: it never wraps round to a short one.
func TestBackoffDoubles(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, every := range []time.Duration{0, time.Second, 3 * time.Second, time.Hour, 1 << 44, 1<<62 + 1} {
		pacer := &backoffs{}
		tr := &Transport{Pacer: pacer, MaxThrottle: 1 << 62, Clock: fixedClock{now}}
		st, _ := namedState(origin{host: "example.com:80"}, "", nil, false)
		st.every = every
		for range 40 {
			tr.throttle(context.Background(), st, "")
		}
		for i, got := range pacer.waits {
			want := tr.MaxThrottle
			if w := float64(max(every, time.Second)) * math.Pow(2, float64(min(i, 20))); w < float64(want) {
				want = time.Duration(w)
			}
			if got != want {
				t.Fatalf("interval %v: back-off %d is %v, want %v", every, i+1, got, want)
			}
		}
	}
}
