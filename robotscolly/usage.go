package robotscolly

import (
	"bytes"
	"context"
	"mime"
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
	var h http.Header
	if r.Headers != nil {
		h = *r.Headers
	}
	page := usage.ReadHeader(h)
	page.URL = r.Request.URL.String()
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil && (mt == "text/html" || mt == "application/xhtml+xml") {
		head, err := usage.ReadHTML(bytes.NewReader(r.Body), 0)
		if err != nil {
			return usage.Decision{}, err
		}
		page.Meta, page.HTMLTruncated = head.Meta, head.HTMLTruncated
	}
	req, err := http.NewRequestWithContext(context.Background(), r.Request.Method, r.Request.URL.String(), nil)
	if err != nil {
		return usage.Decision{}, err
	}
	if r.Request.Headers != nil {
		req.Header = r.Request.Headers.Clone()
	}
	return g.t.Usage(req, c, page)
}
