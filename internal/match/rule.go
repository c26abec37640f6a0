package match

import (
	"bytes"
	"strings"
)

// span locates a string in a text (Set.Text, or a Matcher's own).
type span struct{ off, n uint32 }

// A Rule is an Allow or Disallow rule as the matcher reads it: where its
// pattern is in Set.Text, whether it allows, how its pattern matches, and
// its second byte. It holds no pointer: package policy keeps the rules of
// a file in an allocation the garbage collector does not scan.
type Rule struct {
	pattern span // normalised for the dialect
	allow   bool
	kind    kind
	// second is the pattern's second byte when its first two bytes are
	// literal (neither is '*'), else 0: a path whose second byte differs
	// does not match it (MatchRun and Plan test this without reading the
	// text).
	second byte
}

// NewRule returns the rule whose pattern p, normalised for the dialect,
// is at offset off of Set.Text, in a dialect with or without wildcards.
func NewRule(off uint32, p []byte, allow, wildcards bool) Rule {
	rl := Rule{pattern: span{off, uint32(len(p))}, allow: allow, kind: kindOf(p, wildcards)}
	if len(p) > 1 && p[0] != '*' && p[1] != '*' {
		rl.second = p[1]
	}
	return rl
}

// Allow reports whether the rule is an Allow.
func (rl *Rule) Allow() bool { return rl.allow }

// Pattern returns the rule's pattern, a part of text, the Set.Text of the
// rule.
func (rl *Rule) Pattern(text string) string {
	return text[rl.pattern.off : rl.pattern.off+rl.pattern.n]
}

// A kind is how a rule's pattern matches, as the matcher files it.
type kind uint8

const (
	kindEmpty      kind = iota // matches nothing
	kindPrefix                 // a literal, a prefix of the paths it matches
	kindExact                  // a literal and '$': the path itself
	kindPrefixStar             // a literal and only '*'s (and '$'): a prefix rule of the literal
	kindWild                   // a literal after a '*'
)

// kindOf returns the kind of the rule pattern p, in a dialect with or
// without wildcards.
func kindOf(p []byte, wildcards bool) kind {
	switch {
	case len(p) == 0:
		return kindEmpty
	case !wildcards:
		return kindPrefix
	}
	body, anchored := p, p[len(p)-1] == '$'
	if anchored {
		body = p[:len(p)-1]
	}
	star := bytes.IndexByte(body, '*')
	switch {
	case star < 0 && anchored:
		return kindExact
	case star < 0:
		return kindPrefix
	case len(bytes.Trim(body[star:], "*")) == 0:
		return kindPrefixStar
	}
	return kindWild
}

// Options are what a dialect's rules and paths need of the matcher.
type Options struct {
	// Wildcards: '*' matches any sequence of bytes and a final '$' the
	// end of the path. Otherwise every pattern is a plain prefix.
	Wildcards bool
	// FirstMatch: the first rule in file order that matches decides.
	// Otherwise the longest pattern that matches decides, an Allow
	// winning a tie.
	FirstMatch bool
	// QueryVariants: a pattern also matches the paths where the query
	// delimiters it writes percent-encoded appear plain (see
	// queryVariants), as canonical paths decode them.
	QueryVariants bool
	// IndexHTML: an Allow for "/d/index.html" (or "/d/index.htm...")
	// also allows "/d/", as if "/d/$" were written.
	IndexHTML bool
	// RobotsTxtAllowed: /robots.txt is always allowed; no rule decides
	// it. The caller tests it (Plan.RobotsTxtAllowed, Group.Match).
	RobotsTxtAllowed bool
}

// RFC9309 returns the Options of RFC 9309, under which package policy's
// RFC9309 dialect reads rules, and so package acap its conventional
// records: wildcards, the longest match, query variants of patterns in
// the canonical form, and /robots.txt always allowed.
func RFC9309() Options {
	return Options{Wildcards: true, QueryVariants: true, RobotsTxtAllowed: true}
}

// A Set is the rules of a file: every rule, in file order (its index in
// Rules ranks it among equals), the text their patterns are spans of,
// and the Options of the dialect that reads them.
type Set struct {
	Text  string
	Rules []Rule
	Opts  Options
}

// A Run is the rules of one group of a file: Set.Rules[Lo:Hi].
type Run struct{ Lo, Hi uint32 }

// Ref is a rule as the matcher ranks it, packed so that the better of
// two rules is the greater: from the high bits down, its priority plus one
// (the octets of the pattern, wildcards and anchor included; under
// FirstMatch, earlier rules higher), whether it allows, and its index in
// Set.Rules (file order) complemented, the earlier line first. The zero
// Ref, NoRule, stands for no rule and loses to every rule.
type Ref uint64

