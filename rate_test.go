package robotsguard_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
)

// TestMaxRate: MaxRate spaces the Transport's requests, all together and
// on its Clock, after a burst of a second's worth; with NoPacing too.
func TestMaxRate(t *testing.T) {
	for _, noPacing := range []bool{false, true} {
		var waits []time.Duration
		h := newHarness(t, func(tr *robotsguard.Transport) {
			tr.MaxRate = 2
			tr.NoPacing = noPacing
			tr.MaxRequestsPerOrigin = -1 // the origin's own pace aside: Delay is -1 too
			tr.Observer = &robotsguard.Observer{Waited: func(ev robotsguard.WaitEvent) { waits = append(waits, ev.Wait) }}
		})
		s := h.origin("User-agent: *\nDisallow: /private\n")
		for range 6 {
			h.allowed(s.URL + "/page")
		}
		half := 500 * time.Millisecond
		want := []time.Duration{half, half, half, half} // two at once, then one every half second
		if got := h.sleeps(); !slices.Equal(got, want) {
			t.Errorf("NoPacing %v: slept %v, want %v", noPacing, got, want)
		}
		if !slices.Equal(waits, want) {
			t.Errorf("NoPacing %v: the Observer heard of waits %v, want %v", noPacing, waits, want)
		}
		if n := count(s, "/page"); n != 6 {
			t.Errorf("NoPacing %v: %d pages sent, want 6", noPacing, n)
		}
	}
}

// TestMaxRateDeadline: a request that MaxRate would hold past its
// deadline fails at once, unsent, with a *PacingError that says so, and
// gives its turn back: the next request goes when it would have.
func TestMaxRateDeadline(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.MaxRate = 0.1 // one request every ten seconds
	})
	s := h.origin("User-agent: *\nDisallow: /private\n")
	h.allowed(s.URL + "/1")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := h.do(ctx, s.URL+"/2")
	var pe *robotsguard.PacingError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) || pe.Wait != 10*time.Second {
		t.Fatalf("err %v: want a *PacingError of MaxRate, 10s to wait", err)
	}
	want := "robotsguard: the Transport's MaxRate (0.1 requests a second) holds requests: the next request may go in 10s, after this request's deadline: context deadline exceeded"
	if pe.Error() != want {
		t.Errorf("message %q\nwant %q", pe.Error(), want)
	}
	if got := h.sleeps(); len(got) != 0 {
		t.Errorf("slept %v before failing", got)
	}
	if n := count(s, "/2"); n != 0 {
		t.Errorf("the request was sent")
	}
	// The token was given back: the next request waits ten seconds, not
	// twenty.
	h.allowed(s.URL + "/3")
	if got := h.sleeps(); !slices.Equal(got, []time.Duration{10 * time.Second}) {
		t.Errorf("the next request slept %v, want [10s]", got)
	}
}
