package policy

import (
	"fmt"
	"strconv"
)

// A Rule is an Allow or Disallow line of a robots.txt.
type Rule struct {
	Allow   bool
	Pattern string // normalised for the dialect; see the package documentation
	Line    int
}

// String returns the rule as a robots.txt line, e.g. "Disallow: /private/".
func (r Rule) String() string {
	if r.Allow {
		return "Allow: " + r.Pattern
	}
	return "Disallow: " + r.Pattern
}

// Basis tells why a Decision came out as it did.
type Basis uint8

const (
	// BasisRule: a rule matched; Decision.Rule is the one that decided
	// (the longest match, an Allow winning a tie).
	BasisRule Basis = iota + 1
	// BasisNoMatch: the agent's group has no rule that matches the URL,
	// so it is allowed.
	BasisNoMatch
	// BasisNoGroup: no group names the agent and there is no "*" group,
	// so no rule applies and the URL is allowed.
	BasisNoGroup
	// BasisRobotsTxt: the URL is /robots.txt, which RFC 9309 §2.2.2
	// always allows.
	BasisRobotsTxt
)

var basisNames = [...]string{
	BasisRule:      "rule",
	BasisNoMatch:   "no rule matches",
	BasisNoGroup:   "no group applies",
	BasisRobotsTxt: "robots.txt is always allowed",
}

func (b Basis) String() string {
	if int(b) < len(basisNames) && basisNames[b] != "" {
		return basisNames[b]
	}
	return "Basis(" + strconv.Itoa(int(b)) + ")"
}

// A Decision is the verdict on one URL for one agent, with what decided it.
type Decision struct {
	// Allowed is the verdict, in RFC 9309's words: a crawler is allowed
	// or disallowed to access a URL (its Allow and Disallow rules). The
	// other packages' verdicts keep their protocols' words:
	// acap.Decision.Permitted (ACAP 1.1 permits or prohibits a usage),
	// and usage.Decision.Verdict, three-valued, as the signals it weighs
	// may say nothing of a use.
	Allowed bool
	Basis   Basis
	// Rule is the rule that decided, when Basis is BasisRule.
	Rule Rule
	// GroupAgent names the group followed: the agent's product token
	// (lower-case; under Koster1996, the record's user-agent value), "*"
	// for the "*" group, or "" when no group applies. It is Group.Agent
	// of the group followed, not necessarily the agent that asked.
	GroupAgent string
	// GroupLine is the line of the first user-agent line of the group
	// followed, or 0 when no group applies.
	GroupLine int
}

// String explains the decision in one line, for logs and error messages:
//
//	disallowed by "Disallow: /private/" (line 7, group "*" at line 3)
func (d Decision) String() string {
	verdict := "disallowed"
	if d.Allowed {
		verdict = "allowed"
	}
	switch d.Basis {
	case BasisRule:
		return fmt.Sprintf("%s by %q (line %d, group %q at line %d)", verdict, d.Rule.String(), d.Rule.Line, d.GroupAgent, d.GroupLine)
	case BasisNoMatch:
		return fmt.Sprintf("%s: no rule of group %q (line %d) matches", verdict, d.GroupAgent, d.GroupLine)
	}
	return verdict + ": " + d.Basis.String()
}
