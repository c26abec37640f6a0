package robotscolly

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard/usage"
)

// Usage decides whether the collector may use the page of r for category
// c (search, snippet, archive, train-ai, …): by the signals of its site
// that the Transport holds (see Transport.Usage) and those of the
// response, its header fields and, for an HTML page, the meta tags of its
// head, read from the body colly holds. Call it from OnResponse or
// OnScraped.
func (g *Guard) Usage(r *colly.Response, c usage.Category) (usage.Decision, error) {
	h := http.Header{}
	if r.Headers != nil {
		h = r.Headers.Clone()
	}
	// colly has already decoded the gzip encoding it reports, so the body
	// is read whatever the Content-Encoding says; the rest (which media
	// types are HTML) is as usage.ReadResponse reads a response.
	h.Del("Content-Encoding")
	page, err := usage.ReadResponse(&http.Response{Header: h, Body: io.NopCloser(bytes.NewReader(r.Body))}, true)
	if err != nil {
		return usage.Decision{}, err
	}
	page.URL = r.Request.URL.String()
	req, err := http.NewRequestWithContext(context.Background(), r.Request.Method, r.Request.URL.String(), nil)
	if err != nil {
		return usage.Decision{}, fmt.Errorf("robotsguard: %w", err)
	}
	if r.Request.Headers != nil {
		req.Header = r.Request.Headers.Clone()
	}
	return g.t.Usage(req, c, page)
}
