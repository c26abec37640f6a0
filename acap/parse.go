package acap

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/robotsguard/robotsguard/internal/ascii"
	"github.com/robotsguard/robotsguard/policy"
)

// A Policy is the ACAP content of a robots.txt: its ACAP records, with the
// definitions they use, and the conventional records that ACAP 1.1 section
// 2.10 combines with them. It is immutable and safe for concurrent use.
type Policy struct {
	version string // the ACAP-version value, "" when absent
	v11     bool   // ACAP 1.1 features may be used (ACAP-version 1.1 or a later 1.x)
	ignored bool   // ACAP records are ignored: an ACAP-version of another major version
	maxSize int    // Parser.MaxSize, for Include

	ignoreConventional bool

	// Locally defined usages, by lower-case name: a qualified usage has
	// one part, a composite one at most two per usage (one valid, one
	// read as a prohibition). Permissions that name one share its parts,
	// unless a part falls back.
	qualified map[string][]part
	composite map[string][]part
	sets      map[string]*resources

	records []*record

	conventional *policy.Robots // the conventional records, outside ACAP records

	problems []Problem

	plans  *planCache  // the records that apply to the agents last asked about
	convs  *convCache  // their conventional groups, compiled
	unions *unionCache // the qualifiers of permissions that decisions read
}

// part is a standard usage with qualifiers: what a permission or
// prohibition field says of one usage. A field naming a composite usage has
// one part per usage of it.
type part struct {
	usage      Usage
	allow      bool
	qualifiers []Qualifier
	v11        bool
	invalid    string // why the qualifiers cannot be interpreted
	fellBack   bool   // invalid, so read as a prohibition (section 2.4.3)
}

// resources is what a resource specification names: one pattern, or the
// distinct patterns of a resource set, shared by the fields that name it.
type resources struct {
	patterns []string // canonical and lower-case
	set      bool     // a resource set
	idx      setIndex // of a set's patterns, built on first use
}

type record struct {
	source    string   // "" for the robots.txt, else the permissions reference
	parent    *record  // for a record of a referenced resource, the record that referred to it
	crawlers  []string // lower-case names
	tokens    []string // their product tokens, lower-case, or the name when it has none
	any       bool     // ACAP-crawler: *
	reference string   // ACAP-permissions-reference
	refLine   int
	fields    []*field // of the record as a whole
	usages    usageSet // of the parts of fields
	subs      []*subrecord
	actions   []Action
	list      fieldList // fields, compiled on first use
}

type subrecord struct {
	purposes []string // lower-case patterns
	fields   []*field
	usages   usageSet  // of the parts of fields
	list     fieldList // fields, compiled on first use
}

// field is a permission or prohibition field.
type field struct {
	line   int
	text   string
	res    *resources
	parts  []part
	shared bool // parts are those of a definition
}

// An Action is an action request (section 2.6). Only requests that
// locate a single resource are Actions: Path is an absolute path (it
// starts with one '/') without '*', '$', query, fragment or spaces, its
// '%' escapes well formed; Problems lists the others (ProblemAction).
type Action struct {
	Kind   string // "take-down" or "re-crawl"
	Path   string // the resource, relative to the document root, as written
	Source string // "" for the robots.txt, else the permissions reference's locator
	Line   int
}

func (a Action) String() string {
	return fmt.Sprintf("%s %s (line %d%s)", a.Kind, a.Path, a.Line, of(a.Source))
}

// checkActionPath says why v, the value of an action request, does not
// locate a single resource by an absolute path (a relative-part of RFC
// 3986 that starts with one '/', section 3), or "" when it does. Action
// requests ask a crawler to erase or fetch what they name: a pattern, a
// resource set, another host's URL or nothing at all is not acted on.
func checkActionPath(v string) string {
	switch {
	case v == "":
		return "no resource path"
	case strings.ContainsAny(v, " \t"):
		return "more than one word"
	case strings.HasPrefix(v, "//"):
		return "a network-path reference (another host), not a path"
	case ascii.HasPrefixFold(v, "the-acap:"):
		return "a resource set, not a single resource"
	case !strings.HasPrefix(v, "/"):
		if i := strings.IndexAny(v, ":/"); i > 0 && v[i] == ':' {
			return "an absolute URL, not a path relative to the document root"
		}
		return "a path that does not start with /"
	case strings.ContainsAny(v, "*$"):
		return "a pattern ('*' or '$'), not a single resource"
	case strings.ContainsAny(v, "?#"):
		return "a query or fragment, which a relative-part does not hold"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			return fmt.Sprintf("character %q, which a path does not hold", c)
		}
		if c == '%' && (i+2 >= len(v) || !isHex(v[i+1]) || !isHex(v[i+2])) {
			return "a '%' that is not a percent-encoding"
		}
	}
	return ""
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// of names a permissions reference resource in a message.
func of(source string) string {
	if source == "" {
		return ""
	}
	return " of " + source
}

// A Problem is a line that ACAP 1.1 does not let a crawler interpret, and
// that is therefore ignored, or reinterpreted.
type Problem struct {
	Source string // "" for the robots.txt, else the permissions reference's locator
	Line   int
	Text   string
	Kind   ProblemKind // what is wrong, for programs
	Reason string      // what is wrong and what was done, for people
}

