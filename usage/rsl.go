package usage

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
)

// RSL 1.0 (Really Simple Licensing): an XML document that says, for each
// content URL pattern of a site, which uses its licences permit or
// prohibit, and on what payment.

const (
	// RSLNamespace is the XML namespace of RSL elements.
	RSLNamespace = "https://rslstandard.org/rsl"
	// RSLMediaType is the media type of an RSL document, as a Link header
	// field names it.
	RSLMediaType = "application/rsl+xml"
	// MaxRSLSize is the part of an RSL document ParseRSL reads.
	MaxRSLSize = 512 << 10
)

// Bounds on what one RSL document may hold: past them, elements are
// ignored and a problem says so.
const (
	maxRSLContents = 1024 // <content> elements
	maxRSLLicenses = 4096 // <license> elements, in all
	maxRSLTokens   = 64   // values of one <permits> or <prohibits>
	maxRSLDepth    = 64   // element nesting
	maxRSLText     = 2048 // bytes of one element's text or attribute kept
	maxRSLProblems = 16
)

// ErrRSL is the error of an RSL document that cannot be read at all.
var ErrRSL = errors.New("robotsguard: not an RSL document")

// An RSLFile is a parsed RSL document. It is immutable: it may be used from
// several goroutines at once.
type RSLFile struct {
	// URL is the document's URL, for explanations.
	URL string
	// Contents are its <content> elements, in document order.
	Contents []RSLContent
	problems []string
	nproblem int
}

// An RSLContent is a <content> element: the assets at URL and the
// licences they are offered under.
type RSLContent struct {
	// Index is the 1-based index of the element in the document.
	Index int
	// URL is the url attribute as written: a path pattern (RFC 9309
	// matching, with * and $) or a full URL.
	URL string
	// Server is the RSL License Server that issues licences for the
	// assets (the server attribute), or "": with one, a licence must be
	// obtained even when it is free.
	Server string
	// Licenses are the alternative term sets the assets are offered under.
	Licenses []RSLLicense

	pattern string // canonical path pattern of URL
	host    string // lower-cased scheme://host of a full URL, else ""
}

// An RSLLicense is a <license> element.
type RSLLicense struct {
	// Permits and Prohibits list the values of its <permits> and
	// <prohibits> elements by type ("usage", "user", "geo").
	Permits, Prohibits RSLTerms
	// Payment is the compensation the licence asks for; its Type is "free"
	// when the licence has no <payment> element.
	Payment RSLPayment
}

// RSLTerms are the values of <permits> or <prohibits> elements, by type.
type RSLTerms struct {
	Usage, User, Geo []string
}

// An RSLPayment is a <payment> element.
type RSLPayment struct {
	// Type is the type attribute ("free" when absent): such as purchase,
	// subscription, training, crawl, use, attribution or free.
	Type string
	// Amounts are its <amount> elements, as "VALUE CURRENCY".
	Amounts []string
	// Standard and Custom are the URLs of its <standard> and <custom>
	// elements: a standard licence agreement, a custom licence offer.
	Standard, Custom string
}

// Problems returns the first 16 things of the document that were not read
// as written, and how many there were in all.
func (f *RSLFile) Problems() ([]string, int) {
	if f == nil {
		return nil, 0
	}
	return f.problems, f.nproblem
}

func (f *RSLFile) problem(format string, args ...any) {
	f.nproblem++
	if len(f.problems) < maxRSLProblems {
		f.problems = append(f.problems, fmt.Sprintf(format, args...))
	}
}

