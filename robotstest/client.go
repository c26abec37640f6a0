package robotstest

import (
	"net/http"
	"time"

	"github.com/robotsguard/robotsguard"
)

// Transport returns a new robotsguard.Transport for tests against the
// Origin, as userAgent: it sends through the Origin's server transport, and
// sets the User-Agent header to userAgent on requests that have none, so
// that the Origin judges them as the Transport does. It does not pace
// requests, keeps time with the Origin's Clock (so a 429 or 503 back-off
// moves that clock instead of waiting, unless it was made without
// auto-advance), and does not retry failed robots.txt fetches, whose waits
// are real time. Change its fields, if need be, before the first request.
//
// Each call returns a Transport with an empty cache. Call it after Start.
func (o *Origin) Transport(userAgent string) *robotsguard.Transport {
	if o.srv == nil {
		panic("robotstest: Origin.Transport called before Start")
	}
	return &robotsguard.Transport{
		Base:      agentTransport{agent: userAgent, base: o.srv.Client().Transport},
		UserAgent: userAgent,
		Clock:     o.Clock,
		Delay:     -1, // no pacing
		MaxDelay:  time.Nanosecond,
		RetryMax:  -1,
	}
}

// Client returns an http.Client whose Transport is o.Transport(userAgent).
func (o *Origin) Client(userAgent string) *http.Client {
	return &http.Client{Transport: o.Transport(userAgent)}
}

// agentTransport sets a User-Agent header on the requests that have none.
type agentTransport struct {
	agent string
	base  http.RoundTripper
}

func (a agentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.agent != "" && req.Header.Get("User-Agent") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", a.agent)
	}
	return a.base.RoundTrip(req)
}

func (a agentTransport) CloseIdleConnections() {
	if ci, ok := a.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}