// A ProblemKind classifies Problems, so that programs need not read their
// Reason.
type ProblemKind uint8

const (
	// ProblemSyntax: the line breaks the grammar of section 3 (no colon,
	// no value, a value that is not a name, a pattern or a locator, a
	// prohibition that names a locally defined usage).
	ProblemSyntax ProblemKind = iota + 1
	// ProblemUnknownField: an ACAP- field that ACAP 1.1 does not define.
	ProblemUnknownField
	// ProblemPlacement: a field where it may not be (ACAP-version after
	// other ACAP fields, a definition after the first record, a field
	// outside any record, an action request in a sub-record, …).
	ProblemPlacement
	// ProblemVersion: the field uses an ACAP 1.1 feature in a file without
	// ACAP-version 1.1, or the file's ACAP version is not 1.x (section 2.8).
	ProblemVersion
	// ProblemUnknownUsage: a usage type that ACAP 1.1 does not define.
	ProblemUnknownUsage
	// ProblemUndefined: the field names a resource set or a locally
	// defined usage that is not defined (before it).
	ProblemUndefined
	// ProblemRedefined: a definition of a name already defined.
	ProblemRedefined
	// ProblemQualifier: qualifiers that cannot be read, that the usage does
	// not take, or that the field may not hold.
	ProblemQualifier
	// ProblemCrawler: the crawler names of a record contradict each other.
	ProblemCrawler
	// ProblemAction: an action request that does not locate a single
	// resource by a relative path (section 2.6); Actions leaves it out.
	ProblemAction
	// ProblemTruncated: the file (or referenced resource) was cut at the
	// parse limit (line 0).
	ProblemTruncated
)

var problemKindNames = [...]string{
	ProblemSyntax:       "syntax",
	ProblemUnknownField: "unknown field",
	ProblemPlacement:    "placement",
	ProblemVersion:      "version",
	ProblemUnknownUsage: "unknown usage",
	ProblemUndefined:    "undefined name",
	ProblemRedefined:    "redefined name",
	ProblemQualifier:    "qualifier",
	ProblemCrawler:      "crawler",
	ProblemAction:       "action request",
	ProblemTruncated:    "truncated",
}

// String returns the kind's name: "syntax", "unknown field", …
func (k ProblemKind) String() string {
	if int(k) < len(problemKindNames) && problemKindNames[k] != "" {
		return problemKindNames[k]
	}
	return "ProblemKind(" + strconv.Itoa(int(k)) + ")"
}

// A Parser reads the ACAP content of robots.txt bodies. Its zero value
// uses the default size limit. It may be copied and used from several
// goroutines at once.
type Parser struct {
	// MaxSize is the number of bytes of a body that are read, as for
	// policy.Parser: zero, and any value below policy.DefaultMaxSize, mean
	// policy.DefaultMaxSize.
	MaxSize int
}

func (p Problem) String() string {
	return fmt.Sprintf("line %d%s: %s: %q", p.Line, of(p.Source), p.Reason, p.Text)
}

// Parse reads the ACAP records and definitions of a robots.txt body, and
// its conventional records. It never fails: fields that cannot be
// interpreted are ignored, or reinterpreted, and listed by Problems.
func Parse(body []byte) *Policy { return Parser{}.Parse(body) }

// Parse reads body as the package-level Parse does.
func (ps Parser) Parse(body []byte) *Policy { return ps.ParseAlong(body, nil) }

// ParseAlong reads body as Parse does, and feeds every callback of the one
// Scan that reads it (with the RFC9309 dialect and the parser's size
// limit) to also, if not nil, after reading it: every directive, every
// line (LineHandler.Line) and the end (EndHandler.End, if also has it).
// With a policy.Builder of a policy.Parser of the RFC9309 dialect (and the
// same MaxSize), one scan of the file gives both its Policy and its
// policy.Robots:
//
//	b := policy.Parser{}.NewBuilder()
//	p := acap.Parser{}.ParseAlong(body, b)
//	r := b.Robots()
func (ps Parser) ParseAlong(body []byte, also policy.LineHandler) *Policy {
	p := &Policy{
		maxSize: ps.MaxSize, plans: &planCache{}, convs: &convCache{}, unions: newUnionCache(),
		qualified: map[string][]part{}, composite: map[string][]part{}, sets: map[string]*resources{},
	}
	conv := convPool.Get().(*policy.Builder)
	pr := parser{p: p, conv: conv, also: also}
	if (policy.Parser{MaxSize: ps.MaxSize}).Scan(body, &pr) {
		p.problem("", 0, "", ProblemTruncated, "the file is longer than the parse limit: the rest is ignored")
	}
	p.conventional = conv.Robots() // empties conv for the next file
	convPool.Put(conv)
	return p
}

// convPool holds the Builders of conventional records, whose scratch space
// is reused from one file to the next.
var convPool = sync.Pool{New: func() any { return policy.Parser{}.NewBuilder() }}

// A Reference is an ACAP-permissions-reference field (section 2.3.2): the
// crawlers of its record are to read the ACAP records of another resource
// too.
type Reference struct {
	Locator string // as written: a path from the document root, or a URI
	Line    int
	rec     *record
}

