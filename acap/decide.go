package acap

import (
	"fmt"
	"slices"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
)

// A Query asks whether a crawler may use a resource for a usage.
type Query struct {
	// Agent is the crawler's name, or the whole User-Agent value it sends.
	// A record applies to it when one of the record's crawler names is,
	// ignoring case, a substring of Agent (section 2.3.1); the conventional
	// records are read for Agent's product token, as RFC 9309 says.
	Agent string
	// URL is the resource: an absolute URL or a path with an optional query.
	URL string
	// Usage is the usage asked about, e.g. Crawl or PresentSnippet.
	Usage Usage
	// Purpose is the usage purpose the crawler acts for (a name or URI,
	// section 2.3.3), or "" for none. Sub-records apply only to a query
	// whose Purpose their usage purpose patterns match.
	Purpose string
	// Honours reports whether the crawler can act as a qualifier requires.
	// A permission with a qualifier it cannot honour is read as a
	// prohibition of the same usage (section 2.4.3). Nil means the crawler
	// honours every qualifier, which Decision.Qualifiers lists.
	Honours func(Qualifier) bool
	// Interprets reports whether the crawler can act on a prohibition of a
	// usage. One it cannot act on is read as a prohibition of the basic
	// usage (present-snippet becomes present), and one of a basic or the
	// general usage as a prohibition of crawl (section 2.4.3). Nil means
	// every prohibition can be acted on.
	Interprets func(Usage) bool
}

// A Reason tells why a Decision came out as it did.
type Reason uint8

const (
	// ReasonField: one field, or several that agree, had the narrowest
	// scope among those that apply; Decision.Field is one of them.
	ReasonField Reason = iota + 1
	// ReasonNone: no field applies to the usage of the resource, so it is
	// permitted (section 2.4.3, NOTE).
	ReasonNone
	// ReasonConflict: a permission and a prohibition apply and which has
	// the narrower scope cannot be decided, so the usage is prohibited
	// (section 2.4.6). Decision.Conflict lists the fields.
	ReasonConflict
)

