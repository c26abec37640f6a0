package main

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
)

// agentGroups returns, for each product token the file names ("*"
// included), the rules of the groups that name it, as RFC 9309 merges
// them, and the tokens in file order.
func agentGroups(r *policy.Robots) (map[string][]policy.Rule, []string) {
	groups := map[string][]policy.Rule{}
	var order []string
	for _, rec := range r.Records() {
		seen := map[string]bool{}
		for _, a := range rec.Agents {
			if seen[a.Token] {
				continue
			}
			seen[a.Token] = true
			if _, ok := groups[a.Token]; !ok {
				order = append(order, a.Token)
			}
			groups[a.Token] = append(groups[a.Token], rec.Rules...)
		}
	}
	return groups, order
}

// matchKey is a pattern without its trailing '*'s, which match nothing
// more: two patterns with the same key match the same URLs.
func matchKey(p string) string {
	if strings.HasSuffix(p, "$") {
		return p
	}
	return strings.TrimRight(p, "*")
}

// wins reports whether s decides over r on a URL both match (RFC 9309
// §2.2.2: the longer pattern; Allow on a tie; the earlier of equals).
func wins(s, r policy.Rule) bool {
	ls, lr := len(s.Pattern), len(r.Pattern)
	return ls > lr || ls == lr && (s.Allow && !r.Allow || s.Allow == r.Allow && s.Line < r.Line)
}

// maxWildcardPairs bounds the pattern matches deadRules spends on
// wildcard rules that may cover others.
const maxWildcardPairs = 2_000_000

// deadRules finds the rules that can never decide a URL, as RFC 9309
// reads the file: another rule of the agent's group matches every URL
// they match and wins over them. A rule whose winner has the other
// verdict is "shadowed" (the author's intent is lost); one whose winner
// has the same verdict is "redundant".
func deadRules(r *policy.Robots) []finding {
	groups, order := agentGroups(r)
	done := map[int]bool{}
	var fs []finding
	for _, tok := range order {
		if tok == "" {
			continue // no product token: no crawler follows the group
		}
		rules := groups[tok]
		byKey := map[string][]int{}
		var wild []int
		literals := 0
		for i, ru := range rules {
			if ru.Pattern == "" {
				continue
			}
			k := matchKey(ru.Pattern)
			byKey[k] = append(byKey[k], i)
			if strings.ContainsAny(k, "*$") {
				if !strings.HasSuffix(k, "$") {
					wild = append(wild, i)
				}
			} else {
				literals++
			}
		}
		useWild := len(wild)*literals <= maxWildcardPairs
		for i, ru := range rules {
			if ru.Pattern == "" || done[ru.Line] {
				continue
			}
			k := matchKey(ru.Pattern)
			best := -1
			consider := func(j int) {
				if j == i || rules[j].Line == ru.Line || !wins(rules[j], ru) {
					return
				}
				if best < 0 || rules[j].Allow != ru.Allow && rules[best].Allow == ru.Allow {
					best = j
				}
			}
			if !strings.ContainsAny(k, "*$") {
				// Literal: covered by literal prefixes (with enough
				// trailing '*'s to be as long) and by wildcards
				// that match it.
				for n := 1; n <= len(k); n++ {
					for _, j := range byKey[k[:n]] {
						consider(j)
					}
				}
				if useWild {
					for _, j := range wild {
						if policy.PatternMatches(matchKey(rules[j].Pattern), k) {
							consider(j)
						}
					}
				}
			} else {
				for _, j := range byKey[k] {
					consider(j)
				}
			}
			if best < 0 {
				continue
			}
			done[ru.Line] = true
			s := rules[best]
			group := "group " + fmt.Sprintf("%q", tok)
			if s.Allow != ru.Allow {
				fs = append(fs, finding{Line: ru.Line, Severity: sevWarning, Code: "shadowed",
					Message: fmt.Sprintf("%q never decides (%s): %q (line %d) matches every URL it matches and wins", ru.String(), group, s.String(), s.Line),
					Hint:    fmt.Sprintf("remove one of the two, or make line %d's pattern longer (RFC 9309: the longest match wins, Allow on a tie)", ru.Line)})
			} else {
				fs = append(fs, finding{Line: ru.Line, Severity: sevInfo, Code: "redundant",
					Message: fmt.Sprintf("%q never decides (%s): %q (line %d) matches every URL it matches, with the same verdict", ru.String(), group, s.String(), s.Line),
					Hint:    "remove it"})
			}
		}
	}
	return fs
}

// candidates returns request paths derived from a pattern: the pattern
// with each '*' as "x" and no final '$', and for a pattern ending in
// /index.html (or .htm) its directory.
func candidates(p string) []string {
	c := strings.ReplaceAll(strings.TrimSuffix(p, "$"), "*", "x")
	if c == "" || c == "/robots.txt" {
		return nil
	}
	if c[0] != '/' {
		c = "/" + c
	}
	out := []string{c}
	for _, idx := range []string{"/index.html", "/index.htm"} {
		if strings.HasSuffix(c, idx) {
			out = append(out, strings.TrimSuffix(c, idx[1:]))
		}
	}
	return out
}