// URL resolves the reference against the URL of the robots.txt that holds
// it. The error, for a locator that is not a URL reference, wraps
// url.Parse's.
func (r Reference) URL(robotsTxt *url.URL) (*url.URL, error) {
	ref, err := url.Parse(r.Locator)
	if err != nil {
		return nil, fmt.Errorf("robotsguard: acap: permissions reference: %w", err)
	}
	return robotsTxt.ResolveReference(ref), nil
}

// AppliesTo reports whether the reference's record applies to agent, a
// crawler name or User-Agent value as in Query.
func (r Reference) AppliesTo(agent string) bool {
	if r.rec == nil {
		return false
	}
	_, ok := r.rec.appliesTo(agent)
	return ok
}

// References returns the permissions references of the file, in file
// order.
func (p *Policy) References() []Reference {
	var out []Reference
	for _, r := range p.records {
		if r.reference != "" && r.source == "" {
			out = append(out, Reference{Locator: r.reference, Line: r.refLine, rec: r})
		}
	}
	return out
}

// Include returns a Policy that also holds the ACAP records of body, the
// resource that ref names, which must be one of p's References (for any
// other, Include returns p). Those records apply to an agent only when
// ref's record does too. body is read with p's size limit; it may use the
// definitions of p and define its own, and may declare its own
// ACAP-version (without one, it is read as p's version says). Its
// permissions references are ignored, as references do not chain (the
// rest of it is read), and so are its conventional records and any
// ACAP-ignore-conventional-records. p is not modified.
func (p *Policy) Include(ref Reference, body []byte) *Policy {
	if ref.rec == nil || !slices.Contains(p.records, ref.rec) {
		return p
	}
	n := *p // n.convs is p's: the conventional records are the same
	n.plans, n.unions = &planCache{}, newUnionCache()
	n.records = slices.Clone(p.records)
	n.problems = slices.Clone(p.problems)
	n.qualified, n.composite, n.sets = maps.Clone(p.qualified), maps.Clone(p.composite), maps.Clone(p.sets)
	pr := parser{p: &n, source: ref.Locator, parent: ref.rec}
	if (policy.Parser{MaxSize: p.maxSize}).Scan(body, &pr) {
		n.problem(ref.Locator, 0, "", ProblemTruncated, "the resource is longer than the parse limit: the rest is ignored")
	}
	n.version, n.v11, n.ignored = p.version, p.v11, p.ignored
	return &n
}

// HasRecords reports whether the file holds ACAP records that a crawler
// reads: false when it has none, or when its ACAP-version is not 1.x.
func (p *Policy) HasRecords() bool { return len(p.records) > 0 && !p.ignored }

// Actions returns the action requests (section 2.6) addressed to agent, a
// crawler name or User-Agent value as in Query, in file order.
func (p *Policy) Actions(agent string) []Action {
	if p.ignored {
		return nil
	}
	var out []Action
	for r := range p.recordsFor(agent) {
		out = append(out, r.actions...)
	}
	return out
}

// A Definition is a local definition of the file (section 2.7), as it was
// read: a resource set with its patterns, or a qualified or composite
// usage with its usages. Definitions that could not be read are not
// definitions (Problems lists them).
type Definition struct {
	Kind DefinitionKind
	Name string // lower case
	// Patterns are a resource set's resource path patterns, distinct, in
	// RFC 9309's canonical percent-encoding and lower case, as matched.
	Patterns []string
	// Usages are the usages of a qualified usage (one) or a composite
	// usage, each with its qualifiers.
	Usages []DefinedUsage
}

// A DefinitionKind tells what a Definition defines.
type DefinitionKind uint8

const (
	ResourceSet    DefinitionKind = iota + 1 // ACAP-resource-set
	QualifiedUsage                           // ACAP-qualified-usage
	CompositeUsage                           // ACAP-composite-usage
)

// String returns the field name that makes such a definition.
func (k DefinitionKind) String() string {
	switch k {
	case ResourceSet:
		return "ACAP-resource-set"
	case QualifiedUsage:
		return "ACAP-qualified-usage"
	case CompositeUsage:
		return "ACAP-composite-usage"
	}
	return "DefinitionKind(" + strconv.Itoa(int(k)) + ")"
}

// A DefinedUsage is a usage of a qualified or composite usage.
type DefinedUsage struct {
	Usage      Usage
	Qualifiers []Qualifier
	// Invalid says why the qualifiers cannot be interpreted, so that a
	// permission naming the definition is read, for this usage, as a
	// prohibition (section 2.4.3); "" when they can.
	Invalid string
}

// Definitions returns the definitions of the file: resource sets, then
// qualified usages, then composite usages, each kind by name.
func (p *Policy) Definitions() []Definition {
	var out []Definition
	for _, name := range slices.Sorted(maps.Keys(p.sets)) {
		out = append(out, Definition{Kind: ResourceSet, Name: name, Patterns: slices.Clone(p.sets[name].patterns)})
	}
	usages := func(k DefinitionKind, defs map[string][]part) {
		for _, name := range slices.Sorted(maps.Keys(defs)) {
			d := Definition{Kind: k, Name: name}
			for _, pt := range defs[name] {
				d.Usages = append(d.Usages, DefinedUsage{Usage: pt.usage, Qualifiers: slices.Clone(pt.qualifiers), Invalid: pt.invalid})
			}
			out = append(out, d)
		}
	}
	usages(QualifiedUsage, p.qualified)
	usages(CompositeUsage, p.composite)
	return out
}

