package robotsguard_test

// What retry_test.go, which is to move to a module of its own, asks of the
// helpers it was written against: a site whose pages the test sets once it
// has started, now a robotstest.Origin. Delete this file with it.

import (
	"io"
	"net/http"
	"testing"

	"github.com/robotsguard/robotsguard/robotstest"
)

// site is an Origin that answers every path but /robots.txt with pages,
// when set, and "ok" otherwise.
type site struct {
	*robotstest.Origin
	pages http.HandlerFunc
}

// newSite starts a site that serves robots as its robots.txt. Its clock
// reads a harness's time, and its Date headers do not age what a harness
// fetches from it.
func newSite(t *testing.T, robots string) *site {
	t.Helper()
	s := &site{}
	s.Origin = newOrigin(t, newAutoClock(), robots, func(w http.ResponseWriter, r *http.Request) {
		if s.pages != nil {
			s.pages(w, r)
			return
		}
		io.WriteString(w, "ok")
	})
	return s
}

// robotsTxt is the text of a robots.txt.
func robotsTxt(text string) string { return text }

// count returns how many requests for uri the site received.
func (s *site) count(uri string) int { return count(s.Origin, uri) }