// ParseRSL reads an RSL document (RSL 1.0: a license file whose root is
// <rsl>, or a feed, such as RSS, whose items hold rsl:content elements);
// url is its URL, for explanations and for resolving nothing else. It
// reads the first MaxRSLSize bytes, at most 1,024 <content> and 4,096
// <license> elements, nested at most 64 deep, and keeps at most 2 KiB of
// any value: past those bounds, what is left is ignored and a problem says
// so. Elements are read in the RSL namespace; a document whose root is an
// <rsl> element without a namespace is read as if it had it. Elements of
// other namespaces, and unknown elements, are ignored.
//
// A document that is not XML, or whose XML breaks before its first
// <content> element, is an error that wraps ErrRSL; a break after it ends
// the document there, with a problem.
func ParseRSL(body []byte, url string) (*RSLFile, error) {
	if len(body) > MaxRSLSize {
		body = body[:MaxRSLSize]
	}
	f := &RSLFile{URL: url}
	p := rslParser{f: f, d: xml.NewDecoder(bytes.NewReader(body)), truncated: len(body) == MaxRSLSize}
	p.d.Strict = true
	p.d.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		// The names and values RSL defines are ASCII; a document in
		// another ASCII-compatible charset is read as is.
		return r, nil
	}
	if err := p.run(); err != nil {
		if len(f.Contents) == 0 {
			return nil, fmt.Errorf("%w: %s", ErrRSL, strings.TrimPrefix(err.Error(), "xml: "))
		}
		f.problem("the document breaks off: %v", err)
	}
	if !p.rsl && len(f.Contents) == 0 {
		return nil, fmt.Errorf("%w: no <rsl> or <content> element in the %s namespace", ErrRSL, RSLNamespace)
	}
	return f, nil
}

// rslParser walks the XML tokens of one document.
type rslParser struct {
	f         *RSLFile
	d         *xml.Decoder
	truncated bool
	depth     int
	rsl       bool // an <rsl> element was seen
	bareRoot  bool // the root is <rsl> without a namespace
	licenses  int
}

// in reports whether an element's name is the RSL element local.
func (p *rslParser) in(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == RSLNamespace || p.bareRoot && n.Space == "")
}

func (p *rslParser) run() error {
	for {
		tok, err := p.d.Token()
		if err == io.EOF {
			if p.truncated {
				p.f.problem("the document is longer than %d bytes: the rest was not read", MaxRSLSize)
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if p.depth == 0 && t.Name.Local == "rsl" && t.Name.Space == "" {
				p.bareRoot = true
			}
			switch {
			case p.in(t.Name, "content"):
				if err := p.content(t); err != nil {
					return err
				}
				continue
			case p.in(t.Name, "rsl"):
				p.rsl = true
			}
			p.depth++
			if p.depth > maxRSLDepth {
				return errors.New("elements nest too deep")
			}
		case xml.EndElement:
			p.depth--
		}
	}
}

// children calls f with the start tag of each child element of the
// element whose start tag was just read, up to its end tag. f reads the
// child whole (with skip, text, or a reader of its own). Like skip, text
// and the readers of elements, it counts the element's depth.
func (p *rslParser) children(f func(xml.StartElement) error) error {
	p.depth++
	if p.depth > maxRSLDepth {
		return errors.New("elements nest too deep")
	}
	for {
		tok, err := p.d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := f(t); err != nil {
				return err
			}
		case xml.EndElement:
			p.depth--
			return nil
		}
	}
}

// content reads a <content> element whose start tag is start.
func (p *rslParser) content(start xml.StartElement) error {
	if len(p.f.Contents) == maxRSLContents {
		p.f.problem("more than %d <content> elements: the rest are ignored", maxRSLContents)
		return p.skip()
	}
	c := RSLContent{Index: len(p.f.Contents) + 1}
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "url":
			c.URL = clipRSL(strings.TrimSpace(a.Value))
		case "server":
			c.Server = clipRSL(strings.TrimSpace(a.Value))
		}
	}
	err := p.children(func(t xml.StartElement) error {
		if !p.in(t.Name, "license") {
			return p.skip()
		}
		if p.licenses == maxRSLLicenses {
			p.f.problem("more than %d <license> elements: the rest are ignored", maxRSLLicenses)
			return p.skip()
		}
		p.licenses++
		l, err := p.license()
		c.Licenses = append(c.Licenses, l)
		return err
	})
	if err != nil {
		return err
	}
	p.addContent(c)
	return nil
}