// Version returns the value of the file's ACAP-version field, or "".
func (p *Policy) Version() string { return p.version }

// IgnoresConventional reports whether the file holds an
// ACAP-ignore-conventional-records field (section 2.10.1).
func (p *Policy) IgnoresConventional() bool { return p.ignoreConventional }

// Problems returns the lines that were ignored or reinterpreted, with the
// reason: those of the file in line order, then a notice (line 0) if the
// file was cut at the size limit, then those of included resources.
func (p *Policy) Problems() []Problem { return append([]Problem(nil), p.problems...) }

func (p *Policy) problem(source string, line int, text string, kind ProblemKind, reason string) {
	p.problems = append(p.problems, Problem{Source: source, Line: line, Text: text, Kind: kind, Reason: reason})
}

// parser is the policy.LineHandler that builds a Policy.
type parser struct {
	p      *Policy
	source string  // "" for the robots.txt, else the permissions reference being read
	parent *record // the record that referred to the resource being read

	versionSeen     bool // an ACAP-version field was read
	seenACAP        bool // an ACAP field other than ACAP-version was seen
	definitionsDone bool // an ACAP record was seen: no more definitions
	cur             *record
	sub             *subrecord
	subHasFields    bool
	recordHasFields bool // the current record has a field after its crawler lines
	inACAP          bool // within an ACAP record: conventional fields are ignored

	// conv builds the conventional records, outside ACAP records, from
	// the file's directives; nil when reading a referenced resource.
	conv *policy.Builder
	also policy.LineHandler // fed every callback too; may be nil

	// singles holds the resources of the patterns named so far, which
	// the fields that name the same pattern share.
	singles map[string]*resources
}

func (pr *parser) problem(line int, text string, kind ProblemKind, reason string) {
	pr.p.problem(pr.source, line, text, kind, reason)
}

// UserAgent starts a conventional group: the Allow and Disallow lines that
// follow are conventional fields, until an ACAP-crawler line. ACAP fields
// that follow still belong to the current ACAP record, which only an
// ACAP-crawler line or the end of the file ends (section 2.3).
func (pr *parser) UserAgent(line int, value []byte) {
	pr.inACAP = false
	if pr.conv != nil {
		pr.conv.UserAgent(line, value)
	}
	if pr.also != nil {
		pr.also.UserAgent(line, value)
	}
}

func (pr *parser) Allow(line int, pattern []byte) {
	if pr.conv != nil && !pr.inACAP {
		pr.conv.Allow(line, pattern)
	}
	if pr.also != nil {
		pr.also.Allow(line, pattern)
	}
}

func (pr *parser) Disallow(line int, pattern []byte) {
	if pr.conv != nil && !pr.inACAP {
		pr.conv.Disallow(line, pattern)
	}
	if pr.also != nil {
		pr.also.Disallow(line, pattern)
	}
}

func (pr *parser) Sitemap(line int, url []byte) {
	if pr.also != nil {
		pr.also.Sitemap(line, url)
	}
}

func (pr *parser) Other(line int, key, value []byte) {
	if pr.also != nil {
		pr.also.Other(line, key, value)
	}
}

// End passes the end of the scan on to the handlers that want it.
func (pr *parser) End(size int, truncated bool) {
	if pr.conv != nil {
		pr.conv.End(size, truncated)
	}
	if eh, ok := pr.also.(policy.EndHandler); ok {
		eh.End(size, truncated)
	}
}

// Line reads the ACAP fields, then passes the line on to also.
func (pr *parser) Line(info policy.LineInfo) {
	pr.line(info)
	if pr.also != nil {
		pr.also.Line(info)
	}
}

