package robotsguard

import (
	"net/http"
	"net/url"
	"time"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// The decision: what an origin's state says of a request, for its agent.
// RoundTrip and Check reach it through check (transport.go), once the
// state is held (flight.go, refresh.go): by the robots.txt's rules, or by
// a signal that decides crawling in their place (ACAP), and by the pause
// the agent must keep.

// decide returns the interval the agent ua keeps between requests to st's
// origin when st allows req at now, or the refusal.
func (t *Transport) decide(req *http.Request, st *originState, ua string, now time.Time) (time.Duration, *DisallowedError) {
	var e *DisallowedError
	g := st.group
	switch t.access(st, now) {
	case AccessAllowAll:
		every, _ := t.interval(nil)
		return every, nil
	case AccessDisallowAll:
		e = &DisallowedError{Reason: ReasonStatus}
	case AccessUnreachable:
		e = &DisallowedError{Reason: ReasonUnreachable, Err: st.more.err, NotBefore: st.until.time()}
	default:
		if t.UserAgent == "" {
			g = st.robots.Group(groupAgent(ua))
		}
		e = t.decidePaths(st, req.URL, ua, g)
	}
	if e != nil {
		e.Method, e.URL, e.Agent = req.Method, req.URL.Redacted(), t.agent(ua)
		e.RobotsURL, e.Status = st.origin().robotsURL(), int(st.status)
		if re, ok := e.Err.(*acap.ReferenceError); ok {
			re.RobotsURL = e.RobotsURL
		}
		if !e.NotBefore.IsZero() {
			e.retryIn = max(e.NotBefore.Sub(now), 0)
		}
		return 0, e
	}
	every, over := st.every, st.over
	if g != st.group {
		every, over = t.interval(g)
	}
	if over && t.RefuseAboveMaxDelay {
		d, _ := askedDelay(g)
		e := &DisallowedError{Reason: ReasonDelay, Method: req.Method, URL: req.URL.Redacted(), Agent: t.agent(ua),
			RobotsURL: st.origin().robotsURL(), Status: int(st.status), Delay: d}
		return 0, e
	}
	return every, nil
}

// goUserAgent is the User-Agent net/http sends for a request without one.
const goUserAgent = "Go-http-client/1.1"

// requestAgent returns the User-Agent the rules are decided for: UserAgent,
// or else the request's, as net/http sends it (its default when the request
// has none).
func (t *Transport) requestAgent(req *http.Request) string {
	if t.UserAgent != "" {
		return t.UserAgent
	}
	if v, ok := req.Header["User-Agent"]; ok {
		if len(v) == 0 {
			return ""
		}
		return v[0]
	}
	return goUserAgent
}

// groupAgent returns what selects the group of the agent whose User-Agent
// is ua: its product token, read by RFC 9110, or ua itself when it has
// none (the Google dialect compares such an agent as given).
func groupAgent(ua string) string {
	if tok := policy.ProductToken(ua); tok != "" {
		return tok
	}
	return ua
}

// agent returns the product token of the agent that the rules are decided
// for, ua being the request's.
func (t *Transport) agent(ua string) string {
	if t.UserAgent == "" {
		return policy.ProductToken(ua)
	}
	return t.token
}

// access returns what the origin's robots.txt allows at now: the last
// usable response, while it is fresh or, when fetches fail, for as long as
// the cache policy lets a copy stand in; AccessUnreachable without one;
// and AccessAllowAll after a long time unreachable (RFC 9309 §2.3.1.4).
func (t *Transport) access(st *originState, now time.Time) Access {
	if st.status != 0 && (st.more.failures == 0 || t.usableStale(st, now)) {
		return st.access
	}
	if !t.DisallowWhileUnreachable {
		if e := st.entry(); t.cachePolicy().LongUnreachable(&e, now) {
			return AccessAllowAll
		}
	}
	return AccessUnreachable
}

// interval returns the pause to keep between requests that follow g (nil
// for no rules): its Crawl-delay, or else the interval of its
// Request-rate, capped at MaxDelay; Delay when it gives neither. It
// reports whether g asks for more than MaxDelay.
func (t *Transport) interval(g *policy.Group) (time.Duration, bool) {
	if d, ok := askedDelay(g); ok {
		return min(d, t.maxDelay()), d > t.maxDelay()
	}
	if t.Delay < 0 {
		return 0, false
	}
	return orDefault(t.Delay, DefaultDelay), false
}

// askedDelay returns the pause that g (nil for no rules) asks for between
// requests: its Crawl-delay, or else the interval of its Request-rate; ok
// is false when it asks for neither.
func askedDelay(g *policy.Group) (d time.Duration, ok bool) {
	if g == nil {
		return 0, false
	}
	if d, ok = g.CrawlDelay(); ok {
		return d, true
	}
	if r, ok := g.RequestRate(); ok {
		return r.Interval(), true
	}
	return 0, false
}

// decideURL decides u by st's rules for the agent ua, who follows group g
// of them: nil when it may fetch u, else the refusal with its reason and
// details. A signal that decides crawling (ACAP's records) decides in
// place of the rules.
func decideURL(st *originState, u *url.URL, ua string, g *policy.Group) *DisallowedError {
	if d := st.more.crawl; d != nil {
		return d.decideCrawl(u, ua)
	}
	if g.AllowedURL(u) {
		return nil // the common case, without the Decision
	}
	return &DisallowedError{Reason: ReasonRule, Decision: g.DecideURL(u)}
}

// decidePaths decides u as decideURL does, and, with NormalizePaths on, u
// with its path normalised too (see normalizedURL): the first refusal, or
// nil when both are allowed.
func (t *Transport) decidePaths(st *originState, u *url.URL, ua string, g *policy.Group) *DisallowedError {
	if e := decideURL(st, u, ua, g); e != nil || !t.NormalizePaths {
		return e
	}
	if n, ok := normalizedURL(u); ok {
		return decideURL(st, n, ua, g)
	}
	return nil
}
