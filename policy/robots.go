package policy

import (
	"encoding/binary"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/robotsguard/robotsguard/internal/ascii"
	"github.com/robotsguard/robotsguard/internal/match"
)

// Robots is a parsed robots.txt. It is immutable once Parse returns and safe
// for concurrent use by multiple goroutines. The matching structures for an
// agent's group are built on the first query for that agent and then shared.
//
// Its parts are carved out of one allocation (builder.finish): tail
// points to its start, where the rules lie (nrules), then the groups
// (ngroups), and from the next multiple of 8 bytes the agentExts (nexts),
// the text (ntext bytes, at textOff), and from the next multiple of 4
// bytes the agents (nagents), the lines that Unknown lists (nothers), the
// values of the Sitemap lines (nsitemaps) and of the first Host line when
// hasHost, the lines of the rules (ruleLines), and those of the agents
// (agentLines). A string it returns (a Sitemap URL, a rule's pattern, an
// agent) points into that allocation and keeps all of it alive.
type Robots struct {
	// What deciding a path reads comes first, in 32 bytes: in one cache
	// line, as a Robots takes 160 bytes, a size the allocator places at
	// multiples of 32.
	beh       *behaviour // the dialect's
	tail      unsafe.Pointer
	nrules    uint32
	textOff   uint32
	ntext     uint32
	ngroups   uint32
	index     agentIndex // the Groups asked for
	nexts     uint32
	nagents   uint32
	nothers   uint32
	nsitemaps uint32
	size      uint32 // bytes parsed (at most maxMaxSize)
	dialect   Dialect
	lineWidth uint8 // bytes per entry of ruleLines: 1, 2 or 4
	hasHost   bool
	truncated bool
}

// layout sets the counts of r, and its textOff for them.
func (r *Robots) layout(nrules, ngroups, nexts, ntext, nagents, nothers, nsitemaps int, hasHost bool) {
	r.nrules, r.ngroups, r.nexts, r.ntext = uint32(nrules), uint32(ngroups), uint32(nexts), uint32(ntext)
	r.nagents, r.nothers, r.nsitemaps, r.hasHost = uint32(nagents), uint32(nothers), uint32(nsitemaps), hasHost
	exts := (uintptr(nrules)*unsafe.Sizeof(match.Rule{}) + uintptr(ngroups)*unsafe.Sizeof(group{}) + 7) &^ 7
	// At most 2 GiB for the largest size limit: a rule, group or agentExt
	// takes fewer than twice the bytes of its lines.
	r.textOff = uint32(exts + uintptr(nexts)*unsafe.Sizeof(agentExt{}))
}

// offsets returns the offsets from tail of the agents, the lines Unknown
// lists, the Sitemap and Host values, and ruleLines.
func (r *Robots) offsets() (agents, others, values, lines uintptr) {
	agents = (uintptr(r.textOff) + uintptr(r.ntext) + 3) &^ 3
	others = agents + uintptr(r.nagents)*unsafe.Sizeof(agent{})
	values = others + uintptr(r.nothers)*unsafe.Sizeof(directive{})
	lines = values + uintptr(r.nvalues())*unsafe.Sizeof(span{})
	return
}

// rules returns the rules, in file order.
func (r *Robots) rules() []match.Rule {
	return unsafe.Slice((*match.Rule)(r.tail), r.nrules) // tail is nil when there is nothing
}

// set returns the rules as the matcher reads them.
func (r *Robots) set() match.Set {
	return match.Set{Text: r.text(), Rules: r.rules(), Opts: r.beh.match}
}

// groups returns the groups, in file order.
func (r *Robots) groups() []group {
	// With no groups there are no rules: tail.
	return unsafe.Slice((*group)(unsafe.Add(r.tail, uintptr(r.nrules)*unsafe.Sizeof(match.Rule{}))), r.ngroups)
}

// exts returns the Crawl-delay and Request-rate values of the agents.
func (r *Robots) exts() []agentExt {
	if r.nexts == 0 {
		return nil // no pointer past the end of the allocation
	}
	off := uintptr(r.textOff) - uintptr(r.nexts)*unsafe.Sizeof(agentExt{})
	return unsafe.Slice((*agentExt)(unsafe.Add(r.tail, off)), r.nexts)
}