// line reads the ACAP fields; names are case-insensitive.
func (pr *parser) line(info policy.LineInfo) {
	if len(info.Text) < 5 || !ascii.HasPrefixFold(info.Text, "acap-") {
		if (info.Kind == policy.KindAllow || info.Kind == policy.KindDisallow) && pr.inACAP {
			pr.problem(info.Line, string(info.Text), ProblemPlacement, "a conventional field within an ACAP record is ignored (section 2.10.2)")
		}
		return
	}
	p, line, text := pr.p, info.Line, string(info.Text)
	if p.ignored {
		return
	}
	key, value, hasColon := strings.Cut(text, ":")
	key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
	if key == "acap-version" && hasColon {
		pr.version(line, text, value)
		return
	}
	first := !pr.seenACAP
	pr.seenACAP = true
	hadFields := pr.cur != nil && pr.recordHasFields // before this line
	switch key {
	case "acap-crawler", "acap-usage-purpose":
	default:
		// Any other field, even one that cannot be read, ends the
		// crawler lines of a record and the purpose lines of a
		// sub-record (section 2.3).
		if pr.cur != nil {
			pr.recordHasFields = true
			pr.subHasFields = pr.subHasFields || pr.sub != nil
		}
	}
	switch {
	case key == "acap-ignore-conventional-records":
		switch {
		case value != "":
			pr.problem(line, text, ProblemSyntax, "ACAP-ignore-conventional-records takes no value (section 2.10.1)")
		case !first || pr.parent != nil:
			pr.problem(line, text, ProblemPlacement, "ACAP-ignore-conventional-records must come before all ACAP fields but ACAP-version (section 2.10.1)")
		default:
			p.ignoreConventional = true
		}
	case !hasColon:
		pr.problem(line, text, ProblemSyntax, "no colon after the field name")
	case key == "acap-qualified-usage", key == "acap-composite-usage", key == "acap-resource-set":
		if pr.definitionsDone {
			pr.problem(line, text, ProblemPlacement, "a definition after the first ACAP record is ignored (section 2.7)")
			return
		}
		pr.definition(line, text, key, value)
	case key == "acap-crawler":
		pr.crawler(line, text, value)
	case pr.cur == nil:
		pr.problem(line, text, ProblemPlacement, "an ACAP field outside any ACAP record is ignored")
	case pr.cur.reference != "":
		pr.problem(line, text, ProblemPlacement, "a record with a permissions reference holds nothing else (section 2.3)")
	case key == "acap-permissions-reference":
		pr.reference(line, text, value, hadFields)
	case key == "acap-usage-purpose":
		if pr.sub == nil || pr.subHasFields {
			pr.sub = &subrecord{}
			pr.subHasFields = false
			pr.cur.subs = append(pr.cur.subs, pr.sub)
		}
		pr.recordHasFields = true
		if value == "" || strings.ContainsAny(value, " \t") {
			// The sub-record still starts, so that its fields do not
			// join the one before; it applies to no purpose.
			pr.problem(line, text, ProblemSyntax, "not a usage purpose pattern (a name or URI, without spaces)")
			return
		}
		pr.sub.purposes = append(pr.sub.purposes, strings.ToLower(value))
	case key == "acap-request-take-down", key == "acap-request-re-crawl":
		if pr.sub != nil {
			pr.problem(line, text, ProblemPlacement, "a sub-record may not hold action requests (section 2.3)")
			return
		}
		if why := checkActionPath(value); why != "" {
			pr.problem(line, text, ProblemAction, why+": the request is ignored (an action request locates a single resource relative to the document root, section 2.6)")
			return
		}
		pr.cur.actions = append(pr.cur.actions, Action{Kind: strings.TrimPrefix(key, "acap-request-"), Path: value, Source: pr.source, Line: line})
	case strings.HasPrefix(key, "acap-allow-"), strings.HasPrefix(key, "acap-disallow-"):
		pr.permission(line, text, key, value)
	default:
		pr.problem(line, text, ProblemUnknownField, "unknown ACAP field")
	}
}

func (pr *parser) version(line int, text, value string) {
	p := pr.p
	if pr.seenACAP || pr.versionSeen {
		pr.problem(line, text, ProblemPlacement, "ACAP-version must be the first ACAP field (section 2.8)")
		return
	}
	var nums []int
	for _, s := range strings.Split(value, ".") {
		n, err := strconv.Atoi(s)
		if err != nil || strings.Trim(s, "0123456789") != "" {
			pr.problem(line, text, ProblemSyntax, "ACAP-version is not a version number (integers separated by dots)")
			return
		}
		nums = append(nums, n)
	}
	pr.versionSeen = true
	p.version = value
	p.v11 = nums[0] == 1 && len(nums) > 1 && nums[1] >= 1
	if nums[0] != 1 {
		p.ignored = true
		pr.problem(line, text, ProblemVersion, "ACAP version "+value+" is not version 1.x: its ACAP fields are ignored (section 2.8)")
	}
}

func (pr *parser) crawler(line int, text, value string) {
	if pr.cur == nil || pr.recordHasFields {
		pr.cur = &record{source: pr.source, parent: pr.parent}
		pr.sub, pr.recordHasFields = nil, false
		pr.p.records = append(pr.p.records, pr.cur)
	}
	pr.definitionsDone, pr.inACAP = true, true
	switch name := strings.ToLower(value); {
	case name == "":
		pr.problem(line, text, ProblemSyntax, "no crawler name")
	case name != "*" && pr.cur.any:
		pr.problem(line, text, ProblemCrawler, `an ACAP record for "*" names no other crawler (section 2.3.1): the record is read as one for any crawler`)
	case name == "*" && len(pr.cur.crawlers) > 0:
		pr.problem(line, text, ProblemCrawler, `an ACAP record for "*" names no other crawler (section 2.3.1): the record is read as one for any crawler`)
		pr.cur.any, pr.cur.crawlers, pr.cur.tokens = true, nil, nil
	case name == "*":
		pr.cur.any = true
	default:
		pr.cur.crawlers = append(pr.cur.crawlers, name)
		pr.cur.tokens = append(pr.cur.tokens, agentToken(name))
	}
}