func (r Reason) String() string {
	switch r {
	case ReasonField:
		return "field"
	case ReasonNone:
		return "no field applies"
	case ReasonConflict:
		return "undecidable conflict"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// A Field is a permission or prohibition, as the decision applied it.
type Field struct {
	// Source is "" for the robots.txt itself, or the resource locator of
	// the ACAP-permissions-reference whose resource holds the field.
	Source string
	Line   int    // 1-based line in Source
	Text   string // the line as written, without its comment
	// Permission and Usage are what the field was applied as: after a
	// fallback of section 2.4.3 they differ from Text.
	Permission bool
	Usage      Usage
	// Pattern is the resource path pattern that matched, in canonical
	// lower-case form.
	Pattern string
	// Crawler is the record's crawler name that the agent matched, "*"
	// for a record addressed to any crawler, or the conventional group's
	// product token.
	Crawler string
	// Purpose is the usage purpose pattern that matched, for a field of a
	// sub-record.
	Purpose      string
	Conventional bool // a conventional Allow or Disallow line (section 2.10.2)
	FellBack     bool // read as a prohibition by the fallback of section 2.4.3
}

// String gives the field as written and where, e.g.
// `"ACAP-disallow-crawl: /private/" (line 12)`.
func (f Field) String() string {
	s := fmt.Sprintf("%q (line %d%s)", f.Text, f.Line, of(f.Source))
	if f.FellBack {
		s += fmt.Sprintf(" read as a prohibition of %s", f.Usage)
	}
	return s
}

// A Decision is the verdict on a Query, with what decided it.
type Decision struct {
	Permitted bool
	Reason    Reason
	// Field is the field with the narrowest scope, when Reason is
	// ReasonField.
	Field Field
	// Qualifiers restrict a permission: the crawler must honour them all.
	// They are those of the permissions with the narrowest scope (section
	// 2.4.6), repeated qualifiers combined as section 2.5 says.
	Qualifiers []Qualifier
	// Conflict lists the fields of narrowest scope that disagree, when
	// Reason is ReasonConflict.
	Conflict []Field
}

// String explains the decision in one line, for logs and error messages.
func (d Decision) String() string {
	verdict := "prohibited"
	if d.Permitted {
		verdict = "permitted"
	}
	switch d.Reason {
	case ReasonField:
		s := verdict + " by " + d.Field.String()
		for _, q := range d.Qualifiers {
			s += " " + q.String()
		}
		return s
	case ReasonConflict:
		parts := make([]string, len(d.Conflict))
		for i, f := range d.Conflict {
			parts[i] = f.String()
		}
		return verdict + ": no narrowest scope among " + strings.Join(parts, ", ")
	}
	return verdict + ": " + d.Reason.String()
}

// Permitted reports whether agent may use target for usage u, with no
// usage purpose. Qualifiers that restrict a permission are ignored: use
// Decide to see them.
func (p *Policy) Permitted(agent, target string, u Usage) bool {
	return p.Decide(Query{Agent: agent, URL: target, Usage: u}).Permitted
}

// candidate is a field that applies to a query, with the pattern that
// matched.
type candidate struct {
	pattern  string
	field    *field  // nil for the conventional rule
	rec      *record // nil for the conventional rule
	conv     *Field  // the conventional rule
	crawler  string
	purpose  string
	usage    Usage // after the fallback
	allow    bool  // after the fallback
	fellBack bool
	sub      bool // the field belongs to a sub-record
	named    bool // the record names the crawler
	other    bool // a field of usage other
	disabled bool // overridden (section 2.2.1)
}

// Field returns the candidate as the decision reports it.
func (c *candidate) Field() Field {
	if c.conv != nil {
		return *c.conv
	}
	return Field{
		Source: c.rec.source, Line: c.field.line, Text: c.field.text, Permission: c.allow, Usage: c.usage,
		Pattern: c.pattern, Crawler: c.crawler, Purpose: c.purpose, FellBack: c.fellBack,
	}
}

// qualifiers returns the qualifiers of a permission.
func (c *candidate) qualifiers() []Qualifier {
	if !c.allow || c.field == nil {
		return nil
	}
	return c.field.qualifiers
}

// order sorts candidates for reporting: ACAP fields in file order, then
// the conventional rule.
func (c *candidate) order() (conventional bool, source string, line int) {
	if c.conv != nil {
		return true, "", c.conv.Line
	}
	return false, c.rec.source, c.field.line
}

// Decide returns the verdict on q: whether the usage is permitted, the
// qualifiers that restrict it, and the field that decided.
//
// The fields that apply are those of every ACAP record addressed to the
// agent or to any crawler, of their sub-records whose usage purpose
// pattern matches q.Purpose, and, for crawl, the conventional record's
// deciding rule. Sub-record fields override their record's fields, and
// fields of a record naming the agent override those of a record for any
// crawler, for the same usage and resource (section 2.2.1). Of those
// left, the ones of narrowest scope decide (section 2.4.6). Fields of usage
// other apply only when no field of the usage asked about does.
func (p *Policy) Decide(q Query) Decision {
	path := strings.ToLower(policy.CanonicalPath(policy.PathOf(q.URL)))
	purpose := strings.ToLower(q.Purpose)

	var buf [8]candidate
	cands := buf[:0]
	for _, r := range p.records {
		crawler, ok := r.appliesTo(q.Agent)
		if !ok {
			continue
		}
		cands = p.collect(cands, q, r, crawler, r.fields, false, "", path)
		if purpose == "" {
			continue
		}
		for _, s := range r.subs {
			for _, pp := range s.purposes {
				if policy.PatternMatches(pp, purpose) {
					cands = p.collect(cands, q, r, crawler, s.fields, true, pp, path)
					break
				}
			}
		}
	}
	if q.Usage == Crawl && !p.ignoreConventional {
		if c, ok := p.conventionalField(q.Agent, q.URL, cands); ok {
			cands = append(cands, c)
		}
	}

	// Fields of usage other apply only when nothing else does.
	direct := false
	for _, c := range cands {
		direct = direct || !c.other
	}
	if direct {
		cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.other })
	}
	override(cands)
	cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.disabled })
	if len(cands) == 0 {
		return Decision{Permitted: true, Reason: ReasonNone}
	}
	return decide(narrowest(cands))
}