// text returns every token, pattern and value, back to back.
func (r *Robots) text() string {
	if r.ntext == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Add(r.tail, r.textOff)), r.ntext)
}

// span locates a string in Robots.text.
type span struct{ off, n uint32 }

func (r *Robots) str(s span) string {
	if s.n == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Add(r.tail, uintptr(r.textOff)+uintptr(s.off))), s.n)
}

// agents returns the user-agent lines, in file order.
func (r *Robots) agents() []agent {
	if r.nagents == 0 {
		return nil
	}
	off, _, _, _ := r.offsets()
	return unsafe.Slice((*agent)(unsafe.Add(r.tail, off)), r.nagents)
}

// others returns the lines that Unknown lists.
func (r *Robots) others() []directive {
	if r.nothers == 0 {
		return nil
	}
	_, off, _, _ := r.offsets()
	return unsafe.Slice((*directive)(unsafe.Add(r.tail, off)), r.nothers)
}

// nvalues returns the number of Sitemap and Host values.
func (r *Robots) nvalues() uint32 {
	if r.hasHost {
		return r.nsitemaps + 1
	}
	return r.nsitemaps
}

// values returns the values of the Sitemap lines, then of the Host line.
func (r *Robots) values() []span {
	n := r.nvalues()
	if n == 0 {
		return nil
	}
	_, _, off, _ := r.offsets()
	return unsafe.Slice((*span)(unsafe.Add(r.tail, off)), n)
}

// ruleLines holds the line of each rule. With lineWidth 4, each is a
// uint32. With lineWidth 1 or 2, each is a uint8 or uint16 that adds to
// the line of the first rule of its block of lineBlock rules: those lines
// come first, a uint32 per block. The parser picks the least width that
// holds every line.
const lineBlock = 64

// lineBlocks returns the number of block lines before n rule lines of
// width w.
func lineBlocks(n, w int) int {
	if w == 4 {
		return 0
	}
	return (n + lineBlock - 1) / lineBlock
}

// agentLines calls f with the line of each agent in turn. The line of the
// first agent of a group is the group's; the line of each other is that of
// the agent before it plus a uvarint of agentLines, which follow ruleLines.
// If end is not nil, agentLines sets it to the offset of their end, the
// end of the allocation's contents.
func (r *Robots) agentLines(f func(line uint32), end *int) {
	_, _, _, lines := r.offsets()
	off := lines + uintptr(carvedLines(int(r.nrules), int(r.lineWidth)))
	groups := r.groups()
	gi, line := -1, uint32(0)
	for _, a := range r.agents() {
		if a.first() {
			gi++
			line = groups[gi].line
		} else {
			d, shift := uint32(0), 0
			for {
				c := *(*byte)(unsafe.Add(r.tail, off))
				off++
				d |= uint32(c&0x7f) << shift
				if c < 0x80 {
					break
				}
				shift += 7
			}
			line += d
		}
		f(line)
	}
	if end != nil {
		*end = int(off)
	}
}

// ruleLine returns the line of rules[i].
func (r *Robots) ruleLine(i int32) int {
	_, _, _, off := r.offsets()
	p := unsafe.Add(r.tail, off)
	if r.lineWidth == 4 {
		return int(*(*uint32)(unsafe.Add(p, 4*i)))
	}
	base := *(*uint32)(unsafe.Add(p, 4*(i/lineBlock)))
	p = unsafe.Add(p, 4*lineBlocks(int(r.nrules), int(r.lineWidth)))
	if r.lineWidth == 1 {
		return int(base + uint32(*(*uint8)(unsafe.Add(p, i))))
	}
	return int(base + uint32(*(*uint16)(unsafe.Add(p, 2*i))))
}

// group is one group of the file: consecutive user-agent lines and the
// rules that follow them. Its user-agent lines are those from the agent
// marked firstAgent that starts it to the next one so marked; its rules
// those from the end of the group before (or 0) to its end.
type group struct {
	line uint32 // first user-agent line
	end  uint32 // end of its range of Robots.rules
}

// groupRules returns the range of Robots.rules of groups[gi].
func (r *Robots) groupRules(gi uint32) (lo, hi uint32) {
	groups := r.groups()
	if gi > 0 {
		lo = groups[gi-1].end
	}
	return lo, groups[gi].end
}

