package robotscolly

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
)

// refusal is the transient refusal of a request to origin o (its robots.txt
// unreachable) after the failed fetch whose back-off ends at notBefore.
func refusal(o string, notBefore time.Time) *robotsguard.DisallowedError {
	return &robotsguard.DisallowedError{Reason: robotsguard.ReasonUnreachable, URL: o + "/page", RobotsURL: o + "/robots.txt", NotBefore: notBefore}
}

// TestFailingGivenUpMakeRoom: the origins whose refusals went to next
// (past TransientRetries) do not hold their place for good: a crawl that
// met maxFailing dead sites still waits for the next site that is down.
// Origins still waited for keep theirs.
func TestFailingGivenUpMakeRoom(t *testing.T) {
	var f failing
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxFailing {
		o := "http://dead" + strconv.Itoa(i) + ".test"
		for fetch := range TransientRetries + 1 {
			if wait := f.refused(refusal(o, start.Add(time.Duration(fetch+1)*time.Minute))); wait != (fetch < TransientRetries) {
				t.Fatalf("%s, failed fetch %d: waits %v", o, fetch+1, wait)
			}
		}
	}
	if !f.refused(refusal("http://down.test", start.Add(time.Minute))) {
		t.Errorf("after %d origins given up, a new origin's refusal goes to next at once; want it to wait", maxFailing)
	}
	if n := len(f.m); n > maxFailing {
		t.Errorf("%d origins counted, want at most %d", n, maxFailing)
	}

	var g failing
	for i := range maxFailing {
		if !g.refused(refusal("http://o"+strconv.Itoa(i)+".test", start.Add(time.Minute))) {
			t.Fatalf("origin %d's first refusal goes to next", i)
		}
	}
	if g.refused(refusal("http://new.test", start.Add(time.Minute))) {
		t.Errorf("with %d origins waited for, a new one is counted too; want at most %d", maxFailing, maxFailing)
	}
	for fetch := 2; fetch <= TransientRetries; fetch++ {
		if !g.refused(refusal("http://o0.test", start.Add(time.Duration(fetch)*time.Minute))) {
			t.Fatalf("o0.test's failed fetch %d goes to next: its count was dropped", fetch)
		}
	}
	if g.refused(refusal("http://o0.test", start.Add(time.Hour))) {
		t.Errorf("o0.test waits past %d failed fetches", TransientRetries)
	}
}

// TestFailingOriginSpellings: a request decided by its origin's rules
// forgets the failures counted for refusals of that origin however either
// spelled it (a default port, a trailing dot, upper case, an IPv6 form, as
// in a redirect's Location), and a request for another origin at the same
// address (its Host header) forgets none of them.
func TestFailingOriginSpellings(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ refused, robots, decided, host string }{
		{"http://a.test:80/p", "http://a.test/robots.txt", "http://a.test/q", ""},
		{"http://a.test/p", "http://a.test/robots.txt", "http://A.test:80/q", ""},
		{"https://a.test:443/p", "https://a.test/robots.txt", "https://a.test./q", ""},
		{"http://[0:0:0:0:0:0:0:1]:8080/p", "http://[::1]:8080/robots.txt", "http://[::1]:8080/q", ""},
		{"http://10.0.0.1/p", "http://a.test/robots.txt", "http://10.0.0.1:80/q", "A.test"},
	} {
		var f failing
		for fetch := range TransientRetries + 1 {
			d := refusal("", start.Add(time.Duration(fetch+1)*time.Minute))
			d.URL, d.RobotsURL = c.refused, c.robots
			f.refused(d)
		}
		req := httptest.NewRequest("GET", c.decided, nil)
		req.Host = c.host
		f.read(req)
		if len(f.m) != 0 {
			t.Errorf("refused %s (%s), then decided %s (Host %q): the failures stay counted", c.refused, c.robots, c.decided, c.host)
		}
	}

	var f failing
	for fetch := range TransientRetries {
		d := refusal("", start.Add(time.Duration(fetch+1)*time.Minute))
		d.URL, d.RobotsURL = "http://10.0.0.1/p", "http://a.test/robots.txt"
		f.refused(d)
	}
	req := httptest.NewRequest("GET", "http://10.0.0.1/q", nil)
	req.Host = "b.test"
	f.read(req)
	d := refusal("", start.Add(time.Hour))
	d.URL, d.RobotsURL = "http://10.0.0.1/p", "http://a.test/robots.txt"
	if f.refused(d) {
		t.Errorf("a.test waits past %d failed fetches: a request for b.test at its address forgot them", TransientRetries)
	}
}

// TestFailingReadAllocs: while origins are counted, a request to another
// origin, its host written plainly, allocates nothing to find out.
func TestFailingReadAllocs(t *testing.T) {
	var f failing
	f.refused(refusal("http://down.test", time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)))
	req := httptest.NewRequest("GET", "http://up.test/q", nil)
	if n := testing.AllocsPerRun(100, func() { f.read(req) }); n != 0 {
		t.Errorf("read of another origin: %v allocations, want 0", n)
	}
	if len(f.m) != 1 {
		t.Errorf("%d origins counted, want down.test's", len(f.m))
	}
}