// addContent adds c to the file, when its url attribute can be matched.
func (p *rslParser) addContent(c RSLContent) {
	u := c.URL
	switch {
	case u == "":
		p.f.problem("<content> %d has no url: ignored", c.Index)
		return
	case u[0] == '/' || u[0] == '*':
		c.pattern = policy.CanonicalPattern(u)
	case hasPrefixFold(u, "http://") || hasPrefixFold(u, "https://"):
		scheme, rest, _ := strings.Cut(u, "://")
		host, _, _ := strings.Cut(rest, "/")
		host, _, _ = strings.Cut(host, "?")
		c.host = strings.ToLower(scheme + "://" + host)
		c.pattern = policy.CanonicalPattern(policy.PathOf(u))
	default:
		p.f.problem("<content> %d: its url %q is neither a path nor an http(s) URL: ignored", c.Index, clipRSLProblem(u))
		return
	}
	c.Licenses = clipSlice(c.Licenses)
	p.f.Contents = append(p.f.Contents, c)
}

// license reads a <license> element, its start tag read.
func (p *rslParser) license() (RSLLicense, error) {
	l := RSLLicense{Payment: RSLPayment{Type: "free"}}
	hasPayment := false
	err := p.children(func(t xml.StartElement) error {
		switch {
		case p.in(t.Name, "permits"), p.in(t.Name, "prohibits"):
			terms := &l.Permits
			if t.Name.Local == "prohibits" {
				terms = &l.Prohibits
			}
			typ := "usage"
			for _, a := range t.Attr {
				if a.Name.Local == "type" {
					typ = strings.ToLower(strings.TrimSpace(a.Value))
				}
			}
			text, err := p.text()
			vals := rslTokens(text)
			switch typ {
			case "usage":
				terms.Usage = append(terms.Usage, vals...)
			case "user":
				terms.User = append(terms.User, vals...)
			case "geo":
				terms.Geo = append(terms.Geo, vals...)
			default:
				p.f.problem("<%s type=%q>: unknown type, ignored", t.Name.Local, clipRSLProblem(typ))
			}
			return err
		case p.in(t.Name, "payment") && !hasPayment:
			hasPayment = true
			for _, a := range t.Attr {
				if a.Name.Local == "type" && strings.TrimSpace(a.Value) != "" {
					l.Payment.Type = clipRSL(strings.ToLower(strings.TrimSpace(a.Value)))
				}
			}
			return p.payment(&l.Payment)
		}
		return p.skip()
	})
	l.Permits, l.Prohibits = l.Permits.clip(), l.Prohibits.clip()
	return l, err
}

// payment reads a <payment> element's children into pay.
func (p *rslParser) payment(pay *RSLPayment) error {
	err := p.children(func(t xml.StartElement) error {
		switch {
		case p.in(t.Name, "amount"):
			cur := ""
			for _, a := range t.Attr {
				if a.Name.Local == "currency" {
					cur = strings.TrimSpace(a.Value)
				}
			}
			text, err := p.text()
			if len(pay.Amounts) < maxRSLTokens {
				pay.Amounts = append(pay.Amounts, clipRSL(strings.TrimSpace(strings.TrimSpace(text)+" "+cur)))
			}
			return err
		case p.in(t.Name, "standard"), p.in(t.Name, "custom"):
			text, err := p.text()
			if t.Name.Local == "standard" {
				pay.Standard = clipRSL(strings.TrimSpace(text))
			} else {
				pay.Custom = clipRSL(strings.TrimSpace(text))
			}
			return err
		}
		return p.skip()
	})
	pay.Amounts = clipSlice(pay.Amounts)
	return err
}