// agent is a user-agent line. Its group is the last one whose first
// agent (marked firstAgent) is at or before it.
type agent struct {
	token span // lower-case product token (Koster1996: the whole value); empty when none
	// ext is 1 + the index in Robots.exts of the Crawl-delay and
	// Request-rate values that apply to the agent (those of the lines
	// below it in its group), or 0 when none does; bit starAgent is set
	// for a "*" line, and bit firstAgent for the first line of a group.
	ext uint32
}

const (
	starAgent  = 1 << 31 // marks the "*" lines in agent.ext
	firstAgent = 1 << 30 // marks the first line of each group in agent.ext
	extIndex   = firstAgent - 1
)

func (a *agent) star() bool { return a.ext&starAgent != 0 }

// first reports whether a is the first user-agent line of its group.
func (a *agent) first() bool { return a.ext&firstAgent != 0 }

// agentExt is the Crawl-delay and Request-rate values that apply to an
// agent.
type agentExt struct {
	crawlDelay float64 // seconds; negative when absent
	rate       Rate    // zero when absent
}

// noExt is the agentExt of an agent that no Crawl-delay or Request-rate
// line reaches.
var noExt = agentExt{crawlDelay: -1}

// ext returns the Crawl-delay and Request-rate values that apply to a.
func (r *Robots) ext(a *agent) agentExt {
	if i := a.ext & extIndex; i != 0 {
		return r.exts()[i-1]
	}
	return noExt
}

// merge folds the extension values of a into the running values d and rt:
// the politest wins, the longest delay and the slowest rate.
func (e agentExt) merge(d *float64, rt *Rate) {
	*d = max(*d, e.crawlDelay)
	if e.rate.Per != 0 && (rt.Per == 0 || e.rate.slower(*rt)) {
		*rt = e.rate
	}
}

// directive is a "key: value" line kept for callers.
type directive struct {
	line       uint32
	key, value span
}

// Parse parses a robots.txt body with the RFC9309 dialect and the default
// size limit: it is the zero Parser's Parse, the common case (another
// dialect or limit is Parser{Dialect: d, MaxSize: n}.Parse(body)). It
// never fails: content that is not robots.txt is ignored, so
// an HTML page parses to an empty set of rules that allows everything. (A
// fetcher decides what a bad response means before it parses; see the
// robotsguard package.) Parse does not retain body.
func Parse(body []byte) *Robots {
	return Parser{}.Parse(body)
}

// Parse parses body. It never fails, and does not retain body. An unknown
// Dialect value parses as RFC9309.
func (p Parser) Parse(body []byte) *Robots {
	b := builderPool.Get().(*Builder)
	b.init(p)
	// The builder's Line is needed only where blank lines end records;
	// scanning with a plain Handler spares a call per line.
	var h Handler = &b.b
	if b.b.beh.blankEndsRecord {
		h = b
	}
	b.End(min(len(body), p.maxSize()), p.Scan(body, h))
	r := b.Robots()
	builderPool.Put(b)
	return r
}

// A Builder is a LineHandler that builds a Robots from the directives fed
// to it: Parser.Parse is Parser.Scan into a Builder. Feed it with the Scan
// of a Parser of the same dialect as the one that made it (NewBuilder):
// it takes patterns as they arrive, normalised for that dialect, and some
// dialects read the Line calls too. A Scan may feed it alongside another
// handler, as acap.Parser.ParseAlong does.
//
// A Builder is not safe for concurrent use. Robots returns what was fed
// since the Builder was made or since the last call to Robots, and
// empties the Builder, which may then be fed another file.
type Builder struct {
	b         builder
	size      int
	truncated bool
}

// NewBuilder returns an empty Builder for the parser's dialect (RFC9309
// for an unknown Dialect value).
func (p Parser) NewBuilder() *Builder {
	b := new(Builder)
	b.init(p)
	return b
}

func (b *Builder) init(p Parser) {
	b.b.reset()
	b.b.beh = p.behaviour()
	b.b.dialect = p.Dialect
	if !p.Dialect.valid() {
		b.b.dialect = RFC9309
	}
	b.size, b.truncated = 0, false
}

