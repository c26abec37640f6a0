package robotstest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
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

// A plain http.Client over a Transport of one's own sends pages with the
// Transport's UserAgent: the Origin, whose robots.txt lets FooBot alone
// in, sees FooBot on every request. (When the Transport sent a request's
// own User-Agent, net/http's Go-http-client/1.1 for one without, the "*"
// group shut every page out and the Origin failed the test.)
func TestPlainClientSendsUserAgent(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: FooBot\nAllow: /\n\nUser-agent: *\nDisallow: /\n")
	c := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0"}}
	resp, err := c.Get(o.URL + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /page: %s", resp.Status)
	}
	if got, want := paths(o.Requests()), "GET /robots.txt, GET /page"; got != want {
		t.Errorf("requests = %s, want %s", got, want)
	}
	for _, r := range o.Requests() {
		if r.UserAgent != "FooBot/1.0" {
			t.Errorf("%s sent as %q, want the Transport's UserAgent", r.URL, r.UserAgent)
		}
	}
}

// A Transport of one's own given the Origin's Clock paces on it: its
// pauses (a second between requests, by default) move the clock, and
// take no real time.
func TestOwnTransportOnOriginClock(t *testing.T) {
	o := robotstest.NewOrigin(t, "")
	c := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0", Clock: o.Clock}}
	for _, path := range []string{"/a", "/b", "/c"} {
		if _, _, err := get(t, c, o.URL+path, ""); err != nil {
			t.Fatal(err)
		}
	}
	rs := o.Requests()
	if got, want := paths(rs), "GET /robots.txt, GET /a, GET /b, GET /c"; got != want {
		t.Fatalf("requests = %s, want %s", got, want)
	}
	if d := rs[3].Time.Sub(rs[1].Time); d < 2*time.Second {
		t.Errorf("/c came %v after /a by the Origin's clock, want two pauses of a second", d)
	}
}
