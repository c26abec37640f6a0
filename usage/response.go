package usage

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// ReadResponse returns the Page of resp: its signal header fields (as
// ReadHeader), its URL (from resp.Request, when set), and, when html is true
// and the response is an HTML document, its signal meta tags (as ReadHTML:
// the head's, and the robots meta tags of the body, reading at most
// DefaultMaxHTMLBytes of the body).
//
// A response is an HTML document when its Content-Type is text/html or
// application/xhtml+xml and it has no Content-Encoding other than
// "identity" (http.Client removes the gzip encoding it asked for itself; a
// body still compressed cannot be read as HTML). The body is not sniffed: a
// response with no Content-Type is not read.
//
// The bytes ReadResponse reads from the body are put back: resp.Body is
// replaced by a reader that returns them and then the rest of the original
// body, and whose Close closes the original body. The caller reads the whole
// body after ReadResponse as it would have before, and must close it as
// before. A read error is returned, wrapped, with the Page read up to it; the
// bytes read before it are put back all the same.
func ReadResponse(resp *http.Response, html bool) (*Page, error) {
	p := ReadHeader(resp.Header)
	if resp.Request != nil && resp.Request.URL != nil {
		p.URL = resp.Request.URL.String()
		p.Licenses = LicenseLinks(resp.Header, resp.Request.URL)
	}
	if !html || resp.Body == nil || resp.Body == http.NoBody || !htmlResponse(resp.Header) {
		return p, nil
	}
	rec := &recordingReader{r: resp.Body}
	err := readHTMLHead(p, rec, DefaultMaxHTMLBytes)
	resp.Body = &replayBody{
		Reader: io.MultiReader(bytes.NewReader(rec.buf), resp.Body),
		body:   resp.Body,
	}
	if err != nil {
		return p, fmt.Errorf("robotsguard: reading the HTML of %s: %w", respName(p), err)
	}
	return p, nil
}

// respName names a response in an error.
func respName(p *Page) string {
	if p.URL == "" {
		return "a response"
	}
	return p.URL
}

// htmlResponse reports whether a response header announces an HTML document
// whose body can be read as is.
func htmlResponse(h http.Header) bool {
	for _, enc := range h.Values("Content-Encoding") {
		for _, e := range strings.Split(enc, ",") {
			if e = strings.TrimSpace(e); e != "" && !strings.EqualFold(e, "identity") {
				return false
			}
		}
	}
	ct := h.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		// A malformed parameter ("text/html; charset") does not make the
		// body any less HTML.
		mt, _, _ = strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// A recordingReader keeps a copy of every byte read through it.
type recordingReader struct {
	r   io.Reader
	buf []byte
}

func (rr *recordingReader) Read(b []byte) (int, error) {
	n, err := rr.r.Read(b)
	rr.buf = append(rr.buf, b[:n]...)
	return n, err
}

// A replayBody reads the bytes taken from body, then the rest of body; Close
// closes body.
type replayBody struct {
	io.Reader
	body io.ReadCloser
}

func (b *replayBody) Close() error { return b.body.Close() }
