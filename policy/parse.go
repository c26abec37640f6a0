package policy

import (
	"bytes"
	"encoding/binary"
	"github.com/robotsguard/robotsguard/internal/ascii"
)

// DefaultMaxSize is the number of bytes of a robots.txt body that are parsed
// when Parser.MaxSize is zero: 500 KiB, the least RFC 9309 §2.5 allows and
// what Google enforces.
const DefaultMaxSize = 500 << 10

// maxMaxSize bounds Parser.MaxSize so that offsets fit in 32 bits.
const maxMaxSize = 1 << 30

// googleMaxLineLen is the length of the line buffer of Google's library
// (8 × 2083 bytes). It keeps the first googleMaxLineLen-1 bytes of a line.
const googleMaxLineLen = 2083 * 8

// A Parser reads robots.txt bodies. Its zero value parses with the RFC9309
// dialect and the default size limit. A Parser is a value: it may be copied
// and used from several goroutines at once.
type Parser struct {
	// Dialect selects the syntax and matching semantics. The zero value is
	// RFC9309.
	Dialect Dialect

	// MaxSize is the number of bytes of a body that are parsed; the rest
	// is ignored, and so is the line the limit cuts through, so that a cut
	// never turns one rule into another. Zero, and any value below
	// DefaultMaxSize, mean DefaultMaxSize (RFC 9309 §2.5 requires at least
	// 500 KiB). Values above 1 GiB mean 1 GiB.
	MaxSize int
}

// behaviour returns the behaviour of the parser's dialect; an unknown
// Dialect value is RFC9309.
func (p *Parser) behaviour() *behaviour {
	if !p.Dialect.valid() {
		return &dialects[RFC9309]
	}
	return &dialects[p.Dialect]
}

func (p *Parser) maxSize() int {
	switch {
	case p.MaxSize < DefaultMaxSize:
		return DefaultMaxSize
	case p.MaxSize > maxMaxSize:
		return maxMaxSize
	}
	return p.MaxSize
}

// A Handler receives the directives of a robots.txt from Parser.Scan, in
// file order, each with its 1-based line number. Byte slices are valid only
// during the call: copy what you keep.
//
// Allow and Disallow patterns arrive normalised for the parser's dialect
// (percent-encoding, see the package documentation). User-agent, Sitemap
// and other values arrive as written, without surrounding whitespace.
type Handler interface {
	UserAgent(line int, value []byte)
	Allow(line int, pattern []byte)
	Disallow(line int, pattern []byte)
	Sitemap(line int, url []byte)
	// Other receives any other "key: value" line, e.g. Crawl-delay.
	Other(line int, key, value []byte)
}

// A LineHandler is a Handler that also wants to know how every line of the
// file was read, including empty lines and lines that hold no directive.
// Scan calls Line for every line, after the directive callback if any.
type LineHandler interface {
	Handler
	Line(info LineInfo)
}

// An EndHandler is a Handler that Scan also tells, once after the last
// line, how much of the body it parsed: size is the number of bytes of the
// body within the size limit, and truncated reports whether the body was
// longer. Builder is one.
type EndHandler interface {
	Handler
	End(size int, truncated bool)
}

// Kind tells which directive a line holds.
type Kind uint8

const (
	KindNone      Kind = iota // no directive: empty, comment, or not "key: value"
	KindUserAgent             // user-agent
	KindAllow                 // allow
	KindDisallow              // disallow
	KindSitemap               // sitemap
	KindOther                 // any other key
)

