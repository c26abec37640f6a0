package robotsguard

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/robotsguard/robotsguard/pay"
)

// robotsTxt sends a request for /robots.txt itself. A plain GET (no
// conditional or range fields) is answered from the cache, fetched as
// requests are, when the cache holds the whole file and it is fresh: a
// client that reads robots.txt itself (colly's own check) costs the site
// no second fetch. Anything else is sent as it is. The first such request
// makes the Transport keep the files it fetches whole (see keepWhole).
func (t *Transport) robotsTxt(req *http.Request) (*http.Response, error) {
	o, dial, err := requestOrigin(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if (req.Method != "" && req.Method != http.MethodGet) || req.Header.Get("Range") != "" ||
		req.Header.Get("If-None-Match") != "" || req.Header.Get("If-Modified-Since") != "" {
		return t.base().RoundTrip(t.outgoing(req, pay.Price{}))
	}
	if !t.servesRobots.Load() {
		t.servesRobots.Store(true) // from now on, states keep the files whole
	}
	ua := t.requestAgent(req)
	now := t.now()
	st, waited, err := t.lookup(req.Context(), o, dial, ua, now, 0)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if waited {
		now = t.now()
	}
	e, whole := st.whole()
	if !whole || e.Status == 0 || e.Failures > 0 || !st.fresh(now) || len(e.Body) >= t.maxSize() || e.Status/100 == 3 {
		return t.base().RoundTrip(t.outgoing(req, pay.Price{})) // not held whole and fresh
	}
	closeBody(req)
	h := e.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Length", strconv.Itoa(len(e.Body)))
	if e.Status/100 == 2 {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	return &http.Response{
		Status:        strconv.Itoa(e.Status) + " " + http.StatusText(e.Status),
		StatusCode:    e.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(e.Body)),
		ContentLength: int64(len(e.Body)),
		Request:       req,
	}, nil
}