// UserAgent implements Handler.
func (b *Builder) UserAgent(line int, value []byte) { b.b.UserAgent(line, value) }

// Allow implements Handler.
func (b *Builder) Allow(line int, pattern []byte) {
	b.b.order(line)
	b.b.Allow(line, pattern)
}

// Disallow implements Handler.
func (b *Builder) Disallow(line int, pattern []byte) {
	b.b.order(line)
	b.b.Disallow(line, pattern)
}

// Sitemap implements Handler.
func (b *Builder) Sitemap(line int, url []byte) { b.b.Sitemap(line, url) }

// Other implements Handler.
func (b *Builder) Other(line int, key, value []byte) { b.b.Other(line, key, value) }

// Line implements LineHandler: in dialects whose records end at blank
// lines (Koster1996), it ends them.
func (b *Builder) Line(info LineInfo) {
	if b.b.beh.blankEndsRecord {
		b.b.blankLine(info)
	}
}

// End implements EndHandler: the Robots built has the size and truncation
// that Scan reports.
func (b *Builder) End(size int, truncated bool) {
	b.size, b.truncated = size, truncated
}

// Robots returns the Robots built from the directives fed so far, and
// empties the Builder. Its Size and Truncated are those that the Scan
// that fed it reported to End (zero and false when End was not called).
func (b *Builder) Robots() *Robots {
	r := b.b.finish()
	r.size, r.truncated = uint32(b.size), b.truncated
	beh, d := b.b.beh, b.b.dialect
	b.b.reset()
	b.b.beh, b.b.dialect = beh, d
	b.size, b.truncated = 0, false
	return r
}

// Dialect returns the dialect the file was parsed with.
func (r *Robots) Dialect() Dialect { return r.dialect }

// Truncated reports whether the body was longer than the parser's size
// limit, so that its end was ignored.
func (r *Robots) Truncated() bool { return r.truncated }

// Size returns the number of bytes of the body that were parsed.
func (r *Robots) Size() int { return int(r.size) }

// Sitemaps returns the absolute URLs of the file's Sitemap lines, in file
// order. Sitemap lines apply to every agent, wherever they appear. Values
// that are not absolute URLs are listed by Unknown instead.
func (r *Robots) Sitemaps() []string {
	out := make([]string, r.nsitemaps)
	for i, v := range r.values()[:r.nsitemaps] {
		out[i] = r.str(v)
	}
	return out
}

// Host returns the value of the first Host line (a Yandex extension naming
// the preferred host), or "".
func (r *Robots) Host() string {
	if r.hasHost {
		return r.str(r.values()[r.nsitemaps])
	}
	return ""
}

// MemSize returns an estimate of the memory r holds, in bytes: the parsed
// file, and the matchers built so far (one is built on the first query for
// an agent's group). A cache of parsed files can bound itself with it.
func (r *Robots) MemSize() int {
	n := allocSize(int(unsafe.Sizeof(*r)))
	if r.tail != nil {
		var off int
		r.agentLines(func(uint32) {}, &off)
		n += allocSize((off + 7) &^ 7)
	}
	var seen rulesSet
	add := func(g *Group) {
		if g == nil {
			return
		}
		if g.ext != nil && !r.inExts(g.ext) {
			n += allocSize(int(unsafe.Sizeof(*g.ext)))
		}
		if !seen.add(g.rules) {
			n += allocSize(int(unsafe.Sizeof(*g)))
			return
		}
		n += allocSize(int(unsafe.Sizeof(groupAndRules{})))
		if g.more != nil {
			n += allocSize(int(unsafe.Sizeof(*g.more))) + allocSize(4*cap(*g.more))
		}
		if m := g.m.Load(); m != nil && m != flatMatcher {
			n += m.MemSize()
		}
	}
	star := r.index.star.Load()
	add(star)
	for e := r.index.built.Load(); e != nil; e = e.next {
		if e != &r.index.first {
			n += allocSize(int(unsafe.Sizeof(*e)))
		}
		if e.g != star {
			add(e.g)
		}
		if !inText(r.text(), e.token) {
			// A copy; one of a few bytes keeps its 16-byte block of the
			// tiny allocator.
			n += allocSize(max(len(e.token), 16))
		}
	}
	if x := r.index.records.Load(); x != nil { // the 1996 draft's records
		n += allocSize(int(unsafe.Sizeof(*x))) + allocSize(8*len(x.groups))
		for _, g := range x.groups {
			add(g)
		}
		if !seen.has(x.star.rules) {
			add(x.star)
		}
	}
	return n
}