var kindNames = [...]string{"none", "user-agent", "allow", "disallow", "sitemap", "other"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// LineInfo describes how one line was read. The fields mirror the line
// metadata of Google's reporting library.
type LineInfo struct {
	Line int // 1-based line number
	// Text is the line without its comment and surrounding whitespace.
	// It is valid only during the call to LineHandler.Line.
	Text         []byte
	Kind         Kind // directive held by the line
	Empty        bool // the line is empty or only whitespace
	Comment      bool // the line holds only a comment
	HasComment   bool // the line has a comment ('#' to the end of the line)
	HasDirective bool // the line has the form "key: value" (Kind may still be KindOther)
	Typo         bool // the key is an accepted misspelling, e.g. "disalow" (Google dialect; "site-map" in both)
	TooLong      bool // the line exceeded Google's line limit and was cut (Google dialect)
	MissingColon bool // key and value are separated by whitespace only (Google dialect)
}

// Scan parses body and calls h for each directive, in file order. It never
// fails: lines that cannot be read are skipped (and reported to a
// LineHandler). It reports whether the body was cut at the size limit, as
// it does to an EndHandler.
func (p Parser) Scan(body []byte, h Handler) (truncated bool) {
	size := min(len(body), p.maxSize())
	body, truncated = p.limit(body)
	lh, _ := h.(LineHandler)
	s := scanner{beh: p.behaviour(), h: h, lh: lh}
	s.b, _ = h.(*builder)
	s.run(body)
	if eh, ok := h.(EndHandler); ok {
		eh.End(size, truncated)
	}
	return truncated
}

// limit cuts body at the size limit, and then at the end of the last whole
// line.
func (p *Parser) limit(body []byte) ([]byte, bool) {
	max := p.maxSize()
	if len(body) <= max {
		return body, false
	}
	body = body[:max]
	if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
		return body[:i+1], true
	}
	return body[:0], true
}

// scanner splits a body into lines and lines into directives.
type scanner struct {
	beh *behaviour
	h   Handler
	lh  LineHandler
	b   *builder // h, when it is Parse's builder: called directly
	buf []byte   // scratch for normalised patterns
}

var bom = [3]byte{0xEF, 0xBB, 0xBF}

func (s *scanner) run(body []byte) {
	// Skip a byte-order mark, or the part of one that starts the body, as
	// Google's library does.
	for i := 0; i < len(bom) && len(body) > 0 && body[0] == bom[i]; i++ {
		body = body[1:]
	}
	// Lines end at LF, CR or CRLF. The next LF and the next CR are found
	// with the fast search, each again only once the line passes it, so
	// that a file of one kind of line break is not searched for the other
	// on every line.
	// Without a LineHandler, and in a dialect that reads every line whole
	// and always wants the colon, a line is read in one call (directive),
	// and the next '#' is found as the line breaks are: most lines have
	// none, and a file's comments are few, so that most lines are not
	// searched for one.
	fast := s.lh == nil && s.beh.maxLine == 0 && !s.beh.nulEndsLine && !s.beh.missingColon
	line, pos := 0, 0
	lf, cr := -2, -2 // index of the next LF and CR at or after pos; -1 for none, -2 for not searched
	hash := -2       // index of the next '#' at or after pos, the same way (fast only)
	for {
		if lf != -1 && lf < pos {
			lf = indexFrom(body, pos, '\n')
		}
		if cr != -1 && cr < pos {
			cr = indexFrom(body, pos, '\r')
		}
		end := lf
		if cr >= 0 && (end < 0 || cr < end) {
			end = cr
		}
		last := end < 0
		if last {
			end = len(body)
		}
		line++
		if fast {
			if hash != -1 && hash < pos {
				hash = indexFrom(body, pos, '#')
			}
			c := -1
			if hash >= 0 && hash < end {
				c = hash - pos
			}
			s.directive(line, body[pos:end], c)
		} else {
			s.line(line, body[pos:end])
		}
		if last {
			return
		}
		pos = end + 1
		if body[end] == '\r' && pos < len(body) && body[pos] == '\n' {
			pos++ // CRLF is one line break
		}
	}
}

// indexFrom returns the index of the first c in b at or after from, or -1.
func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// line parses one line, without its line break.
func (s *scanner) line(num int, b []byte) {
	info := LineInfo{Line: num}
	if max := s.beh.maxLine; max > 0 && len(b) > max {
		b = b[:max]
		info.TooLong = true
	}
	if s.beh.nulEndsLine {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
	}
	key, value, ok := s.split(b, &info)
	if ok {
		s.emit(num, key, value, &info)
	}
	if s.lh != nil {
		s.lh.Line(info)
	}
}

