package main

import "testing"

// The robots.txt line of check: the status served, or that none was,
// and the error without a second "robotsguard:".
func TestRobotsSummaryDescribe(t *testing.T) {
	for _, tc := range []struct {
		r    robotsSummary
		want string
	}{
		{robotsSummary{Source: "robots.txt"}, "robots.txt"},
		{robotsSummary{Source: "https://a.example/robots.txt", Status: 200, Access: "use rules"},
			"https://a.example/robots.txt (status 200: use rules)"},
		{robotsSummary{Source: "https://a.example/robots.txt", Status: 503, Access: "unreachable",
			Error: "robotsguard: fetching https://a.example/robots.txt: status 503"},
			"https://a.example/robots.txt (status 503: unreachable): fetching https://a.example/robots.txt: status 503"},
		{robotsSummary{Source: "https://a.example/robots.txt", Access: "unreachable",
			Error: `robotsguard: fetching https://a.example/robots.txt: Get "https://a.example/robots.txt": EOF`},
			`https://a.example/robots.txt (no response: unreachable): fetching https://a.example/robots.txt: Get "https://a.example/robots.txt": EOF`},
	} {
		if got := tc.r.describe(); got != tc.want {
			t.Errorf("describe() = %q, want %q", got, tc.want)
		}
	}
}
