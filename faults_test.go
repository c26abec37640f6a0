package robotsguard_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
)

// TestBaseIgnoresContext: a Base that never answers a robots.txt request,
// whatever its context says, holds requests for a little more than
// FetchTimeout; they are then refused (no copy stands in).
func TestBaseIgnoresContext(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.FetchTimeout = 40 * time.Millisecond
		tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
			<-release
			return nil, errors.New("released")
		})
	})
	done := make(chan *robotsguard.DisallowedError, 1)
	go func() {
		done <- h.refused("http://example.com/page", robotsguard.ReasonUnreachable)
	}()
	select {
	case d := <-done:
		var fe *robotsguard.FetchError
		if !errors.As(d.Err, &fe) {
			t.Errorf("refusal %v: want a FetchError", d)
		}
	case <-time.After(time.Minute):
		t.Fatal("a Base that ignores its context held the request for a minute")
	}
}
