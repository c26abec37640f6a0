package botauth

import "net/http"

// RoundTripper returns a RoundTripper that signs every request, as Sign
// does, and sends it through base (nil means http.DefaultTransport). As
// the Base of a robotsguard.Transport it signs every request the
// Transport sends: robots.txt fetches and each of their redirects, pages,
// and each redirect an http.Client follows (the Client sends each hop
// through the Transport anew).
//
// It follows the RoundTripper contract: it signs a clone of the request,
// never the caller's. A request that cannot be signed is not sent: its
// body is closed and the error is a *SignError.
//
// Its CloseIdleConnections closes base's idle connections, if base has
// that method. Under a robotsguard.Transport it hides base from the
// Transport, which bounds the response header of robots.txt fetches only
// on an *http.Transport Base: give base a MaxResponseHeaderBytes of
// robotsguard.MaxFetchHeaderBytes to keep that bound.
func (s *Signer) RoundTripper(base http.RoundTripper) http.RoundTripper {
	return &roundTripper{s: s, base: base}
}

type roundTripper struct {
	s    *Signer
	base http.RoundTripper
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	h, err := t.s.headers(req)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	for k, v := range h {
		r.Header[k] = v
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

func (t *roundTripper) CloseIdleConnections() {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if c, ok := base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