// agentToken returns the lower-case product token of agent, a crawler
// name or User-Agent value (Query.Agent), which ACAP records are matched
// on: policy.ProductToken's, or, for a name with characters RFC 9309's
// tokens lack (digits, '.'), its first product's name ("bot8" of
// "Bot8/1.0 (+https://…)"); "" when it has none, which only records for
// "*" match.
func agentToken(agent string) string {
	if t := policy.ProductToken(agent); t != "" {
		return strings.ToLower(t)
	}
	t := strings.TrimSpace(agent)
	if i := strings.IndexAny(t, "/ \t;(),"); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(t)
}

func (pr *parser) reference(line int, text, value string, hadFields bool) {
	switch {
	case pr.parent != nil:
		pr.problem(line, text, ProblemPlacement, "a permissions reference in a referenced resource is ignored: references do not chain (section 2.3.2)")
	case hadFields:
		pr.problem(line, text, ProblemPlacement, "a permissions reference must be the only field of its record (section 2.3)")
	case value == "" || !isURI(value):
		pr.problem(line, text, ProblemSyntax, "not a resource locator")
	default:
		pr.cur.reference, pr.cur.refLine = value, line
	}
	pr.recordHasFields = true
}

// definition reads a qualified usage, composite usage or resource set
// definition (section 2.7).
func (pr *parser) definition(line int, text, key, value string) {
	p := pr.p
	words := strings.Fields(value)
	if len(words) < 2 {
		pr.problem(line, text, ProblemSyntax, "a definition needs a name and a value (definitions are single lines, section 2.7)")
		return
	}
	name := strings.ToLower(words[0])
	if !isName(name) {
		pr.problem(line, text, ProblemSyntax, "not a name: "+words[0])
		return
	}
	if _, dup := p.qualified[name]; key != "acap-resource-set" && (dup || p.composite[name] != nil) {
		pr.problem(line, text, ProblemRedefined, "a usage named "+name+" is already defined (section 3)")
		return
	}
	switch key {
	case "acap-resource-set":
		if p.sets[name] != nil {
			pr.problem(line, text, ProblemRedefined, "a resource set named "+name+" is already defined")
			return
		}
		set := &resources{set: true}
		seen := map[string]bool{}
		for _, w := range words[1:] {
			if c := canonicalPattern(w); !seen[c] {
				seen[c] = true
				set.patterns = append(set.patterns, c)
			}
		}
		p.sets[name] = set
	case "acap-qualified-usage":
		u, ok := parseUsage(words[1])
		if !ok {
			pr.problem(line, text, ProblemUnknownUsage, "not an ACAP usage type: "+words[1])
			return
		}
		qs, err := qualifiers(words[2:])
		if err != "" || len(qs) == 0 {
			pr.problem(line, text, ProblemQualifier, "a qualified usage needs qualifiers: "+err)
			return
		}
		eff, v11, invalid := checkQualifiers(u, qs)
		if v11 && !p.v11 {
			pr.problem(line, text, ProblemVersion, "uses an ACAP 1.1 feature, and the file declares no ACAP-version 1.1 (section 2.8)")
			return
		}
		p.qualified[name] = []part{{usage: u, allow: true, qualifiers: eff, v11: v11, invalid: invalid}}
	case "acap-composite-usage":
		var parts []part
		named := map[string]bool{}
		for _, w := range words[1:] {
			if l, ok := strings.CutPrefix(w, "("); ok && strings.HasSuffix(l, ")") {
				qname := strings.ToLower(strings.TrimSuffix(l, ")"))
				q, defined := p.qualified[qname]
				if !defined {
					pr.problem(line, text, ProblemUndefined, "names a qualified usage not defined before it: "+w+" (the whole definition is ignored)")
					return
				}
				if !named[qname] { // naming one twice adds nothing
					named[qname] = true
					parts = append(parts, q[0])
				}
				continue
			}
			u, ok := parseUsage(w)
			switch {
			case !ok:
				pr.problem(line, text, ProblemUnknownUsage, "not an ACAP usage type: "+w)
				return
			case u == Other:
				pr.problem(line, text, ProblemQualifier, "other may be permitted only with a usage-ref qualifier (section 2.5.6.1): that part is ignored")
				continue
			}
			parts = append(parts, part{usage: u, allow: true})
		}
		p.composite[name] = mergeParts(parts)
	}
}

// mergeParts merges the parts of a composite usage: a permission field for
// it reads as one field per part (section 2.7.2), and the parts of one
// usage, all of the same resources, are equally narrow, so they count as
// one with all their qualifiers. Parts whose qualifiers cannot be read
// stay apart, as they read as prohibitions.
func mergeParts(parts []part) []part {
	type key struct {
		u       Usage
		invalid bool
	}
	var out []part
	index := map[key]int{}
	seen := map[int]map[Qualifier]bool{} // of the parts merged from several
	for _, q := range parts {
		k := key{q.usage, q.invalid != ""}
		i, ok := index[k]
		if !ok {
			// The first part of a usage keeps its qualifiers, shared with
			// the definition it comes from.
			index[k] = len(out)
			out = append(out, q)
			continue
		}
		x := &out[i]
		x.v11 = x.v11 || q.v11
		if x.invalid != "" || len(q.qualifiers) == 0 {
			continue
		}
		set := seen[i]
		if set == nil {
			set = map[Qualifier]bool{}
			for _, y := range x.qualifiers {
				set[y] = true
			}
			seen[i] = set
			x.qualifiers = slices.Clip(x.qualifiers) // appends copy
		}
		for _, y := range q.qualifiers {
			if !set[y] {
				set[y] = true
				x.qualifiers = append(x.qualifiers, y)
			}
		}
		if len(x.qualifiers) > maxQualifiers {
			x.qualifiers = nil
			x.invalid = "gives usage " + string(x.usage) + " more than " + strconv.Itoa(maxQualifiers) + " qualifiers"
		}
	}
	return out
}

