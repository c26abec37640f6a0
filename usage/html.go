package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/robotsguard/robotsguard/policy"
)

// DefaultMaxHTMLBytes is the number of bytes of an HTML document ReadHTML and
// ReadResponse read, at most, when given no limit: 256 KiB. The meta tags
// that carry signals belong in the head, which ends long before that in
// nearly every page, and robots meta tags a page puts in its body (which
// Google reads too) are seldom far into it; 256 KiB covers all but a few
// pages whole, while a crawler holds no more than that per page in memory.
const DefaultMaxHTMLBytes = 256 << 10

// maxHTMLMeta is the number of meta tags a Page keeps, at most. A document
// that holds more is cut there (Page.HTMLTruncated).
const maxHTMLMeta = 1024

// maxHTMLContent is the length a meta tag's content is cut at: no directive
// list of any signal comes near it.
const maxHTMLContent = 4 << 10

// headElements are the elements that may stand in an HTML head (the "in
// head" insertion mode of the HTML Standard, §13.2.6.4.4). The start tag of
// any other element begins the body.
var headElements = map[atom.Atom]bool{
	atom.Html: true, atom.Head: true, atom.Title: true, atom.Base: true,
	atom.Basefont: true, atom.Bgsound: true, atom.Link: true, atom.Meta: true,
	atom.Noscript: true, atom.Noframes: true, atom.Style: true,
	atom.Script: true, atom.Template: true,
}

// ReadHTML reads the signal meta tags of an HTML document from r and
// returns them as a Page with no header fields (Page.Header is empty) and
// no URL.
//
// It keeps, in document order, the <meta name content> tags whose name
// (trimmed, lower-cased) is "robots", "tdm-reservation", "tdm-policy", or a
// product token such as "googlebot" (policy.ValidProductToken): the names that
// may carry a usage signal. A meta tag without a content attribute is skipped,
// and <meta http-equiv="X-Robots-Tag"> is not read: no search engine documents
// it, and Google's and Bing's texts name only the header field and
// <meta name>.
//
// The head's tags are read, and so are the robots meta tags of the body
// (names "robots" and product tokens, Meta.InBody set): Google Search
// Central's "Robots meta tag, data-nosnippet, and X-Robots-Tag
// specifications" (updated 2026-03-24) says Google Search respects robots
// meta tags in the body section too. TDMRep's tags count in the head only,
// as the TDMRep report places them. The head ends where an HTML parser ends
// it: at the start tag of <body> or of any element that cannot stand in a
// head (such as <div> or <img>); a meta tag between </head> and the body
// counts as the head's, as an HTML parser moves it there. Text inside
// <script>, <style>, <title>, <noscript> and the like is not markup.
//
// ReadHTML reads no more than limit bytes from r (DefaultMaxHTMLBytes when
// limit is 0 or less). When limit cut the document, or it held more than
// 1,024 signal meta tags, Page.HTMLTruncated is set (also when a document
// of exactly limit bytes ends there: the two cannot be told apart without
// reading past the bound). A content longer than 4 KiB is cut there.
//
// The document is read as bytes: the names and directives it looks for are
// ASCII, which every encoding a web page is served in in practice (UTF-8, the
// ISO 8859 and Windows code pages, Shift_JIS, EUC, GB 18030) writes as ASCII.
// Content values are kept as written, and are not transcoded. A page in
// UTF-16 is not read (no meta tag is found in it).
//
// A read error other than io.EOF is returned, wrapped, with the Page read so
// far.
func ReadHTML(r io.Reader, limit int64) (*Page, error) {
	p := &Page{Header: http.Header{}}
	if err := readHTMLHead(p, r, limit); err != nil {
		return p, fmt.Errorf("robotsguard: reading HTML: %w", err)
	}
	return p, nil
}

