package acap_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/acap"
)

// want is one query on a file and the decision it must get.
type want struct {
	agent, url string
	usage      acap.Usage
	purpose    string
	permitted  bool
	line       int        // line of the deciding field; 0 when none applies
	quals      string     // the decision's qualifiers, space-separated
	reason     acap.Basis // zero: BasisField when line > 0, else BasisNone
}

func (w want) query() acap.Query {
	return acap.Query{Agent: w.agent, URL: w.url, Usage: w.usage, Purpose: w.purpose}
}

// check asks every query of ws of p and compares the decisions.
func check(t *testing.T, p *acap.Policy, ws []want) {
	t.Helper()
	for _, w := range ws {
		checkDecision(t, w, p.Decide(w.query()))
	}
}

func checkDecision(t *testing.T, w want, d acap.Decision) {
	t.Helper()
	reason := w.reason
	if reason == 0 {
		reason = acap.BasisNone
		if w.line > 0 {
			reason = acap.BasisField
		}
	}
	var quals []string
	for _, q := range d.Qualifiers {
		quals = append(quals, q.String())
	}
	line := 0
	if d.Basis == acap.BasisField {
		line = d.Field.Line
	}
	if d.Permitted != w.permitted || d.Basis != reason || line != w.line || strings.Join(quals, " ") != w.quals {
		t.Errorf("%s %s for %s (purpose %q): got %v\n\twant permitted=%v reason=%v line=%d qualifiers=%q",
			w.agent, w.url, w.usage, w.purpose, d, w.permitted, reason, w.line, w.quals)
	}
}

// problemLines returns the lines Problems reports, in order.
func problemLines(p *acap.Policy) []int {
	var lines []int
	for _, pr := range p.Problems() {
		lines = append(lines, pr.Line)
	}
	return lines
}

func checkProblems(t *testing.T, p *acap.Policy, lines ...int) {
	t.Helper()
	if got := problemLines(p); !slices.Equal(got, lines) {
		t.Errorf("problems at lines %v, want %v: %v", got, lines, p.Problems())
	}
}

// file joins lines into a robots.txt body; line i of the result is
// lines[i-1].
func file(lines ...string) []byte {
	return []byte(strings.Join(lines, "\n") + "\n")
}

// replaceLine returns s with its line n (1-based) replaced by text.
func replaceLine(s string, n int, text string) string {
	lines := strings.Split(s, "\n")
	lines[n-1] = text
	return strings.Join(lines, "\n")
}
