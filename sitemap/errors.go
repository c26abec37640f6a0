package sitemap

import (
	"errors"
	"strconv"
	"strings"
)

// Errors of entries: the sequence goes on after them.
var (
	// ErrInvalidURL: a <loc> (or a text line, a feed link) that is not an
	// absolute http or https URL, does not parse, or has 2,048 characters
	// or more (Sitemaps 0.9, "XML tag definitions").
	ErrInvalidURL = errors.New("robotsguard: sitemap: not an absolute http(s) URL")
	// ErrOutOfScope: a URL outside the sitemap's scope: neither under the
	// sitemap's own directory on its own host (Sitemaps 0.9, "Sitemap
	// file location") nor on a host whose robots.txt lists the sitemap
	// ("Sitemaps & Cross Submits"). It is reported, not returned.
	ErrOutOfScope = errors.New("robotsguard: sitemap: URL outside the sitemap's scope")
)

// Errors of files: the file ends there (a Walker goes on with the next).
var (
	// ErrMalformed: the file is broken past reading (XML that does not
	// parse, gzip that does not inflate); the entries before it stand.
	ErrMalformed = errors.New("robotsguard: sitemap: malformed file")
	// ErrNotSitemap: the file is neither a urlset, a sitemapindex, an RSS
	// or Atom feed nor a list of URLs (an HTML page, say).
	ErrNotSitemap = errors.New("robotsguard: sitemap: not a sitemap")
	// ErrTooManyURLs: a file with more entries than Parser.MaxURLs
	// (50,000 by default, Sitemaps 0.9); the first ones stand.
	ErrTooManyURLs = errors.New("robotsguard: sitemap: too many URLs in one file")
	// ErrTooLarge: a file larger than Parser.MaxBytes once uncompressed
	// (50 MiB by default, Sitemaps 0.9), or a token (an element, a line)
	// larger than 64 KiB.
	ErrTooLarge = errors.New("robotsguard: sitemap: file too large")
	// ErrStatus: the sitemap was answered with a status other than 200.
	ErrStatus = errors.New("robotsguard: sitemap: unexpected status")
)

// Errors of a walk: the sitemap is not fetched, the walk goes on.
var (
	// ErrDepth: an index nested deeper than Walker.MaxDepth (Sitemaps 0.9
	// lets an index list sitemaps only).
	ErrDepth = errors.New("robotsguard: sitemap: sitemap index nested too deep")
	// ErrLoop: a sitemap listed again (by itself, or by an index below
	// it); it is read once.
	ErrLoop = errors.New("robotsguard: sitemap: sitemap already read")
	// ErrBudget: the walk's budget of files (Walker.MaxFiles) or URLs
	// (Walker.MaxURLs) is spent.
	ErrBudget = errors.New("robotsguard: sitemap: walk budget spent")
	// ErrNoSitemaps: the site's robots.txt lists no sitemap.
	ErrNoSitemaps = errors.New("robotsguard: sitemap: robots.txt lists no sitemap")
)

// An Error is what went wrong with a sitemap, or with one of its entries.
// Err is one of the sentinels above (joined with the cause, when there is
// one: an XML syntax error, a fetch error that may match
// robotsguard.ErrDisallowed), for errors.Is.
type Error struct {
	Sitemap string // the file, when a Walker read it; "" from Parse
	Loc     string // the entry's URL as written, for errors of one entry
	Line    int    // the line of the entry in the file, when known
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("robotsguard: sitemap")
	if e.Sitemap != "" {
		b.WriteString(" " + e.Sitemap)
	}
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Loc != "" {
		b.WriteString(": " + quoteShort(e.Loc))
	}
	b.WriteString(": ")
	if e.Err == nil {
		b.WriteString("unknown error")
	} else {
		msg := e.Err.Error()
		msg = strings.TrimPrefix(msg, "robotsguard: ")
		b.WriteString(strings.TrimPrefix(msg, "sitemap: "))
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// quoteShort quotes s, cut to 200 bytes: a message names a long URL
// without repeating it whole.
func quoteShort(s string) string {
	const max = 200
	if len(s) > max {
		i := max
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		return strconv.Quote(s[:i]) + "…"
	}
	return strconv.Quote(s)
}
