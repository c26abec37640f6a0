package usage

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

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
	z := html.NewTokenizer(lr)
	// afterHead: the head's end tag was seen. An HTML parser still puts
	// the meta, link, script, style, title, base and template elements
	// that follow it, up to the body, into the head (the "after head"
	// insertion mode, §13.2.6.4.6). inBody: the body has begun.
	afterHead, inBody := false, false
	for {
		switch z.Next() {
		case html.ErrorToken:
			err := z.Err()
			if err == io.EOF {
				// The limit reader reports io.EOF both at the document's end
				// and at the bound: only the bound leaves N at 0.
				if lr.N == 0 {
					p.HTMLTruncated = true
				}
				return nil
			}
			if errors.Is(err, html.ErrBufferExceeded) {
				p.HTMLTruncated = true
				return nil
			}
			return err
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Head:
				afterHead = true
			case atom.Body, atom.Html:
				inBody = true
			}
		case html.StartTagToken, html.SelfClosingTagToken:
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