// rulesSet is a set of *rules: the first few in an array (a Robots
// usually has a group or two built), the others in a map.
type rulesSet struct {
	few  [4]*rules
	nfew int
	many map[*rules]bool
}

// has reports whether x is in s.
func (s *rulesSet) has(x *rules) bool {
	for _, y := range s.few[:s.nfew] {
		if y == x {
			return true
		}
	}
	return s.many[x]
}

// add adds x to s, and reports whether it was not in s.
func (s *rulesSet) add(x *rules) bool {
	switch {
	case s.has(x):
		return false
	case s.nfew < len(s.few):
		s.few[s.nfew] = x
		s.nfew++
	case s.many == nil:
		s.many = map[*rules]bool{x: true}
	default:
		s.many[x] = true
	}
	return true
}

// inExts reports whether e is one of r.exts.
func (r *Robots) inExts(e *agentExt) bool {
	exts := r.exts()
	return len(exts) > 0 && uintptr(unsafe.Pointer(e))-uintptr(unsafe.Pointer(&exts[0])) < uintptr(len(exts))*unsafe.Sizeof(*e)
}

// inText reports whether s is empty or a part of text.
func inText(text, s string) bool {
	p, t := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
	return len(s) == 0 || t <= p && p < t+uintptr(len(text))
}

// sizeClasses are the sizes the Go allocator rounds small allocations up
// to (runtime/sizeclasses.go), up to 32 KiB.
var sizeClasses = [...]uint16{
	8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224,
	240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896,
	1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456,
	4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264,
	28672, 32768,
}

// smallSizeClass[(n+7)/8] is the size class of n bytes, for n up to
// smallSizes: the size classes up to it are multiples of 8, so that n and
// n rounded up to a multiple of 8 have the same.
const smallSizes = 1024

var smallSizeClass = func() (t [smallSizes/8 + 1]uint16) {
	for i := range t {
		c, _ := slices.BinarySearch(sizeClasses[:], uint16(i*8))
		t[i] = sizeClasses[c]
	}
	return t
}()

// allocSize returns the memory an allocation of n bytes takes: n rounded up
// to its size class, or to whole 8 KiB pages past 32 KiB.
func allocSize(n int) int {
	if n <= 0 {
		return 0
	}
	if n <= smallSizes {
		return int(smallSizeClass[(n+7)>>3])
	}
	if n > int(sizeClasses[len(sizeClasses)-1]) {
		return (n + 8191) &^ 8191
	}
	i, _ := slices.BinarySearch(sizeClasses[:], uint16(n))
	return int(sizeClasses[i])
}

// A Directive is a line of the file that the dialect does not interpret.
type Directive struct {
	Line  int
	Key   string // as written
	Value string
}

// Unknown returns, in file order, the "key: value" lines that the dialect
// does not interpret: unknown keys, rules outside any group, Sitemap values
// that are not absolute URLs, and Crawl-delay or Request-rate lines that are
// outside a group or whose value does not parse. A linter reports them.
func (r *Robots) Unknown() []Directive {
	out := make([]Directive, r.nothers)
	for i, d := range r.others() {
		out[i] = Directive{Line: int(d.line), Key: r.str(d.key), Value: r.str(d.value)}
	}
	return out
}

// A Record is one group of the file as written: its user-agent lines and
// the rules that follow them. Records that name the same agent are listed
// separately, as in the file; a crawler follows their union (see
// Robots.Group, which returns the Group an agent follows).
type Record struct {
	Line   int // line of the first user-agent line
	Agents []AgentInfo
	Rules  []Rule
}

// An AgentInfo is a user-agent line and the extension lines that apply to
// it.
type AgentInfo struct {
	Token       string // lower-case product token (Koster1996: the whole value); "*" for the "*" group
	Line        int
	CrawlDelay  time.Duration // zero when absent
	RequestRate Rate          // zero when absent
}

