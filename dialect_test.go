package robotsguard_test

import (
	"slices"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/robotstest"
)

// TestKoster1996Transport: under the 1996 draft's dialect, 401 and 403
// disallow everything, a robots.txt without cache directives is kept for 7
// days, and the first matching rule decides.
func TestKoster1996Transport(t *testing.T) {
	koster := func(tr *robotsguard.Transport) { tr.Parser.Dialect = policy.Koster1996 }
	h := newHarness(t, koster)
	forbidden := h.origin("")
	forbidden.Fault("/robots.txt", robotstest.Status(403))
	h.refused(forbidden.URL+"/page", robotsguard.ReasonStatus)

	h2 := newHarness(t, koster)
	s := h2.origin("User-agent: *\nDisallow: /tmp\nAllow: /tmp/ok.html\n")
	h2.refused(s.URL+"/tmp/ok.html", robotsguard.ReasonRule)
	if got := fetchesAt(h2, s, time.Hour, 6*24*time.Hour, 7*24*time.Hour+time.Second); !slices.Equal(got, []int{1, 1, 2}) {
		t.Errorf("robots.txt requests %v, want one per 7 days", got)
	}
}

// TestDialectTable: the dialect picks the Transport's status and cache
// defaults, and explicit settings win.
func TestDialectTable(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Parser.Dialect = policy.Google })
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Status(401))
	h.allowed(s.URL + "/page")
	h2 := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Parser.Dialect = policy.Koster1996
		tr.StatusPolicy = robotsguard.DefaultStatusPolicy
	})
	h2.allowed(s.URL + "/page")
}
