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
// order) that TestBot may hold at now allows u, as received: one served in
// the window before now, the last one served before that window, or one
// that a crawler may have kept over a failure (a 5xx), whenever that was.
// A crawler whose revalidation fails keeps its copy (RFC 9309 §2.4) until
// a later fetch succeeds, which may be long after (the fetch backs off):
// the copies it may hold then, those served in the window before the
// failure and the last one served before it, stay allowed for good.
// Nothing served allows nothing.
func Allows(log []Served, u *url.URL, now time.Time, window time.Duration) bool {
	allows := func(s Served) bool { return s.Rules == nil || s.Rules.Group("TestBot").DecideURL(u).Allowed }
	kept := make([]bool, len(log)) // kept over a failure
	last := -1                     // the last file served so far
	for i, s := range log {
		if !s.Fail {
			last = i
			continue
		}
		for j := range i {
			if !log[j].Fail && (j == last || !log[j].At.Before(s.At.Add(-window))) {
				kept[j] = true
			}
		}
	}
	start := now.Add(-window)
	before := -1 // the last file served before the window
	for i, s := range log {
		switch {
		case s.Fail:
		case kept[i] || !s.At.Before(start):
			if allows(s) {
				return true
			}
		default:
			before = i
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