// directive reads line b as line does, for a scanner without a
// LineHandler, in a dialect that reads every line whole and always wants
// the colon: it calls the handler for the directive b holds, if any. hash
// is the index of the first '#' in b, or -1 when b has none.
func (s *scanner) directive(num int, b []byte, hash int) {
	// Most lines start with "Disallow:", "Allow:" or "User-agent:", in
	// any case: a key that classify reads as such, where the colon ends
	// it.
	var kind Kind
	start, k, sep := 0, 0, 0
	switch {
	case len(b) > 8 && b[8] == ':' && wordDisallow.is(b[:8]):
		kind, k, sep = KindDisallow, 8, 8
	case len(b) > 5 && b[5] == ':' && wordAllow.is(b[:5]):
		kind, k, sep = KindAllow, 5, 5
	case len(b) > 10 && b[10] == ':' && wordUserAge.is(b[:8]) && wordEnt.is(b[7:10]):
		kind, k, sep = KindUserAgent, 10, 10
	default:
		// The key runs from the first byte that is not whitespace to
		// the colon, unless a comment starts before it.
		for start < len(b) && space[b[start]] {
			start++
		}
		sep = start
		for ; sep < len(b) && b[sep] != ':'; sep++ {
			if b[sep] == '#' {
				return
			}
		}
		k = sep
		for k > start && space[b[k-1]] {
			k--
		}
		if sep == len(b) || k == start {
			return // no colon, or no key
		}
		kind, _ = s.classify(b[start:k])
	}
	// The key holds no '#': a comment starts after the colon, if any.
	v := b[sep+1:]
	if hash >= 0 {
		v = b[sep+1 : hash]
	}
	i, j := 0, len(v)
	for i < j && space[v[i]] {
		i++
	}
	for j > i && space[v[j-1]] {
		j--
	}
	s.call(num, kind, b[start:k], v[i:j])
}

// space tells the bytes that ascii.IsSpace reports.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// split finds the key and value of a "key: value" line, with comments and
// surrounding whitespace removed, and records what it saw in info.
func (s *scanner) split(b []byte, info *LineInfo) (key, value []byte, ok bool) {
	// One pass finds the first colon, unless a comment starts before it;
	// keys are short, and the rest is searched for the comment with the
	// fast search.
	sep := -1
	for i, c := range b {
		if c == ':' {
			sep = i
			break
		}
		if c == '#' {
			info.HasComment = true
			b = b[:i]
			break
		}
	}
	if sep >= 0 {
		if i := bytes.IndexByte(b[sep+1:], '#'); i >= 0 {
			info.HasComment = true
			b = b[:sep+1+i]
		}
	}
	start, end := 0, len(b)
	for start < end && space[b[start]] {
		start++
	}
	for end > start && space[b[end-1]] {
		end--
	}
	info.Text = b[start:end]
	if start == end {
		if info.HasComment {
			info.Comment = true
		} else {
			info.Empty = true
		}
		return nil, nil, false
	}
	if sep < 0 {
		return s.splitMissingColon(info)
	}
	// The colon is within the text, which starts and ends with other
	// bytes than whitespace.
	k := sep
	for k > start && space[b[k-1]] {
		k--
	}
	if k == start {
		return nil, nil, false
	}
	v := sep + 1
	for v < end && space[b[v]] {
		v++
	}
	info.HasDirective = true
	return b[start:k], b[v:end], true
}

// splitMissingColon splits info.Text, a line without a colon, when the
// dialect reads whitespace as the colon and the line has exactly two
// words.
func (s *scanner) splitMissingColon(info *LineInfo) (key, value []byte, ok bool) {
	b := info.Text
	if !s.beh.missingColon {
		return nil, nil, false
	}
	sep := bytes.IndexAny(b, " \t")
	if sep < 0 {
		return nil, nil, false
	}
	if bytes.ContainsAny(ascii.TrimSpace(b[sep:]), " \t") {
		return nil, nil, false
	}
	info.MissingColon = true
	// The text starts with a word: the key is not empty.
	info.HasDirective = true
	return ascii.TrimSpace(b[:sep]), ascii.TrimSpace(b[sep+1:]), true
}

// emit classifies key and calls the handler.
func (s *scanner) emit(num int, key, value []byte, info *LineInfo) {
	kind, typo := s.classify(key)
	info.Kind, info.Typo = kind, typo
	s.call(num, kind, key, value)
}

// call calls the handler for the directive of kind kind.
func (s *scanner) call(num int, kind Kind, key, value []byte) {
	if b := s.b; b != nil {
		switch kind {
		case KindUserAgent:
			b.UserAgent(num, value)
		case KindAllow:
			b.rule(num, s.pattern(value), true)
		case KindDisallow:
			b.rule(num, s.pattern(value), false)
		case KindSitemap:
			b.Sitemap(num, value)
		default:
			b.Other(num, key, value)
		}
		return
	}
	switch kind {
	case KindUserAgent:
		s.h.UserAgent(num, value)
	case KindAllow:
		s.h.Allow(num, s.pattern(value))
	case KindDisallow:
		s.h.Disallow(num, s.pattern(value))
	case KindSitemap:
		s.h.Sitemap(num, value)
	default:
		s.h.Other(num, key, value)
	}
}

