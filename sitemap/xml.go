package sitemap

import (
	"bufio"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
)

// The XML formats: Sitemaps 0.9 urlset and sitemapindex, RSS and Atom
// feeds, read token by token with encoding/xml's RawToken, which keeps no
// stack of elements and does not translate namespaces: elements are known
// by their local names, whatever their namespace.

// format is the kind of XML file, told by its root element.
type format uint8

const (
	fmtSitemap format = iota + 1 // urlset or sitemapindex
	fmtRSS                       // rss, rdf:RDF
	fmtAtom                      // feed
)

// field is the element whose text is being read.
type field uint8

const (
	fNone field = iota
	fLoc
	fLastMod
	fChangeFreq
	fPriority
	fImageLoc
	fNewsName
	fNewsLang
	fNewsTitle
	fNewsDate
)

// container is the extension element of an entry being read.
type container uint8

const (
	cNone container = iota
	cImage
	cNews
	cNewsPub
)

// xmlReader holds the state of one XML file.
type xmlReader struct {
	rn     *run
	format format
	depth  int // of the current element; the root is 1

	entryDepth int // of the entry element being read; 0 outside one
	entryLine  int
	e          Entry

	cont      container
	contDepth int

	field      field
	fieldDepth int
	text       []byte
}

func (rn *run) xml(br *bufio.Reader, lim *limited) {
	d := xml.NewDecoder(br)
	d.Strict = false // unescaped '&', unquoted attributes
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) {
		return r, nil // read as UTF-8 whatever the declaration says (Sitemaps 0.9 asks for UTF-8)
	}
	base := lim.read - int64(br.Buffered())
	lim.mark, lim.window = base, maxToken+bufSize
	x := &xmlReader{rn: rn}
	for {
		tok, err := d.RawToken()
		lim.mark = base + d.InputOffset()
		if err != nil {
			line, _ := d.InputPos()
			switch {
			case errors.Is(err, io.EOF):
				if x.format == 0 {
					rn.fail(line, ErrNotSitemap)
				}
			case errors.Is(err, ErrTooLarge):
				rn.fail(line, ErrTooLarge)
			default:
				var se *xml.SyntaxError
				if errors.As(err, &se) {
					rn.fail(line, malformed(err))
				} else {
					rn.fail(line, rn.readErr(err))
				}
			}
			return
		}
		var ok bool
		switch t := tok.(type) {
		case xml.StartElement:
			ok = x.start(d, t)
		case xml.EndElement:
			ok = x.end()
		case xml.CharData:
			if x.field != fNone && len(x.text)+len(t) <= maxToken {
				x.text = append(x.text, t...)
			}
			ok = true
		default:
			ok = true // comments, processing instructions, directives
		}
		if !ok {
			return
		}
	}
}

// start reads a start tag; it reports whether to go on.
func (x *xmlReader) start(d *xml.Decoder, t xml.StartElement) bool {
	x.depth++
	name := t.Name.Local
	if x.depth == 1 {
		switch name {
		case "urlset", "sitemapindex":
			x.format = fmtSitemap
		case "rss", "RDF":
			x.format = fmtRSS
		case "feed":
			x.format = fmtAtom
		default:
			line, _ := d.InputPos()
			x.rn.fail(line, ErrNotSitemap)
			return false
		}
		return true
	}
	if x.entryDepth == 0 {
		kind, ok := x.entryKind(name)
		if ok {
			x.entryDepth = x.depth
			x.entryLine, _ = d.InputPos()
			x.e = Entry{Kind: kind, Priority: -1}
		}
		return true
	}
	if x.field != fNone {
		return true // markup inside a value: its text is the value's
	}
	rel := x.depth - x.entryDepth
	f := fNone
	switch x.cont {
	case cNone:
		if rel != 1 {
			break
		}
		switch x.format {
		case fmtSitemap:
			switch name {
			case "loc":
				f = fLoc
			case "lastmod":
				f = fLastMod
			case "changefreq":
				f = fChangeFreq
			case "priority":
				f = fPriority
			case "image":
				x.cont, x.contDepth = cImage, x.depth
			case "news":
				x.cont, x.contDepth = cNews, x.depth
				if x.e.News == nil {
					x.e.News = &News{}
				}
			case "link":
				x.alternate(t.Attr)
			}
		case fmtRSS:
			switch name {
			case "link":
				if href := attr(t.Attr, "href"); href != "" { // an atom:link in an item
					x.atomLink(t.Attr)
				} else if x.e.Loc == "" {
					f = fLoc
				}
			case "pubDate", "date":
				f = fLastMod
			}
		case fmtAtom:
			switch name {
			case "link":
				x.atomLink(t.Attr)
			case "updated", "modified":
				f = fLastMod
			case "published", "issued":
				if x.e.LastModRaw == "" {
					f = fLastMod
				}
			}
		}
	case cImage:
		if name == "loc" && x.depth == x.contDepth+1 && len(x.e.Images) < maxImages {
			f = fImageLoc
		}
	case cNews:
		if x.depth == x.contDepth+1 {
			switch name {
			case "publication":
				x.cont, x.contDepth = cNewsPub, x.depth
			case "title":
				f = fNewsTitle
			case "publication_date":
				f = fNewsDate
			}
		}
	case cNewsPub:
		if x.depth == x.contDepth+1 {
			switch name {
			case "name":
				f = fNewsName
			case "language":
				f = fNewsLang
			}
		}
	}
	if f != fNone {
		x.field, x.fieldDepth, x.text = f, x.depth, x.text[:0]
	}
	return true
}

