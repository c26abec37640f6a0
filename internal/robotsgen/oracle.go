package robotsgen

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/policy"
)

// A Served is one answer an origin gave to a robots.txt request, as the
// invariants' origins record them.
type Served struct {
	At    time.Time
	Rules *policy.Robots // nil: no file (a 404), everything allowed
	Fail  bool           // a 5xx: no answer, the rules a crawler holds stay
}

// Allows reports whether a file of log (the answers of one origin, in
// order) that TestBot may hold at now allows u, as received: one that was
// current (the last served) at some time in the window before now, or
// before a failure served in that window, as a crawler whose revalidation
// fails keeps its copy (RFC 9309 §2.4), and so on back through the
// failures before that one. Nothing served allows nothing.
func Allows(log []Served, u *url.URL, now time.Time, window time.Duration) bool {
	start := now.Add(-window)
	for i := len(log) - 1; i >= 0; i-- {
		if s := log[i]; s.Fail && !s.At.Before(start) {
			if w := s.At.Add(-window); w.Before(start) {
				start = w
			}
		}
	}
	allows := func(s Served) bool { return s.Rules == nil || s.Rules.Group("TestBot").DecideURL(u).Allowed }
	before := -1 // the last file served before the window
	for i, s := range log {
		switch {
		case s.Fail:
		case s.At.Before(start):
			before = i
		case allows(s):
			return true
		}
	}
	return before >= 0 && allows(log[before])
}

// Describe lists the last answers of log before now, each with how long
// before now it was served and whether it allows u, for a failure's
// message.
func Describe(log []Served, u *url.URL, now time.Time) string {
	var b strings.Builder
	for _, s := range log[max(0, len(log)-12):] {
		what := "a file that forbids it"
		switch {
		case s.Fail:
			what = "a 5xx"
		case s.Rules == nil:
			what = "a 404"
		case s.Rules.Group("TestBot").DecideURL(u).Allowed:
			what = "a file that allows it"
		}
		fmt.Fprintf(&b, "\t%v before: %s\n", now.Sub(s.At).Round(time.Millisecond), what)
	}
	return b.String()
}