// NoRule is the Ref of no rule: no rule matches.
const NoRule Ref = 0

// maxRuleIdx bounds the index of a rule in a Ref; policy's Parse keeps
// far fewer.
const maxRuleIdx = 1<<31 - 1

func makeRef(prio, idx int32, allow bool) Ref {
	r := Ref(uint32(prio)+1)<<32 | Ref(maxRuleIdx-uint32(idx))
	if allow {
		r |= 1 << 31
	}
	return r
}

// Idx returns the index of the rule in Set.Rules, or -1 for NoRule.
func (a Ref) Idx() int32 {
	if a == NoRule {
		return -1
	}
	return int32(maxRuleIdx - uint32(a&maxRuleIdx))
}

// Allow reports whether the rule allows; false for NoRule.
func (a Ref) Allow() bool { return a&(1<<31) != 0 }

// beats reports whether a decides over b: the longer pattern wins, Allow
// wins a tie, and of two equal rules the earlier line is reported.
func (a Ref) beats(b Ref) bool { return a > b }

func compareRank(a, b Ref) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// FlatMax is the number of rules up to which a group is matched by trying
// each rule as written, best rank first wins, without building anything:
// a small group costs no memory beyond its parsed rules. (Groups whose
// rules need variants, see Compile, are compiled whatever their size.)
const FlatMax = 24

// Flat reports whether the rules of s in runs may be matched rule by rule
// (through a Plan, or MatchRun), rather than through a Matcher: there are
// at most FlatMax of them, and none needs a variant that Compile would
// add.
func Flat(s Set, runs []Run) bool {
	n := 0
	for _, run := range runs {
		n += int(run.Hi - run.Lo)
	}
	if n > FlatMax {
		return false
	}
	opts := s.Opts
	if !opts.Wildcards {
		return true
	}
	for _, run := range runs {
		for j := run.Lo; j < run.Hi; j++ {
			rl := &s.Rules[j]
			if rl.kind == kindEmpty {
				continue
			}
			// Only a literal after a '*' can have query variants.
			if opts.QueryVariants && rl.kind == kindWild {
				p := strings.TrimSuffix(rl.Pattern(s.Text), "$")
				if vs, ok := queryVariants(p); len(vs) > 0 || !ok && !rl.allow {
					return false
				}
			}
			if opts.IndexHTML && rl.allow {
				if _, ok := indexHTMLDir(rl.Pattern(s.Text)); ok {
					return false
				}
			}
		}
	}
	return true
}

// MatchRun returns the better of best and the rule of rules that decides
// path, trying each rule that would beat the best match so far. rules are
// Set.Rules[lo:] of a Set of nrules rules, whose patterns are in text; a
// group of several runs is matched by calling MatchRun on each in turn.
func MatchRun(rules []Rule, lo uint32, text string, firstMatch bool, nrules uint32, path string, best Ref) Ref {
	// A rule whose first two bytes are literal (or one and the anchor)
	// cannot match a path whose second byte differs: a cheap test that
	// rules out most rules without reading their patterns. A path shorter
	// than two bytes can only match such a rule when its second byte is
	// the anchor ("/$").
	second := byte('$')
	if len(path) > 1 {
		second = path[1]
	}
	for k := range rules {
		rl := &rules[k]
		if rl.second != second && rl.second != 0 || rl.kind == kindEmpty {
			continue
		}
		ref := rl.rank(int32(lo)+int32(k), firstMatch, nrules)
		if ref.beats(best) && rl.matches(text[rl.pattern.off:rl.pattern.off+rl.pattern.n], path) {
			best = ref
		}
	}
	return best
}

// rank returns the Ref of rl, Set.Rules[j] of a Set of nrules rules.
func (rl *Rule) rank(j int32, firstMatch bool, nrules uint32) Ref {
	prio := int32(rl.pattern.n)
	if firstMatch {
		prio = int32(nrules) - j
	}
	return makeRef(prio, j, rl.allow)
}

// matches reports whether rl, a rule of a group matched rule by rule and
// not empty, whose pattern is p, matches path. The common kind is tested
// here, where the call inlines; the others in matchesKind.
func (rl *Rule) matches(p, path string) bool {
	if rl.kind == kindPrefix {
		return len(path) >= len(p) && path[:len(p)] == p
	}
	return rl.matchesKind(p, path)
}

// matchesKind is matches for a rule that is not kindPrefix.
func (rl *Rule) matchesKind(p, path string) bool {
	switch rl.kind {
	case kindExact:
		return path == p[:len(p)-1]
	case kindPrefixStar:
		return strings.HasPrefix(path, p[:strings.IndexByte(p, '*')])
	}
	return matchesWritten(p, path)
}
