package sitemap

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"strings"
)

// Limits of Sitemaps 0.9 ("Sitemap file location", "XML tag
// definitions"), and of this package's own.
const (
	DefaultMaxURLs  = 50_000   // entries in one file
	DefaultMaxBytes = 50 << 20 // bytes of one file, uncompressed
	maxLoc          = 2048     // a <loc> has fewer characters than this
	maxToken        = 64 << 10 // bytes of one element's text or one line
	maxImages       = 1000     // image:image elements of one <url>
	maxAlternates   = 1000     // xhtml:link elements of one <url>
	bufSize         = 32 << 10
)

// A Parser reads sitemap files. The zero Parser reads any file up to the
// protocol's limits and checks no scope.
//
// A Parser is safe for concurrent use; it is not changed by Parse.
type Parser struct {
	// MaxURLs is how many entries one file may hold; those past it are
	// not read, and the file ends with ErrTooManyURLs. Zero means
	// DefaultMaxURLs (50,000, Sitemaps 0.9).
	MaxURLs int
	// MaxBytes is how large one file may be once uncompressed, and, for a
	// gzip file, compressed: the file ends with ErrTooLarge past it, so
	// that a gzip bomb costs MaxBytes of inflating and no memory. Zero
	// means DefaultMaxBytes (50 MiB, Sitemaps 0.9).
	MaxBytes int64
	// Scope lists the URL prefixes (scheme, host and port, and a path
	// that ends in "/") the file's URLs must start with: see Dir and
	// Root. A URL under none of them is reported with ErrOutOfScope and
	// not returned. Empty means any URL.
	Scope []*url.URL
}

// Parse returns the entries of the sitemap r holds, as the zero Parser
// reads them: see Parser.Parse.
func Parse(r io.Reader) iter.Seq2[Entry, error] { return (&Parser{}).Parse(r) }

// Parse returns the entries of the sitemap r holds, in file order, read
// as r is read: memory does not grow with the file's size. The file may
// be gzip-compressed (told by its content, whatever its name), and be:
//
//   - XML (Sitemaps 0.9): a urlset, whose <url> entries have Kind URL, or
//     a sitemapindex, whose <sitemap> entries have Kind Index;
//   - plain text (Sitemaps 0.9, "Text file"): one URL a line;
//   - an RSS 2.0 (or 1.0) feed, each item's <link> a URL, or an Atom 1.0
//     (or 0.3) feed, each entry's link (rel "alternate").
//
// Reading is lenient where real files are broken: a byte order mark,
// white space around values, unescaped "&", HTML entities, elements of
// the wrong (or no) namespace (elements are known by local name), dates
// that do not parse (Entry.LastModRaw keeps them). It is strict with
// URLs: an entry whose URL is not absolute http(s) is reported with
// ErrInvalidURL, and one out of Scope with ErrOutOfScope; their Entry
// holds what was read, and the sequence goes on. Any other error (an
// *Error matching ErrMalformed, ErrNotSitemap, ErrTooManyURLs,
// ErrTooLarge, or r's own) is the last thing the sequence yields.
//
// The sequence reads r once; it can be ranged over once.
func (p *Parser) Parse(r io.Reader) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		run := newRun(p, yield)
		run.parse(r)
	}
}

// run is one Parse: the file's limits, scope and count of entries.
type run struct {
	maxURLs  int
	maxBytes int64
	scope    []prefix
	yield    func(Entry, error) bool
	n        int  // entries read
	stopped  bool // yield returned false, or the file ended in error
}

func newRun(p *Parser, yield func(Entry, error) bool) *run {
	rn := &run{maxURLs: p.MaxURLs, maxBytes: p.MaxBytes, yield: yield}
	if rn.maxURLs <= 0 {
		rn.maxURLs = DefaultMaxURLs
	}
	if rn.maxBytes <= 0 {
		rn.maxBytes = DefaultMaxBytes
	}
	for _, u := range p.Scope {
		if u != nil {
			rn.scope = append(rn.scope, prefixOf(u))
		}
	}
	return rn
}

var gzipMagic = []byte{0x1f, 0x8b}

// parse reads r: gzip or not, XML or text.
func (rn *run) parse(r io.Reader) {
	src := &limited{r: r, n: rn.maxBytes}
	br := bufio.NewReaderSize(src, bufSize)
	lim := src
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rn.fail(0, malformed(err))
			return
		}
		lim = &limited{r: zr, n: rn.maxBytes}
		br = bufio.NewReaderSize(lim, bufSize)
	}
	// A byte order mark, then white space, before the first byte that
	// tells XML ('<') from text.
	if head, _ := br.Peek(3); len(head) == 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF {
		br.Discard(3)
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return // an empty file: no entries
			}
			rn.fail(0, rn.readErr(err))
			return
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			br.UnreadByte()
			if c == '<' {
				rn.xml(br, lim)
			} else {
				rn.text(br)
			}
			return
		}
	}
}

// limited reads at most n bytes of r, and fails with ErrTooLarge when r
// has more, or when window is set and more than window bytes were read
// past mark: the XML parser moves mark past each token it reads, so that
// no token (which the decoder holds whole) grows past the window.
type limited struct {
	r            io.Reader
	n            int64
	read         int64
	mark, window int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.window > 0 && l.read-l.mark > l.window {
		return 0, ErrTooLarge
	}
	if l.n <= 0 {
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	l.read += int64(n)
	return n, err
}

// readErr names an error of reading the file: a limit, gzip that does
// not inflate, or the reader's own.
func (rn *run) readErr(err error) error {
	switch {
	case errors.Is(err, ErrTooLarge):
		return ErrTooLarge
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.Is(err, io.ErrUnexpectedEOF):
		return malformed(err)
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return malformed(err)
	}
	return err
}

func malformed(err error) error { return fmt.Errorf("%w: %w", ErrMalformed, err) }

// fail yields the error that ends the file.
func (rn *run) fail(line int, err error) {
	if !rn.stopped {
		rn.stopped = true
		rn.yield(Entry{Priority: -1}, &Error{Line: line, Err: err})
	}
}

// entry checks e's URL and scope, counts it, and yields it; it reports
// whether to go on.
func (rn *run) entry(e Entry, line int) bool {
	if rn.stopped {
		return false
	}
	rn.n++
	if rn.n > rn.maxURLs {
		rn.fail(line, ErrTooManyURLs)
		return false
	}
	u, err := checkLoc(e.Loc)
	if err == nil && !inScope(rn.scope, u) {
		err = ErrOutOfScope
	}
	if err != nil {
		err = &Error{Loc: e.Loc, Line: line, Err: err}
	}
	if !rn.yield(e, err) {
		rn.stopped = true
		return false
	}
	return true
}

// checkLoc parses a URL of the file: an absolute http or https URL of
// fewer than 2,048 characters (Sitemaps 0.9, "<loc>").
func checkLoc(s string) (*url.URL, error) {
	if s == "" || len(s) >= maxLoc {
		return nil, ErrInvalidURL
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") || u.Host == "" || u.Opaque != "" {
		return nil, ErrInvalidURL
	}
	return u, nil
}