// Records returns the groups of the file as written, in file order.
func (r *Robots) Records() []Record {
	groups := r.groups()
	out := make([]Record, len(groups))
	var lines []uint32
	r.agentLines(func(l uint32) { lines = append(lines, l) }, nil)
	gi := -1
	for i, a := range r.agents() {
		if a.first() {
			gi++
		}
		e := r.ext(&a)
		ai := AgentInfo{Token: r.str(a.token), Line: int(lines[i]), RequestRate: e.rate}
		if a.star() {
			ai.Token = "*"
		}
		if e.crawlDelay >= 0 {
			ai.CrawlDelay = seconds(e.crawlDelay)
		}
		out[gi].Agents = append(out[gi].Agents, ai)
	}
	for i := range groups {
		out[i].Line = int(groups[i].line)
		lo, hi := r.groupRules(uint32(i))
		for j := lo; j < hi; j++ {
			out[i].Rules = append(out[i].Rules, r.rule(int32(j)))
		}
	}
	return out
}

// rule returns the exported form of rules[i].
func (r *Robots) rule(i int32) Rule {
	rl := &r.rules()[i]
	return Rule{Allow: rl.Allow(), Pattern: rl.Pattern(r.text()), Line: r.ruleLine(i)}
}

// builder is the Handler inside a Builder. Its slices are scratch space,
// reused through builderPool and by Builders fed several files; finish
// copies them into one allocation.
type builder struct {
	text  []byte
	rules []match.Rule
	lines []uint32 // of the rules
	// agentLines holds the lines of the agents that do not start a
	// group, each a uvarint above the agent's before (Robots.agentLines);
	// agentLine is the line of the last agent.
	agentLines []byte
	agentLine  uint32
	groups     []group
	agents     []agent
	sitemaps   []span // their values
	others     []directive
	host       span // the value of the first Host line
	hostSet    bool
	exts       []extension
	agentExts  []agentExt // the distinct values of the agents' exts, by applyExtensions
	dialect    Dialect
	beh        *behaviour
	// unordered is true when a rule came with a line below the line of the
	// rule before: Scan gives them in order, but a Builder may be fed
	// directly.
	unordered bool
	// taking is true while the current group still takes user-agent
	// lines, that is before its first rule.
	taking bool
	// closed is true after a blank line ended a record (under
	// behaviour.blankEndsRecord), until the next user-agent line: rules
	// there belong to no record.
	closed bool
}

// order notes a rule's line that is below the line of the rule before.
func (b *builder) order(line int) {
	if n := len(b.lines); n > 0 && uint32(line) < b.lines[n-1] {
		b.unordered = true
	}
}

// blankLine ends the current record at a blank line, for dialects whose
// records end there.
func (b *builder) blankLine(info LineInfo) {
	if info.Empty && len(b.groups) > 0 {
		b.taking, b.closed = false, true
	}
}

// extension is a Crawl-delay or Request-rate line: it applies to the
// agents of its group up to index upto (those above it).
type extension struct {
	upto  uint32
	delay float64 // seconds; negative for a Request-rate line
	rate  Rate
}

var builderPool = sync.Pool{New: func() any { return new(Builder) }}

func (b *builder) reset() {
	*b = builder{
		text:  b.text[:0],
		rules: b.rules[:0],
		lines: b.lines[:0],

		agentLines: b.agentLines[:0],
		groups:     b.groups[:0],
		agents:     b.agents[:0],
		sitemaps:   b.sitemaps[:0],
		others:     b.others[:0],
		exts:       b.exts[:0],

		agentExts: b.agentExts[:0],
	}
}

func (b *builder) add(s []byte) span {
	off := len(b.text)
	b.text = append(b.text, s...)
	return span{uint32(off), uint32(len(s))}
}

func (b *builder) addLower(s []byte) span {
	off := len(b.text)
	for _, c := range s {
		b.text = append(b.text, ascii.Lower(c))
	}
	return span{uint32(off), uint32(len(s))}
}