// diffCandidates returns the candidates of a pattern and longer paths
// it or a variant of it would match, so that a change to an anchor or a
// wildcard changes a verdict: the literal prefix (up to the first '*'
// or '$') followed by "x", "/x" and "?q", and for a pattern ending in
// '$' the un-anchored form (wildcards filled with "x") followed by the
// same suffixes.
func diffCandidates(p string) []string {
	out := candidates(p)
	if len(out) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, c := range out {
		seen[c] = true
	}
	add := func(c string) {
		if c == "" || c == "/robots.txt" {
			return
		}
		if c[0] != '/' {
			c = "/" + c
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	prefix := p
	if i := strings.IndexAny(p, "*$"); i >= 0 {
		prefix = p[:i]
	}
	bases := []string{prefix}
	if strings.HasSuffix(p, "$") || strings.Contains(p, "*") {
		bases = append(bases, strings.ReplaceAll(strings.TrimSuffix(p, "$"), "*", "x"))
	}
	for _, b := range bases {
		for _, suf := range []string{"x", "/x", "?q"} {
			add(b + suf)
		}
	}
	return out
}

// examples returns the request paths derived from a rule, as a client
// would send them: from the pattern as written (as parsed, when the line
// has no colon), with '*' as "x", no final '$', and its path
// percent-encoded as net/url encodes a request path.
func examples(ru policy.Rule, lines []string) []string {
	p := ru.Pattern
	if strings.Contains(rawText(lines, ru.Line), ":") {
		p = valueOf(rawText(lines, ru.Line))
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range candidates(p) {
		c = clientForm(c)
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// clientForm returns the path p ("/a?b") as a client sends it: its path
// decoded and encoded again as net/url encodes a request path, its query
// as written.
func clientForm(p string) string {
	path, query, hasQuery := strings.Cut(p, "?")
	dp, err := url.PathUnescape(path)
	if err != nil {
		return p
	}
	out := (&url.URL{Path: dp}).EscapedPath()
	if hasQuery {
		out += "?" + query
	}
	return out
}

// maxDialectQueries bounds the decisions dialectDifferences makes.
const maxDialectQueries = 400_000

// dialectDifferences finds the lines where RFC 9309 and Google's
// reading decide a URL differently: for each agent and each rule of
// either reading, it decides URLs derived from the rule's pattern both
// ways.
func dialectDifferences(body []byte, lines []string, rfc *policy.Robots) []finding {
	goo := policy.Parser{Dialect: policy.Google}.Parse(body)
	type key struct{ tok, path string }
	asked := map[key]bool{}
	byLine := map[int]finding{}
	queries := 0
	for _, r := range []*policy.Robots{rfc, goo} {
		groups, order := agentGroups(r)
		for _, tok := range order {
			if tok == "" {
				continue // no product token: no crawler selects the group by it
			}
			agent := tok
			for _, ru := range groups[tok] {
				for _, c := range examples(ru, lines) {
					if asked[key{tok, c}] || queries >= maxDialectQueries {
						continue
					}
					asked[key{tok, c}] = true
					queries++
					d1, d2 := rfc.Group(agent).Decide(c), goo.Group(agent).Decide(c)
					if d1.Allowed == d2.Allowed {
						continue
					}
					line := ru.Line
					index := d2.Allowed && d2.Basis == policy.BasisRule && isIndexPattern(d2.Rule.Pattern)
					switch {
					case index:
						line = d2.Rule.Line
					case d1.Basis == policy.BasisRule && d1.Rule.Line == ru.Line,
						d2.Basis == policy.BasisRule && d2.Rule.Line == ru.Line:
					case d2.Basis == policy.BasisRule:
						line = d2.Rule.Line
					case d1.Basis == policy.BasisRule:
						line = d1.Rule.Line
					}
					if _, ok := byLine[line]; ok {
						continue
					}
					hint := "write the line so both readings agree: spell keys out, use a colon, percent-encode only what must be"
					switch {
					case strings.ContainsAny(valueOf(rawText(lines, line)), " \"<>\\^`{|}"):
						hint = "percent-encode what a URL cannot hold (a space as %20): Google's reading compares such characters as written, so the rule never matches a request"
					case strings.Contains(rawText(lines, line), "%"):
						hint = "write letters, digits and -._~ unencoded: Google compares percent-escapes as written"
					case index:
						hint = "Google's reading allows the directory of an allowed index.html; add a rule for the directory itself"
					}
					byLine[line] = finding{Line: line, Severity: sevWarning, Code: "dialect-difference",
						Message: fmt.Sprintf("RFC 9309 and Google decide %s differently for %s: RFC 9309 %s; Google %s", c, agentName(agent),
							explainShort(d1), explainShort(d2)),
						Hint: hint, Example: c}
				}
			}
		}
	}
	fs := make([]finding, 0, len(byLine))
	for _, f := range byLine {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Line < fs[j].Line })
	return fs
}

func agentName(tok string) string {
	if tok == "*" {
		return `any agent ("*")`
	}
	return tok
}

// explainShort says "allowed (…)" or "disallowed (…)" in a few words.
func explainShort(d policy.Decision) string {
	w := "allowed"
	if !d.Allowed {
		w = "disallowed"
	}
	switch d.Basis {
	case policy.BasisRule:
		return fmt.Sprintf("%s by %q (line %d)", w, d.Rule.String(), d.Rule.Line)
	case policy.BasisNoMatch:
		return w + " (no rule matches)"
	case policy.BasisNoGroup:
		return w + " (no group applies)"
	}
	return w
}

// valueOf returns the value of a "key: value" line.
func valueOf(line string) string {
	_, v, _ := strings.Cut(line, ":")
	return strings.TrimSpace(v)
}

// isIndexPattern reports whether p names an index.html (or .htm) file,
// which Google's reading also applies to its directory.
func isIndexPattern(p string) bool {
	p = strings.TrimSuffix(p, "$")
	return strings.HasSuffix(p, "/index.html") || strings.HasSuffix(p, "/index.htm")
}
