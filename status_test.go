package robotsguard_test

import (
	"testing"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

func TestStatusCodes(t *testing.T) {
	tests := []struct {
		name     string
		robots   string           // the file
		answer   robotstest.Fault // how robots.txt is answered
		policy   robotsguard.StatusPolicy
		refused  robotsguard.Reason // 0: allowed
		requests int                // robots.txt requests the origin sees
	}{
		{"200 rules", "User-agent: *\nDisallow: /page\n", robotstest.Pass(), nil, robotsguard.ReasonRule, 1},
		{"200 HTML", "<html><body>Not here</body></html>", robotstest.Pass(), nil, 0, 1},
		{"204 empty", "", robotstest.Status(204), nil, 0, 1},
		{"404 unavailable", "", robotstest.Status(404), nil, 0, 1},
		{"410 unavailable", "", robotstest.Status(410), nil, 0, 1},
		{"401 unavailable", "", robotstest.Status(401), nil, 0, 1},
		{"403 unavailable", "", robotstest.Status(403), nil, 0, 1},
		{"403 under the 1996 draft", "", robotstest.Status(403), robotsguard.Koster1996StatusPolicy, robotsguard.ReasonStatus, 1},
		{"401 under the 1996 draft", "", robotstest.Status(401), robotsguard.Koster1996StatusPolicy, robotsguard.ReasonStatus, 1},
		{"404 under the 1996 draft", "", robotstest.Status(404), robotsguard.Koster1996StatusPolicy, 0, 1},
		{"429 unreachable", "", robotstest.Status(429), nil, robotsguard.ReasonUnreachable, 3},
		{"500 unreachable, retried", "", robotstest.Status(500), nil, robotsguard.ReasonUnreachable, 3},
		{"503 unreachable, retried", "", robotstest.Status(503), nil, robotsguard.ReasonUnreachable, 3},
		{"503 with a long Retry-After: no retry", "", robotstest.Status(503, "Retry-After: 3600"), nil, robotsguard.ReasonUnreachable, 1},
		{"501 unreachable, not retried", "", robotstest.Status(501), nil, robotsguard.ReasonUnreachable, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(tr *robotsguard.Transport) { tr.StatusPolicy = tc.policy })
			s := h.origin(tc.robots)
			s.Fault("/robots.txt", tc.answer)
			if tc.refused == 0 {
				h.allowed(s.URL + "/page")
			} else {
				h.refused(s.URL+"/page", tc.refused)
			}
			if got := count(s, "/robots.txt"); got != tc.requests {
				t.Errorf("robots.txt requested %d times, want %d", got, tc.requests)
			}
			if tc.refused == 0 && count(s, "/page") != 1 || tc.refused != 0 && count(s, "/page") != 0 {
				t.Errorf("origin saw %q", seen(s))
			}
		})
	}
}