func (b *builder) UserAgent(line int, value []byte) {
	var first uint32
	if !b.taking {
		b.groups = append(b.groups, group{line: uint32(line), end: uint32(len(b.rules))})
		b.taking = true
		first = firstAgent
	}
	b.closed = false
	tok, star := groupToken(value)
	if b.beh.substringAgents {
		// The robot's name is matched anywhere in the value.
		tok, star = value, len(value) == 1 && value[0] == '*'
	}
	if first == 0 {
		b.agentLines = binary.AppendUvarint(b.agentLines, uint64(uint32(line)-b.agentLine))
	}
	b.agentLine = uint32(line)
	a := agent{token: b.addLower(tok), ext: first}
	if star {
		a.ext |= starAgent
	}
	b.agents = append(b.agents, a)
}

func (b *builder) Allow(line int, pattern []byte)    { b.rule(line, pattern, true) }
func (b *builder) Disallow(line int, pattern []byte) { b.rule(line, pattern, false) }

func (b *builder) rule(line int, pattern []byte, allow bool) {
	if len(b.groups) == 0 || b.closed {
		// RFC 9309 §2.2.2: rules outside any group are ignored.
		key := "disallow"
		if allow {
			key = "allow"
		}
		b.other(line, []byte(key), pattern)
		return
	}
	b.taking = false
	b.rules = append(b.rules, match.NewRule(b.add(pattern).off, pattern, allow, b.beh.match.Wildcards))
	b.lines = append(b.lines, uint32(line))
	b.groups[len(b.groups)-1].end = uint32(len(b.rules))
}

func (b *builder) Sitemap(line int, url []byte) {
	if !isAbsoluteURL(url) {
		b.other(line, []byte("sitemap"), url)
		return
	}
	b.sitemaps = append(b.sitemaps, b.add(url))
}

func (b *builder) Other(line int, key, value []byte) {
	// Crawl-delay and Request-rate apply to the user-agent lines above them
	// in their group. (A later user-agent line still joins the group, for
	// its rules: other records do not end a group, RFC 9309 §2.2.4.) They
	// are recorded with the agents they reach, and applied by finish.
	inGroup := len(b.groups) > 0 && !b.closed
	switch {
	case ascii.EqualFold(key, "crawl-delay"):
		if d, ok := parseCrawlDelay(value); ok && inGroup {
			b.exts = append(b.exts, extension{upto: uint32(len(b.agents)), delay: d})
			return
		}
	case ascii.EqualFold(key, "request-rate"):
		if rt, ok := parseRequestRate(value); ok && inGroup {
			b.exts = append(b.exts, extension{upto: uint32(len(b.agents)), delay: -1, rate: rt})
			return
		}
	case ascii.EqualFold(key, "host"):
		if len(value) > 0 {
			if !b.hostSet {
				b.host = b.add(value)
				b.hostSet = true
			}
			return
		}
	}
	b.other(line, key, value)
}

func (b *builder) other(line int, key, value []byte) {
	b.others = append(b.others, directive{line: uint32(line), key: b.add(key), value: b.add(value)})
}

// finish returns the Robots built: the scratch slices are copied into one
// allocation, which holds no pointers (the GC does not scan it).
func (b *builder) finish() *Robots {
	b.applyExtensions()
	r := &Robots{dialect: b.dialect, beh: b.beh}
	r.layout(len(b.rules), len(b.groups), len(b.agentExts), len(b.text), len(b.agents), len(b.others), len(b.sitemaps), b.hostSet)
	r.lineWidth = lineWidth(b.lines, !b.unordered)
	_, _, _, lines := r.offsets()
	size := int(lines) + carvedLines(len(b.lines), int(r.lineWidth)) + len(b.agentLines)
	if size == 0 {
		return r
	}
	// The records are multiples of 4 bytes long and 4-aligned, but for
	// the agentExts, which need at most the alignment of a uint64, the
	// text and ruleLines: carved in this order out of a []uint64, with
	// padding before the agentExts and after the text, each is aligned.
	c := carver{base: unsafe.Pointer(unsafe.SliceData(make([]uint64, (size+7)/8)))}
	r.tail = c.base
	carve(&c, b.rules)
	carve(&c, b.groups)
	c.off = uintptr(r.textOff) - uintptr(len(b.agentExts))*unsafe.Sizeof(agentExt{})
	carve(&c, b.agentExts)
	carve(&c, b.text)
	c.off = (c.off + 3) &^ 3
	carve(&c, b.agents)
	carve(&c, b.others)
	carve(&c, b.sitemaps)
	if b.hostSet {
		carve(&c, []span{b.host})
	}
	b.carveLines(&c, int(r.lineWidth))
	carve(&c, b.agentLines)
	return r
}

