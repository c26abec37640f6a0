package robotsguard_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
)

// TestCollyDefaultUserAgent: colly's default User-Agent names colly (RFC
// 9110: products separated by whitespace), so a site's colly group
// applies, not "*".
func TestCollyDefaultUserAgent(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "colly - https://github.com/gocolly/colly" })
	s := h.origin("User-agent: colly\nDisallow: /b\n\nUser-agent: *\nDisallow: /a\n")
	if d := h.refused(s.URL+"/b", robotsguard.ReasonRule); d.Agent != "colly" || d.Decision.GroupAgent != "colly" {
		t.Errorf("refused for agent %q by group %q, want colly's", d.Agent, d.Decision.GroupAgent)
	}
	h.allowed(s.URL + "/a")
}

// TestRefuseAboveMaxDelay: a Crawl-delay or Request-rate above MaxDelay is
// capped by default; with RefuseAboveMaxDelay the origin is refused, with
// a reason of its own.
func TestRefuseAboveMaxDelay(t *testing.T) {
	for _, tc := range []struct {
		robots string
		want   time.Duration
	}{
		{"User-agent: *\nCrawl-delay: 3600\n", time.Hour},
		{"User-agent: *\nRequest-rate: 1/2h\n", 2 * time.Hour},
	} {
		h := newHarness(t, func(tr *robotsguard.Transport) { tr.RefuseAboveMaxDelay = true })
		s := h.origin(tc.robots)
		d := h.refused(s.URL+"/page", robotsguard.ReasonDelay)
		if d.Delay != tc.want {
			t.Errorf("%q: Delay %v, want %v", tc.robots, d.Delay, tc.want)
		}
		if want := fmt.Sprintf("asks for %v between requests, more than MaxDelay allows", tc.want); !strings.Contains(d.Error(), want) {
			t.Errorf("message %q, want it to say %q", d.Error(), want)
		}
	}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.RefuseAboveMaxDelay = true })
	s := h.origin("User-agent: *\nCrawl-delay: 20\n")
	h.allowed(s.URL + "/page") // within the default MaxDelay of 30 s
}