// isName reports whether s is a name of section 3: a letter, then letters,
// digits, '-', '_' or '.'.
func isName(s string) bool {
	for i, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || i > 0 && ('0' <= c && c <= '9' || c == '-' || c == '_' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// qualifiers reads "type=value" words; the ABNF lets whitespace surround
// the '=' ("type = value").
func qualifiers(words []string) ([]Qualifier, string) {
	var out []Qualifier
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasSuffix(w, "=") && i+1 < len(words):
			w += words[i+1]
			i++
		case !strings.Contains(w, "=") && i+1 < len(words) && strings.HasPrefix(words[i+1], "="):
			w += words[i+1]
			i++
			if strings.HasSuffix(w, "=") && i+1 < len(words) {
				w += words[i+1]
				i++
			}
		}
		typ, val, ok := strings.Cut(w, "=")
		if !ok || typ == "" || val == "" {
			return nil, "not a qualifier: " + w
		}
		out = append(out, Qualifier{Type: strings.ToLower(typ), Value: val})
	}
	return out, ""
}

// canonicalPattern returns an ACAP pattern in the form it is compared in:
// RFC 9309's canonical form, lower-cased, as ACAP matching ignores case
// (section 2.9).
func canonicalPattern(p string) string {
	return strings.ToLower(policy.CanonicalPattern(p))
}

// permission reads a permission or prohibition field (section 2.4).
func (pr *parser) permission(line int, text, key, value string) {
	p := pr.p
	allow := strings.HasPrefix(key, "acap-allow-")
	name := strings.TrimPrefix(strings.TrimPrefix(key, "acap-allow-"), "acap-disallow-")
	words := strings.Fields(value)
	if len(words) == 0 {
		pr.problem(line, text, ProblemSyntax, "no resource specification")
		return
	}
	// A prohibition that breaks the grammar is kept, read so that it
	// prohibits at least what was meant (reading 18); a permission that
	// does is ignored.
	type note struct {
		kind ProblemKind
		why  string
	}
	var notes []note // why a prohibition is read otherwise than written
	res := pr.resources(words[0])
	if res == nil {
		// A set that is not defined has no members: the field applies
		// to no resource (reading 18), whatever its verdict.
		pr.problem(line, text, ProblemUndefined, "names a resource set that is not defined, which has no members: "+words[0]+": the field applies to no resource")
		return
	}
	qs, err := qualifiers(words[1:])
	if err != "" {
		if allow {
			pr.problem(line, text, ProblemQualifier, err)
			return
		}
		notes = append(notes, note{ProblemQualifier, err + ": read as a prohibition for " + words[0] + " alone"})
		qs = nil
	}

	if !allow && len(qs) > 0 {
		notes = append(notes, note{ProblemQualifier, "a prohibition may not hold qualifiers (section 2.4.2): read without them"})
		qs = nil
	}

	var parts []part
	shared := false
	if local, isLocal := strings.CutPrefix(name, "("); isLocal && strings.HasSuffix(local, ")") {
		shared = true
		local = strings.TrimSuffix(local, ")")
		if allow && len(qs) > 0 {
			pr.problem(line, text, ProblemQualifier, "a permission for a locally-defined usage may not hold qualifiers (section 2.4.1.3)")
			return
		}
		if q, ok := p.qualified[local]; ok {
			parts = q
		} else if c, ok := p.composite[local]; ok {
			parts = c
		} else {
			pr.problem(line, text, ProblemUndefined, "names a usage that is not defined: "+local)
			return
		}
		if !allow {
			// Read as prohibiting every usage of the definition
			// (reading 18).
			notes = append(notes, note{ProblemSyntax, "a prohibition may not name a locally-defined usage (section 2.4.2): read as a prohibition of each of its usages"})
			var prohibitions []part
			var seen usageSet
			for _, pt := range parts {
				if !seen.has(pt.usage) {
					seen = seen.with(pt.usage)
					prohibitions = append(prohibitions, part{usage: pt.usage})
				}
			}
			parts, shared = prohibitions, false
		}
	} else {
		u, ok := parseUsage(name)
		if !ok {
			pr.problem(line, text, ProblemUnknownUsage, "not an ACAP usage type: "+name)
			return
		}
		q := part{usage: u, allow: allow}
		if len(qs) > 0 {
			q.qualifiers, q.v11, q.invalid = checkQualifiers(u, qs)
		}
		parts = []part{q}
	}
	for _, n := range notes {
		pr.problem(line, text, n.kind, n.why)
	}

	for _, q := range parts {
		if q.v11 && !p.v11 {
			pr.problem(line, text, ProblemVersion, "uses an ACAP 1.1 feature, and the file declares no ACAP-version 1.1 (section 2.8)")
			return
		}
		if q.invalid != "" && !p.v11 {
			pr.problem(line, text, ProblemQualifier, q.invalid+": the field is ignored (the fallback of section 2.4.3 is an ACAP 1.1 feature)")
			return
		}
		if allow && q.usage == Other && q.invalid == "" && !slices.ContainsFunc(q.qualifiers, func(x Qualifier) bool { return x.Type == "usage-ref" }) {
			pr.problem(line, text, ProblemQualifier, "other may be permitted only with a usage-ref qualifier (section 2.5.6.1)")
			return
		}
	}
	if slices.ContainsFunc(parts, func(q part) bool { return q.invalid != "" }) {
		parts, shared = slices.Clone(parts), false
		for i := range parts {
			if q := &parts[i]; q.invalid != "" {
				pr.problem(line, text, ProblemQualifier, q.invalid+": read as a prohibition (section 2.4.3)")
				q.allow, q.qualifiers, q.fellBack = false, nil, true
			}
		}
	}
	f := &field{line: line, text: text, res: res, parts: parts, shared: shared}
	var us usageSet
	for _, pt := range parts {
		us = us.with(pt.usage)
	}
	if pr.sub != nil {
		pr.sub.fields = append(pr.sub.fields, f)
		pr.sub.usages |= us
	} else {
		pr.cur.fields = append(pr.cur.fields, f)
		pr.cur.usages |= us
	}
}

