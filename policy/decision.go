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

// Reason tells why a Decision came out as it did.
type Reason uint8

const (
	// ReasonRule: a rule matched; Decision.Rule is the one that decided
	// (the longest match, an Allow winning a tie).
	ReasonRule Reason = iota + 1
	// ReasonNoMatch: the agent's group has no rule that matches the URL,
	// so it is allowed.
	ReasonNoMatch
	// ReasonNoGroup: no group names the agent and there is no "*" group,
	// so no rule applies and the URL is allowed.
	ReasonNoGroup
	// ReasonRobotsTxt: the URL is /robots.txt, which RFC 9309 §2.2.2
	// always allows.
	ReasonRobotsTxt
)

var reasonNames = [...]string{
	ReasonRule:      "rule",
	ReasonNoMatch:   "no rule matches",
	ReasonNoGroup:   "no group applies",
	ReasonRobotsTxt: "robots.txt is always allowed",
}

func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// A Decision is the verdict on one URL for one agent, with what decided it.
type Decision struct {
	Allowed bool
	Reason  Reason
	// Rule is the rule that decided, when Reason is ReasonRule.
	Rule Rule
	// Agent is the group followed: the agent's product token (lower-case),
	// "*" for the "*" group, or "" when no group applies.
	Agent string
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
	switch d.Reason {
	case ReasonRule:
		return fmt.Sprintf("%s by %q (line %d, group %q at line %d)", verdict, d.Rule.String(), d.Rule.Line, d.Agent, d.GroupLine)
	case ReasonNoMatch:
		return fmt.Sprintf("%s: no rule of group %q (line %d) matches", verdict, d.Agent, d.GroupLine)
	}
	return verdict + ": " + d.Reason.String()
}
