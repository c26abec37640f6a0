package robotstest_test

import (
	"net/http"
	"testing"

	"github.com/robotsguard/robotsguard/robotstest"
)

// The preset sends its agent, on requests that name none and on those
// that name another (as every Transport does); the Origin judges each by
// the header it got.
func TestClientUserAgent(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: OtherBot\nDisallow: /x\n")
	c := o.Client("FooBot/1.0")
	get(t, c, o.URL+"/x", "")
	get(t, c, o.URL+"/x", "OtherBot/2.0") // decided for FooBot, and sent as FooBot
	rs := o.Requests()
	if len(rs) != 3 || rs[0].UserAgent != "FooBot/1.0" || rs[1].UserAgent != "FooBot/1.0" || rs[2].UserAgent != "FooBot/1.0" {
		t.Fatalf("requests = %v", rs)
	}
	if ftb.Failed() {
		t.Errorf("failed by %v, want no failure", o.Disallowed())
	}
}

// Each Transport has its own cache, and shares the Origin's Clock.
func TestTransportPreset(t *testing.T) {
	o := robotstest.NewOrigin(t, "")
	a, b := o.Transport("FooBot/1.0"), o.Transport("FooBot/1.0")
	if a.Clock != o.Clock || a.UserAgent != "FooBot/1.0" || !a.NoPacing || a.RetryMax >= 0 {
		t.Errorf("Transport: Clock %p (Origin's %p), UserAgent %q, NoPacing %v, RetryMax %d", a.Clock, o.Clock, a.UserAgent, a.NoPacing, a.RetryMax)
	}
	for _, tr := range []http.RoundTripper{a, b} {
		get(t, &http.Client{Transport: tr}, o.URL+"/", "")
	}
	if n := o.RobotsFetches(); n != 2 {
		t.Errorf("%d robots.txt fetches, want one per Transport", n)
	}
	a.CloseIdleConnections()
}

func TestTransportBeforeStartPanics(t *testing.T) {
	o := robotstest.NewUnstartedOrigin(t, "")
	defer func() {
		if r := recover(); r == nil {
			t.Error("Transport before Start did not panic")
		}
	}()
	o.Transport("FooBot")
}
