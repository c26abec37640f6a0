package usage

import (
	"net/http"
	"net/textproto"
)

// A Page holds the usage signals of one response: its header fields and,
// when read, the meta tags of its HTML head. Build one with ReadHeader,
// ReadHTML or ReadResponse.
type Page struct {
	// URL is the page's URL, for explanations; it may be "".
	URL string
	// Header holds the response's signal fields only (X-Robots-Tag,
	// Content-Usage, TDM-Reservation, TDM-Policy), in canonical form.
	Header http.Header
	// Meta lists the meta tags that may carry a signal (name "robots", an
	// agent's name, "tdm-reservation", "tdm-policy"), in document order,
	// names lower-cased: those of the head, and the robots meta tags of
	// the body.
	Meta []Meta
	// Licenses are the RSL licences the response's Link header fields
	// announce (LicenseLinks): absolute URLs, at most 8. Decide does not
	// read them: the caller fetches and parses each (ParseRSL) into
	// Site.RSL, as Transport.Usage does.
	Licenses []string
	// HTMLTruncated reports that the document was longer than the bound
	// read, so meta tags past it were not seen.
	HTMLTruncated bool
}

// A Meta is a <meta name content> tag.
type Meta struct {
	Name    string // lower case
	Content string
	// InBody reports that the tag stands in the body (a robots meta tag
	// Google reads there too), not in the head.
	InBody bool
}

// signalFields are the response header fields a Page keeps.
var signalFields = [...]string{"X-Robots-Tag", "Content-Usage", "Tdm-Reservation", "Tdm-Policy"}

// ReadHeader returns the Page of a response header: its X-Robots-Tag,
// Content-Usage, TDM-Reservation and TDM-Policy fields, and the RSL
// licences its Link fields announce with absolute URLs.
func ReadHeader(h http.Header) *Page {
	p := &Page{Header: http.Header{}, Licenses: LicenseLinks(h, nil)}
	for _, k := range signalFields {
		if v := h.Values(k); len(v) > 0 {
			p.Header[textproto.CanonicalMIMEHeaderKey(k)] = append([]string(nil), v...)
		}
	}
	return p
}
