package robotstest

import (
	"net/http"

	"github.com/robotsguard/robotsguard"
)

// Transport returns a new robotsguard.Transport for tests against the
// Origin, as userAgent: it sends through the Origin's server transport,
// with userAgent (as every Transport does), so that the Origin judges its
// requests as the Transport does. It enforces robots.txt
// as any Transport, but with NoPacing set (no pauses, no back-off after 429
// and 503, no limit on requests under way), with the Origin's Clock for
// cache freshness, and with no retries of failed robots.txt fetches, whose
// waits are real time. Change its fields, if need be, before the first
// request: with NoPacing off, pauses are Sleeps of the Origin's Clock,
// which moves itself unless the Origin was given one that does not.
//
// Each call returns a Transport with an empty cache. Call it after Start.
//
// A Transport of one's own, in a plain http.Client, works as well: the
// Origin judges whatever it sends. Give it the Origin's Clock (Clock:
// o.Clock), or its pauses between requests, a second by default, take real
// time.
func (o *Origin) Transport(userAgent string) *robotsguard.Transport {
	if o.srv == nil {
		panic("robotstest: Origin.Transport called before Start")
	}
	return &robotsguard.Transport{
		Base:      o.srv.Client().Transport,
		UserAgent: userAgent,
		Clock:     o.Clock,
		NoPacing:  true,
		RetryMax:  -1,
	}
}

// Client returns an http.Client whose Transport is o.Transport(userAgent).
func (o *Origin) Client(userAgent string) *http.Client {
	return &http.Client{Transport: o.Transport(userAgent)}
}