// entryKind tells whether an element named name starts an entry of the
// file's format, and of what kind.
func (x *xmlReader) entryKind(name string) (Kind, bool) {
	switch x.format {
	case fmtSitemap:
		switch name {
		case "url":
			return URL, true
		case "sitemap":
			return Index, true
		}
	case fmtRSS:
		return URL, name == "item"
	case fmtAtom:
		return URL, name == "entry"
	}
	return URL, false
}

// end reads an end tag; it reports whether to go on.
func (x *xmlReader) end() bool {
	defer func() { x.depth-- }()
	if x.depth <= 0 {
		return true // an end tag without its start: lenient
	}
	if x.field != fNone && x.depth == x.fieldDepth {
		x.setField()
		x.field = fNone
	}
	if x.cont != cNone && x.depth == x.contDepth {
		if x.cont == cNewsPub {
			x.cont, x.contDepth = cNews, x.contDepth-1
		} else {
			x.cont = cNone
		}
	}
	if x.entryDepth != 0 && x.depth == x.entryDepth {
		x.entryDepth, x.field, x.cont = 0, fNone, cNone
		return x.rn.entry(x.e, x.entryLine)
	}
	return true
}

// setField stores the text read of the current field.
func (x *xmlReader) setField() {
	v := strings.TrimSpace(string(x.text))
	e := &x.e
	switch x.field {
	case fLoc:
		e.Loc = v
	case fLastMod:
		e.LastModRaw = v
		e.LastMod, _ = parseDate(v)
	case fChangeFreq:
		e.ChangeFreq = strings.ToLower(v)
	case fPriority:
		if p, err := strconv.ParseFloat(v, 64); err == nil && p >= 0 && p <= 1 {
			e.Priority = p
		}
	case fImageLoc:
		e.Images = append(e.Images, Image{Loc: v})
	case fNewsName:
		e.News.Name = v
	case fNewsLang:
		e.News.Language = v
	case fNewsTitle:
		e.News.Title = v
	case fNewsDate:
		e.News.PublishedRaw = v
		e.News.Published, _ = parseDate(v)
	}
}

// alternate reads an xhtml:link of a <url>: a rel="alternate" with an
// hreflang is the page in that language.
func (x *xmlReader) alternate(attrs []xml.Attr) {
	if !strings.EqualFold(attr(attrs, "rel"), "alternate") || len(x.e.Alternates) >= maxAlternates {
		return
	}
	lang, href := attr(attrs, "hreflang"), strings.TrimSpace(attr(attrs, "href"))
	if lang != "" && href != "" {
		x.e.Alternates = append(x.e.Alternates, Alternate{Hreflang: lang, Href: href})
	}
}

// atomLink reads an Atom <link>: the first one whose rel is "alternate"
// (the default) is the entry's URL.
func (x *xmlReader) atomLink(attrs []xml.Attr) {
	rel := attr(attrs, "rel")
	if x.e.Loc == "" && (rel == "" || strings.EqualFold(rel, "alternate")) {
		x.e.Loc = strings.TrimSpace(attr(attrs, "href"))
	}
}

func attr(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