// appliesTo reports whether the record applies to agent, and the crawler
// name that matched.
func (r *record) appliesTo(agent string) (string, bool) {
	if r.parent != nil {
		if _, ok := r.parent.appliesTo(agent); !ok {
			return "", false
		}
	}
	if r.any {
		return "*", true
	}
	for _, c := range r.crawlers {
		if containsFold(agent, c) {
			return c, true
		}
	}
	return "", false
}

// containsFold reports whether lower, which is in lower case, is within s,
// ignoring case.
func containsFold(s, lower string) bool {
	if !isASCII(s) || !isASCII(lower) {
		return strings.Contains(strings.ToLower(s), lower)
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) && lowerASCII(s[i+j]) == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// collect appends the fields of fs that apply to q's usage and path.
func (p *Policy) collect(cands []candidate, q Query, r *record, crawler string, fs []*field, sub bool, purpose, path string) []candidate {
	for _, f := range fs {
		allow, usage, fellBack := fallback(q, f.allow, f.usage, f.fellBack, f.qualifiers)
		other := usage == Other && q.Usage != Other
		if !other && !usage.covers(q.Usage) {
			continue
		}
		for _, pat := range f.patterns {
			if !policy.PatternMatches(pat, path) {
				continue
			}
			cands = append(cands, candidate{
				pattern: pat, field: f, rec: r, crawler: crawler, purpose: purpose,
				usage: usage, allow: allow, fellBack: fellBack, sub: sub, named: !r.any, other: other,
			})
		}
	}
	return cands
}

// fallback applies section 2.4.3 to a field for the crawler of q, as many
// times as it takes: a permission with qualifiers the crawler cannot
// honour becomes a prohibition of its usage; a prohibition the crawler
// cannot act on becomes one of the basic usage, then one of crawl.
func fallback(q Query, allow bool, u Usage, fellBack bool, qs []Qualifier) (bool, Usage, bool) {
	if allow && q.Honours != nil {
		for _, x := range qs {
			if !q.Honours(x) {
				allow, fellBack = false, true
				break
			}
		}
	}
	for !allow && q.Interprets != nil && u != Crawl && !q.Interprets(u) {
		if b := u.Basic(); b != u {
			u = b
		} else {
			u = Crawl // reading 4: the third bullet prohibits crawling
		}
		fellBack = true
	}
	return allow, u, fellBack
}

// conventionalField returns the conventional rule that decides crawling
// path for agent, as a crawl field (section 2.10.2). A conventional rule
// whose pattern is that of an ACAP field for crawl with the opposite
// verdict is ignored, and the decision taken without it.
func (p *Policy) conventionalField(agent, target string, cands []candidate) (candidate, bool) {
	g := p.conventional.Group(agent)
	d := g.Decide(target)
	if d.Reason != policy.ReasonRule {
		return candidate{}, false
	}
	ignored := func(r policy.Rule) bool {
		for _, c := range cands {
			if !c.other && c.allow != r.Allow && strings.EqualFold(c.pattern, r.Pattern) {
				return true
			}
		}
		return false
	}
	rule := d.Rule
	if ignored(rule) {
		// Decide again without the ignored rules: the longest match wins,
		// an Allow a tie (RFC 9309 §2.2.2).
		cased := policy.CanonicalPath(policy.PathOf(target))
		found := false
		for _, r := range g.Rules() {
			if ignored(r) || !policy.PatternMatches(r.Pattern, cased) {
				continue
			}
			if !found || len(r.Pattern) > len(rule.Pattern) || len(r.Pattern) == len(rule.Pattern) && r.Allow {
				rule, found = r, true
			}
		}
		if !found {
			return candidate{}, false
		}
	}
	line := 0
	if i := rule.Line - 1; i >= 0 && i < len(p.convLines) {
		line = p.convLines[i]
	}
	pattern := strings.ToLower(rule.Pattern)
	return candidate{pattern: pattern, usage: Crawl, allow: rule.Allow, conv: &Field{
		Line: line, Text: rule.String(), Permission: rule.Allow, Usage: Crawl,
		Pattern: pattern, Crawler: g.Agent(), Conventional: true,
	}}, true
}

// override disables the fields that others override (section 2.2.1):
// a record's fields for a usage when one of its sub-records has a field
// for that usage that applies; and a field of a record for any crawler
// when a record naming the crawler has a field for the same usage that
// applies, at the same level (record or sub-record) or in a sub-record
// against a record-level field, which it is more specific than in both
// respects. A named record-level field against a sub-record field of a
// record for any crawler overrides neither (reading 3). Every candidate
// applies to the resource, so "matching the same resource" holds for each
// pair (reading 2).
func override(cands []candidate) {
	type recUsage struct {
		r *record
		u Usage
	}
	type levelUsage struct {
		sub bool
		u   Usage
	}
	subs := map[recUsage]bool{}
	named := map[levelUsage]bool{}
	for _, c := range cands {
		if c.rec == nil {
			continue
		}
		if c.sub {
			subs[recUsage{c.rec, c.usage}] = true
		}
		if c.named {
			named[levelUsage{c.sub, c.usage}] = true
		}
	}
	for i := range cands {
		c := &cands[i]
		if c.rec == nil {
			continue
		}
		byNamed := named[levelUsage{c.sub, c.usage}] || !c.sub && named[levelUsage{true, c.usage}]
		if !c.sub && subs[recUsage{c.rec, c.usage}] || !c.named && byNamed {
			c.disabled = true
		}
	}
}

// decide gives the verdict of the fields of narrowest scope.
func decide(winners []candidate) Decision {
	allow, deny := false, false
	for _, c := range winners {
		allow = allow || c.allow
		deny = deny || !c.allow
	}
	if allow && deny {
		d := Decision{Reason: ReasonConflict}
		for _, c := range winners {
			d.Conflict = append(d.Conflict, c.Field())
		}
		return d
	}
	d := Decision{Permitted: allow, Reason: ReasonField, Field: winners[0].Field()}
	if allow {
		var qs []Qualifier
		for _, c := range winners {
			for _, q := range c.qualifiers() {
				if !slices.Contains(qs, q) {
					qs = append(qs, q)
				}
			}
		}
		d.Qualifiers = combine(qs)
	}
	return d
}

// narrowest returns the candidates of narrowest scope (section 2.4.6): ACAP
// fields first, in file order, then the conventional one. Patterns are compared character by character; where they
// first differ, a pattern that has run out is wider than any other, a
// final '$' wider than anything but a pattern that has run out, and '*'
// wider than a literal character. Two different literal characters leave
// both patterns in the running.
//
// The candidates are sorted by pattern and walked as a trie, always into
// the narrowest branches, so the cost is that of the sort.
func narrowest(cands []candidate) []candidate {
	if len(cands) == 1 {
		return cands
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return strings.Compare(a.pattern, b.pattern) })
	type span struct{ lo, hi, depth int }
	var out []candidate
	var next []span
	stack := []span{{0, len(cands), 0}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for {
			// cands[s.lo:s.hi] share their first s.depth bytes: find the
			// narrowest class of byte at s.depth, then the runs of
			// patterns of that class with the same byte.
			best := classEnd
			for i := s.lo; i < s.hi; i++ {
				if k, _ := class(cands[i].pattern, s.depth); k < best {
					best = k
				}
			}
			if best == classEnd { // every pattern ends here: they are identical
				out = append(out, cands[s.lo:s.hi]...)
				break
			}
			next = next[:0]
			for i := s.lo; i < s.hi; {
				kind, c := class(cands[i].pattern, s.depth)
				j := i + 1
				for j < s.hi {
					if k2, c2 := class(cands[j].pattern, s.depth); k2 != kind || c2 != c {
						break
					}
					j++
				}
				if kind == best {
					next = append(next, span{i, j, s.depth + 1})
				}
				i = j
			}
			if len(next) > 1 {
				stack = append(stack, next...)
				break
			}
			s = next[0]
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		ac, as, al := a.order()
		bc, bs, bl := b.order()
		if ac != bc {
			return boolInt(ac) - boolInt(bc)
		}
		if as != bs {
			return strings.Compare(as, bs)
		}
		return al - bl
	})
	return out
}

const (
	classLiteral = iota
	classStar
	classDollar
	classEnd
)

// class classifies pattern's byte at i for narrowest.
func class(pattern string, i int) (int, byte) {
	switch {
	case i >= len(pattern):
		return classEnd, 0
	case pattern[i] == '$' && i == len(pattern)-1:
		return classDollar, 0
	case pattern[i] == '*':
		return classStar, 0
	}
	return classLiteral, pattern[i]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