// readHTMLHead adds the signal meta tags of the head read from r to p.Meta;
// see ReadHTML. It returns r's error as is, for its callers to wrap.
func readHTMLHead(p *Page, r io.Reader, limit int64) error {
	if limit <= 0 {
		limit = DefaultMaxHTMLBytes
	}
	lr := &io.LimitedReader{R: r, N: limit}
	// The document is read whole (up to the bound) before it is
	// tokenized, so that a body with no meta tag, most bodies, is passed
	// over with a search instead of tokenized: the tokenizer copies every
	// tag's name and attribute keys.
	bp := htmlBufs.Get().(*[]byte)
	defer htmlBufs.Put(bp)
	doc, rerr := readAll(lr, (*bp)[:0])
	if cap(doc) <= DefaultMaxHTMLBytes {
		*bp = doc[:0] // a larger limit's buffer is not kept
	}
	atBound := lr.N == 0
	z := html.NewTokenizer(bytes.NewReader(doc))
	// afterHead: the head's end tag was seen. An HTML parser still puts
	// the meta, link, script, style, title, base and template elements
	// that follow it, up to the body, into the head (the "after head"
	// insertion mode, §13.2.6.4.6). inBody: the body has begun. off is
	// the end of the token last read.
	afterHead, inBody, bodySearched := false, false, false
	off := 0
	for {
		if inBody && !bodySearched {
			bodySearched = true
			if !hasMetaTag(doc[off:]) {
				p.HTMLTruncated = atBound
				return rerr
			}
		}
		tt := z.Next()
		off += len(z.Raw())
		switch tt {
		case html.ErrorToken:
			err := z.Err()
			if err == io.EOF {
				p.HTMLTruncated = atBound
				return rerr
			}
			if errors.Is(err, html.ErrBufferExceeded) {
				p.HTMLTruncated = true
				return rerr
			}
			return err
		case html.EndTagToken:
			if inBody {
				continue // no end tag matters there
			}
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Head:
				afterHead = true
			case atom.Body, atom.Html:
				inBody = true
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			if inBody && !rawMetaTag(z.Raw()) {
				// Only meta tags matter in the body; TagName copies
				// every name it returns.
				continue
			}
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if !headElements[a] || (afterHead && a == atom.Noscript) {
				inBody = true
			}
			if a != atom.Meta || !hasAttr {
				continue
			}
			m, ok := readHTMLMeta(z, inBody)
			if !ok {
				continue
			}
			if len(p.Meta) == maxHTMLMeta {
				p.HTMLTruncated = true
				return nil
			}
			p.Meta = append(p.Meta, m)
		}
	}
}

// htmlBufs holds the buffers documents are read into, of
// DefaultMaxHTMLBytes: nothing of a document is kept past its reading
// (a Meta's strings are copies).
var htmlBufs = sync.Pool{New: func() any { b := make([]byte, 0, DefaultMaxHTMLBytes); return &b }}

// readAll appends what r holds to buf, as io.ReadAll does, growing it
// only past its capacity.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// hasMetaTag reports whether b holds "<meta", ignoring case: a meta tag,
// or text that looks like one.
func hasMetaTag(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 || len(b)-i < 5 {
			return false
		}
		if bytes.EqualFold(b[i+1:i+5], []byte("meta")) {
			return true
		}
		b = b[i+1:]
	}
}

// rawMetaTag reports whether raw, a start tag as written, is a meta tag.
func rawMetaTag(raw []byte) bool {
	const n = len("<meta")
	if len(raw) < n+1 || !bytes.EqualFold(raw[1:n], []byte("meta")) {
		return false
	}
	switch raw[n] {
	case ' ', '\t', '\n', '\r', '\f', '/', '>':
		return true
	}
	return false
}

// readHTMLMeta reads the attributes of the meta tag z is at, and reports
// whether it is a signal tag: one with a content attribute and a name
// ReadHTML keeps, in the head or, when inBody, in the body.
func readHTMLMeta(z *html.Tokenizer, inBody bool) (Meta, bool) {
	var name, content string
	var hasName, hasContent bool
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		// The tokenizer lower-cases attribute keys; the first of
		// duplicate attributes wins, as in an HTML parser.
		switch string(k) {
		case "name":
			if !hasName {
				name, hasName = strings.ToLower(strings.TrimSpace(string(v))), true
			}
		case "content":
			if !hasContent {
				if len(v) > maxHTMLContent {
					v = v[:maxHTMLContent]
				}
				content, hasContent = strings.TrimSpace(string(v)), true
			}
		}
	}
	if !hasContent || !signalMetaName(name) || inBody && (name == "tdm-reservation" || name == "tdm-policy") {
		return Meta{}, false
	}
	return Meta{Name: name, Content: content, InBody: inBody}, true
}

// signalMetaName reports whether a lower-cased meta name may carry a signal.
func signalMetaName(name string) bool {
	switch name {
	case "robots", "tdm-reservation", "tdm-policy":
		return true
	}
	return policy.ValidProductToken(name)
}