// text returns the character data of the element whose start tag was
// just read, up to its end tag (nested elements are skipped), cut to
// maxRSLText bytes.
func (p *rslParser) text() (string, error) {
	p.depth++
	var b []byte
	for {
		tok, err := p.d.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if room := maxRSLText - len(b); room > 0 {
				b = append(b, t[:min(len(t), room)]...)
			}
		case xml.StartElement:
			if err := p.skip(); err != nil {
				return "", err
			}
		case xml.EndElement:
			p.depth--
			return string(b), nil
		}
	}
}

// skip skips the element whose start tag was just read.
func (p *rslParser) skip() error {
	start := p.depth
	p.depth++
	for p.depth > start {
		tok, err := p.d.Token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			p.depth++
			if p.depth > maxRSLDepth {
				return errors.New("elements nest too deep")
			}
		case xml.EndElement:
			p.depth--
		}
	}
	return nil
}

// rslTokens splits a <permits> or <prohibits> value into its values,
// lower-cased: RSL 1.0 separates them by spaces, its drafts by commas, and
// both are read. At most maxRSLTokens are kept.
func rslTokens(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}) {
		if len(out) == maxRSLTokens {
			break
		}
		out = append(out, strings.ToLower(clipRSL(t)))
	}
	return out
}

func (t RSLTerms) clip() RSLTerms {
	return RSLTerms{clipSlice(t.Usage), clipSlice(t.User), clipSlice(t.Geo)}
}

func clipSlice[T any](s []T) []T { return s[:len(s):len(s)] }

// clipRSL cuts s to maxRSLText bytes.
func clipRSL(s string) string {
	if len(s) > maxRSLText {
		return s[:maxRSLText]
	}
	return s
}