// pattern normalises a rule's value for the dialect.
func (s *scanner) pattern(v []byte) []byte {
	if !s.beh.encoding.needsPattern(v) {
		return v
	}
	s.buf = s.beh.encoding.appendPattern(s.buf[:0], v)
	return s.buf
}

// classify tells which directive key names. RFC9309 compares whole keys,
// ignoring case, and accepts "site-map" (RFC 9309 §2.2.4 lets crawlers be
// lenient with other records). Google compares prefixes and accepts its
// list of typos, as its library does (behaviour.lenientKeys).
func (s *scanner) classify(key []byte) (k Kind, typo bool) {
	if s.beh.lenientKeys {
		return classifyGoogle(key)
	}
	// The length tells which key it can be, and a word or two compares
	// it (see a foldWord).
	switch len(key) {
	case len("user-agent"):
		if wordUserAge.is(key[:8]) && wordEnt.is(key[7:]) {
			return KindUserAgent, false
		}
	case len("allow"):
		if wordAllow.is(key) {
			return KindAllow, false
		}
	case len("disallow"): // and "site-map"
		if wordDisallow.is(key) {
			return KindDisallow, false
		}
		if wordSiteMap.is(key) {
			return KindSitemap, true
		}
	case len("sitemap"):
		if wordSitemap.is(key) {
			return KindSitemap, false
		}
	}
	return KindOther, false
}

// A foldWord compares byte strings with a word of 3 to 8 bytes, in lower
// case, of letters and '-' alone, ignoring the case of their ASCII
// letters, as ascii.EqualFold does, in a few instructions: a byte with
// its 0x20 bit set equals a letter only when it is that letter in either
// case, and a '-' must be itself.
type foldWord struct {
	w, mask uint64 // the word, little-endian, and the 0x20 bits of its letters
	n       int    // its length
}

var (
	wordUserAge  = newFoldWord("user-age")
	wordEnt      = newFoldWord("ent")
	wordAllow    = newFoldWord("allow")
	wordDisallow = newFoldWord("disallow")
	wordSiteMap  = newFoldWord("site-map")
	wordSitemap  = newFoldWord("sitemap")
)

func newFoldWord(word string) foldWord {
	f := foldWord{n: len(word)}
	for i := len(word) - 1; i >= 0; i-- {
		f.w, f.mask = f.w<<8|uint64(word[i]), f.mask<<8
		if word[i] != '-' {
			f.mask |= 0x20
		}
	}
	return f
}

// is reports whether b is the word, ignoring the case of its letters.
func (f *foldWord) is(b []byte) bool {
	return len(b) == f.n && load(b)|f.mask == f.w
}

// load returns the 3 to 8 bytes of b as a little-endian word.
func load(b []byte) uint64 {
	switch {
	case len(b) == 8:
		return binary.LittleEndian.Uint64(b)
	case len(b) >= 4:
		// Two overlapping 4-byte words.
		n := len(b)
		return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<(8*(n-4))
	}
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16
}

func classifyGoogle(key []byte) (k Kind, typo bool) {
	switch {
	case ascii.HasPrefixFold(key, "user-agent"):
		return KindUserAgent, false
	case ascii.HasPrefixFold(key, "useragent"), ascii.HasPrefixFold(key, "user agent"):
		return KindUserAgent, true
	case ascii.HasPrefixFold(key, "allow"):
		return KindAllow, false
	case ascii.HasPrefixFold(key, "disallow"):
		return KindDisallow, false
	case ascii.HasPrefixFold(key, "dissallow"), ascii.HasPrefixFold(key, "dissalow"),
		ascii.HasPrefixFold(key, "disalow"), ascii.HasPrefixFold(key, "diasllow"),
		ascii.HasPrefixFold(key, "disallaw"):
		return KindDisallow, true
	case ascii.HasPrefixFold(key, "sitemap"):
		return KindSitemap, false
	case ascii.HasPrefixFold(key, "site-map"):
		return KindSitemap, true
	}
	return KindOther, false
}