// lineWidth returns the least width of ruleLines entries that holds
// lines: 1 or 2 when every line exceeds the first of its block by less
// than 1<<8 or 1<<16, else 4. When ordered, the lines increase, so that
// the last of a block exceeds its first the most.
func lineWidth(lines []uint32, ordered bool) uint8 {
	if !ordered {
		return 4
	}
	w := uint8(1)
	for i := 0; i < len(lines); i += lineBlock {
		switch d := lines[min(i+lineBlock, len(lines))-1] - lines[i]; {
		case d >= 1<<16:
			return 4
		case d >= 1<<8:
			w = 2
		}
	}
	return w
}

// carvedLines returns the size of the ruleLines of n rules in width w.
func carvedLines(n, w int) int { return 4*lineBlocks(n, w) + n*w }

// carveLines copies the lines of the rules to ruleLines in width w.
func (b *builder) carveLines(c *carver, w int) {
	if w == 4 || len(b.lines) == 0 {
		carve(c, b.lines)
		return
	}
	bases := make([]uint32, 0, 8) // on the stack for up to 512 rules
	for i := 0; i < len(b.lines); i += lineBlock {
		bases = append(bases, b.lines[i])
	}
	carve(c, bases)
	if w == 1 {
		carveDeltas[uint8](c, b.lines, bases)
	} else {
		carveDeltas[uint16](c, b.lines, bases)
	}
}

// carveDeltas carves each of lines less the first of its block (bases),
// in type T, which holds them. lines is not empty.
func carveDeltas[T uint8 | uint16](c *carver, lines, bases []uint32) {
	dst := unsafe.Slice((*T)(unsafe.Add(c.base, c.off)), len(lines))
	for k, base := range bases {
		lo := k * lineBlock
		src := lines[lo:min(lo+lineBlock, len(lines))]
		d := dst[lo : lo+len(src)]
		for i, l := range src {
			d[i] = T(l - base)
		}
	}
	c.off += uintptr(len(dst)) * unsafe.Sizeof(dst[0])
}

// carver hands out consecutive parts of an allocation, from offset off.
// (It makes no pointer to the end of the allocation, which may be the
// start of another.)
type carver struct {
	base unsafe.Pointer
	off  uintptr
}

// carve returns a copy of src in the next part of c's allocation, or nil
// when src is empty. T holds no pointers.
func carve[T any](c *carver, src []T) []T {
	if len(src) == 0 {
		return nil
	}
	dst := unsafe.Slice((*T)(unsafe.Add(c.base, c.off)), len(src))
	copy(dst, src)
	c.off += uintptr(len(src)) * unsafe.Sizeof(src[0])
	return dst
}

// applyExtensions gives every agent the Crawl-delay and Request-rate lines
// that reach it, in one backward pass: the lines of a group come
// in file order, each reaching at least the agents of the one before, so
// walking the agents from the last, the lines that reach an agent are
// those already met plus those whose reach starts there. Consecutive
// agents reached by the same lines share their agentExt.
func (b *builder) applyExtensions() {
	if len(b.exts) == 0 {
		return
	}
	i := len(b.exts) - 1
	e := noExt
	for a := len(b.agents) - 1; a >= 0; a-- {
		met := false
		for ; i >= 0 && int(b.exts[i].upto) > a; i-- {
			x := &b.exts[i]
			agentExt{crawlDelay: x.delay, rate: x.rate}.merge(&e.crawlDelay, &e.rate)
			met = true
		}
		if e != noExt {
			if met {
				b.agentExts = append(b.agentExts, e)
			}
			b.agents[a].ext |= uint32(len(b.agentExts))
		}
		if b.agents[a].first() {
			e = noExt // the lines of a group reach none of the group before
		}
	}
}

// isAbsoluteURL reports whether s starts with a URI scheme followed by "://"
// and a non-empty authority (RFC 3986 §3).
func isAbsoluteURL(s []byte) bool {
	i := 0
	for i < len(s) {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			i++
			continue
		}
		break
	}
	rest := s[i:]
	return i > 0 && len(rest) > 3 && string(rest[:3]) == "://" && rest[3] != '/'
}