// clipRSLProblem cuts s to 64 bytes, for a problem's message.
func clipRSLProblem(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Content returns the <content> element whose url matches target (an
// absolute URL, or a path with an optional query), and false when none
// does. Of the elements that match, the one whose path pattern is the
// longest decides, as the most specific rule does in robots.txt (RFC 9309
// §2.2.2), and the first of those of equal length. A url that is a full
// URL matches only targets of its scheme and host (and every target given
// as a path).
func (f *RSLFile) Content(target string) (RSLContent, bool) {
	if f == nil {
		return RSLContent{}, false
	}
	path := policy.CanonicalPath(policy.PathOf(target))
	host := ""
	if hasPrefixFold(target, "http://") || hasPrefixFold(target, "https://") {
		scheme, rest, _ := strings.Cut(target, "://")
		h, _, _ := strings.Cut(rest, "/")
		h, _, _ = strings.Cut(h, "?")
		host = strings.ToLower(scheme + "://" + h)
	}
	best := -1
	for i := range f.Contents {
		c := &f.Contents[i]
		if c.host != "" && host != "" && c.host != host {
			continue
		}
		if !policy.PatternMatches(c.pattern, path) {
			continue
		}
		if best < 0 || len(c.pattern) > len(f.Contents[best].pattern) {
			best = i
		}
	}
	if best < 0 {
		return RSLContent{}, false
	}
	return f.Contents[best], true
}

// rslUsages maps each RSL 1.0 usage value onto the categories it speaks
// of. "all" is every use of the content (crawling it is robots.txt's
// question, and the licence token's); "ai-all" is every AI use. ai-index
// (building an index for AI applications) has no category of its own, so
// it speaks of none.
var rslUsages = map[string][]Category{
	"all":      {Search, Snippet, Archive, TrainAI, AIInput, TDM},
	"ai-all":   {TrainAI, AIInput},
	"ai-train": {TrainAI},
	"ai-input": {AIInput},
	"search":   {Search},
}

// rslSpeaksOf returns the first of values that speaks of c, or "".
func rslSpeaksOf(values []string, c Category) string {
	for _, v := range values {
		for _, vc := range rslUsages[v] {
			if vc == c {
				return v
			}
		}
	}
	return ""
}

// Evidence returns what the document says of target's use for c: for the
// <content> element that matches target, one Evidence for each licence
// that permits or prohibits a usage that speaks of c. A prohibition
// disallows; a permission allows, on the licence's terms
// (Conditions.License), and every evidence names the document in
// Conditions.Policy: where a licence can be had. A licence that neither
// permits nor prohibits c gives none: the use is not licensed by it, which
// is not a prohibition. Crawl is never spoken of.
func (f *RSLFile) Evidence(target string, c Category) []Evidence {
	if c == Crawl || !c.Valid() {
		return nil
	}
	ct, ok := f.Content(target)
	if !ok {
		return nil
	}
	var ev []Evidence
	for _, l := range ct.Licenses {
		src := Source{Signal: RSL, Place: InFile, URL: f.URL, Line: ct.Index}
		if v := rslSpeaksOf(l.Prohibits.Usage, c); v != "" {
			src.Text = clip(fmt.Sprintf("<content url=%q> prohibits %s", ct.URL, v))
			ev = append(ev, Evidence{Category: c, Verdict: Disallowed, Source: src,
				Conditions: Conditions{Policy: f.URL}})
			continue
		}
		if v := rslSpeaksOf(l.Permits.Usage, c); v != "" {
			src.Text = clip(fmt.Sprintf("<content url=%q> permits %s, payment %s", ct.URL, v, l.Payment.Type))
			ev = append(ev, Evidence{Category: c, Verdict: Allowed, Source: src,
				Conditions: Conditions{Policy: f.URL, License: l.terms(ct.Server)}})
		}
	}
	return ev
}

// terms returns the conditions l attaches to a use it permits.
func (l RSLLicense) terms(server string) *LicenseTerms {
	return &LicenseTerms{
		Payment: l.Payment.Type, Amounts: l.Payment.Amounts,
		Standard: l.Payment.Standard, Custom: l.Payment.Custom, Server: server,
		Users: l.Permits.User, NotUsers: l.Prohibits.User,
		Geo: l.Permits.Geo, NotGeo: l.Prohibits.Geo,
	}
}

// LicenseTerms are the terms of the RSL licence that permits a use: the
// crawler must meet them all.
type LicenseTerms struct {
	// Payment is the payment type ("free", "purchase", "subscription",
	// "training", "crawl", "use", "attribution", …), Amounts its amounts
	// ("0.01 USD"), Standard and Custom the URLs of its standard licence
	// agreement and custom offer.
	Payment          string
	Amounts          []string
	Standard, Custom string
	// Server is the RSL License Server to obtain a licence token from
	// (even a free licence), or "".
	Server string
	// Users and NotUsers are the types of user the licence is limited to,
	// or excludes ("commercial", "non-commercial", "education", …); Geo
	// and NotGeo the regions (ISO 3166 codes).
	Users, NotUsers, Geo, NotGeo []string
}

// Terms lists t as "rsl-payment=TYPE", "rsl-amount=VALUE CURRENCY",
// "rsl-standard=URL", "rsl-custom=URL", "rsl-server=URL", "rsl-user=A,B",
// "rsl-user-not=…", "rsl-geo=…", "rsl-geo-not=…": those that are set.
func (t *LicenseTerms) Terms() []string {
	if t == nil {
		return nil
	}
	var out []string
	add := func(k, v string) {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	add("rsl-payment", t.Payment)
	for _, a := range t.Amounts {
		add("rsl-amount", a)
	}
	add("rsl-standard", t.Standard)
	add("rsl-custom", t.Custom)
	add("rsl-server", t.Server)
	add("rsl-user", strings.Join(t.Users, ","))
	add("rsl-user-not", strings.Join(t.NotUsers, ","))
	add("rsl-geo", strings.Join(t.Geo, ","))
	add("rsl-geo-not", strings.Join(t.NotGeo, ","))
	return out
}

// Free reports whether the terms ask for no payment and no licence token:
// a free licence with no licence server.
func (t *LicenseTerms) Free() bool {
	return t == nil || t.Payment == "free" && t.Server == ""
}