// resources returns what a resource specification names: a resource path
// pattern, or the-acap:resource-set:name (section 2.4.4); nil for a set
// that is not defined.
func (pr *parser) resources(spec string) *resources {
	if name, ok := ascii.CutPrefixFold(spec, "the-acap:resource-set:"); ok {
		return pr.p.sets[strings.ToLower(name)]
	}
	pat := canonicalPattern(spec)
	if res := pr.singles[pat]; res != nil {
		return res
	}
	if pr.singles == nil {
		pr.singles = map[string]*resources{}
	}
	res := &resources{patterns: []string{pat}}
	pr.singles[pat] = res
	return res
}

// qualifierCount returns the number of qualifiers of p's fields and
// definitions, counting each list of them once.
func (p *Policy) qualifierCount() int {
	n := 0
	counted := map[*Qualifier]bool{}
	count := func(ps []part) {
		for _, pt := range ps {
			if len(pt.qualifiers) > 0 && !counted[&pt.qualifiers[0]] {
				counted[&pt.qualifiers[0]] = true
				n += len(pt.qualifiers)
			}
		}
	}
	for _, r := range p.records {
		for _, f := range r.fields {
			count(f.parts)
		}
		for _, s := range r.subs {
			for _, f := range s.fields {
				count(f.parts)
			}
		}
	}
	for _, q := range p.qualified {
		count(q)
	}
	for _, c := range p.composite {
		count(c)
	}
	return n
}

// MemSize estimates the bytes of memory p holds, for caches that bound
// their size. What Decide compiles of the conventional records for an
// agent, on its first decision for the agent, counts from then on.
func (p *Policy) MemSize() int {
	n := 512
	if p.conventional != nil {
		n += p.conventional.MemSize()
	}
	if p.convs != nil {
		if last := p.convs.last.Load(); last != nil {
			for _, e := range last {
				if e.c != nil {
					n += e.c.memSize()
				}
			}
		}
	}
	var counted map[*Qualifier]bool // the qualifier arrays counted: parts share a definition's
	parts := func(ps []part) {
		for _, q := range ps {
			n += 64
			if len(q.qualifiers) == 0 {
				continue
			}
			if counted == nil {
				counted = map[*Qualifier]bool{}
			}
			if counted[&q.qualifiers[0]] {
				continue
			}
			counted[&q.qualifiers[0]] = true
			for _, x := range q.qualifiers {
				// And 32 for its place in a union of the unionCache.
				n += 64 + len(x.Type) + len(x.Value)
			}
		}
	}
	fields := func(fs []*field) {
		n += fieldListSize(fs) // the index Decide builds
		for _, f := range fs {
			n += 96 + len(f.text)
			if !f.res.set {
				n += 48 + len(f.res.patterns[0])
			}
			if !f.shared {
				parts(f.parts) // a definition's are counted once, below
			}
		}
	}
	for _, r := range p.records {
		n += 160 + len(r.reference)
		for _, c := range r.crawlers {
			n += 16 + len(c)
		}
		fields(r.fields)
		for _, s := range r.subs {
			n += 64
			for _, pp := range s.purposes {
				n += 16 + len(pp)
			}
			fields(s.fields)
		}
		for _, a := range r.actions {
			n += 64 + len(a.Path)
		}
	}
	n += cachedPlans * (96 + 24*len(p.records) + 176) // the plans of the agents last asked about, and a decision of each
	for name, set := range p.sets {
		n += 64 + len(name) + globIndexSize(set.patterns)
		for _, pat := range set.patterns {
			n += 16 + len(pat)
		}
	}
	for name, q := range p.qualified {
		n += 32 + len(name)
		parts(q)
	}
	for name, c := range p.composite {
		n += 32 + len(name)
		parts(c)
	}
	for _, pr := range p.problems {
		n += 64 + len(pr.Text) + len(pr.Reason)
	}
	return n
}
