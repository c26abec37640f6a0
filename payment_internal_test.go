package robotsguard

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/pay"
)

// TestWalletRemembersBounded: the URLs charged are remembered for
// RepayAfter, and at most maxRecent of them, the oldest forgotten first.
func TestWalletRemembersBounded(t *testing.T) {
	var w wallet
	w.init(&pay.Policy{MaxPrice: pay.MustParsePrice("USD 0.01"), Budget: pay.MustParsePrice("USD 1000000")})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	req := func(i int) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://example.com/%d", i), nil)
		return r
	}
	charge := func(i int) offer {
		o := w.offer(req(i), "https://example.com", now)
		if o.price.IsZero() {
			t.Fatalf("request %d not offered", i)
		}
		w.settle(o, &pay.Charge{Price: o.price}, o.price.Micros, now)
		return o
	}
	const n = maxRecent + 1000
	for i := range n {
		charge(i)
		now = now.Add(time.Microsecond)
	}
	if len(w.recent) > maxRecent || len(w.queue)-w.head > maxRecent || cap(w.queue) > 4*maxRecent {
		t.Errorf("%d URLs remembered, queue %d of %d; want at most %d", len(w.recent), len(w.queue)-w.head, cap(w.queue), maxRecent)
	}
	if o := w.offer(req(0), "https://example.com", now); o.paid || o.price.IsZero() {
		t.Errorf("the oldest URL is still remembered: %+v", o)
	} else {
		w.settle(o, nil, 0, now)
	}
	if o := w.offer(req(n-1), "https://example.com", now); !o.paid {
		t.Errorf("the newest URL is offered again: %+v", o)
	}
	// After RepayAfter, every one is forgotten at the next charge.
	now = now.Add(pay.DefaultRepayAfter)
	charge(n)
	if len(w.recent) != 1 {
		t.Errorf("%d URLs remembered after RepayAfter, want 1", len(w.recent))
	}
	if spent := int64(n+1) * 10_000; w.spent != spent || w.left != 1_000_000*pay.Micro-spent {
		t.Errorf("spent %d, left %d", w.spent, w.left)
	}
}
