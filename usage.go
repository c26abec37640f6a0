package robotsguard

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/usage"
)

// The usage signals: what a site says of the uses of its pages beyond
// crawling them (search, snippets, archives, AI training, …), decided by
// package usage from what the Transport holds.

// Usage answers whether the agent of req (UserAgent, or req's User-Agent)
// may use req's URL for category c, by the signals of its site and, when
// page is not nil, of the page itself (usage.ReadResponse reads them from
// a response): see package usage for each signal and how they combine.
//
// The site's signals are those of its robots.txt, fetched and cached as
// RoundTrip does, so a Transport that already holds the file asks the site
// nothing: its rules (crawl), its Content-Usage and Content-Signal lines,
// and, with ACAP set, its ACAP records. For tdm and train-ai, the site's
// /.well-known/tdmrep.json is read too, fetched and cached as robots.txt
// files are. For every category but crawl, the RSL licence documents the
// robots.txt's License lines name, and those page's Link fields name
// (usage.Page.Licenses), are read as well, fetched and cached the same way. A site whose file cannot be had (a 4xx, or while it cannot be
// reached and no copy stands in) does not use the protocol, as TDMRep
// says; the decision then lists the failure as an evidence that decides
// nothing.
//
// For crawl, Usage gives the robots.txt's verdict; Check gives the
// Transport's, which also weighs NormalizePaths and RefuseAboveMaxDelay.
// Usage fails when req's URL has no robots.txt (ErrUnsupportedURL) or c is
// not a category. It does not end with req's context: its fetches are
// bounded by FetchTimeout alone, because an http.Client with a Timeout ends
// the context of resp.Request when the body is closed, and
// Usage(resp.Request, …) is the call a crawler makes then.
func (t *Transport) Usage(req *http.Request, c usage.Category, page *usage.Page) (usage.Decision, error) {
	t.init()
	if !c.Valid() {
		return usage.Decision{}, fmt.Errorf("robotsguard: %q is not a usage category (%s)", c, categoryList())
	}
	if req.URL == nil {
		return usage.Decision{}, unsupportedURL("the request has no URL")
	}
	o, dial, err := requestOrigin(req)
	if err != nil {
		return usage.Decision{}, err
	}
	ua := t.requestAgent(req)
	now := t.now()
	st, _, err := t.lookup(context.WithoutCancel(req.Context()), o, dial, ua, now, 0)
	if err != nil {
		return usage.Decision{}, err
	}
	site := &usage.Site{RobotsURL: o.robotsURL(), Status: int(st.status)}
	access := t.access(st, now)
	switch access {
	case AccessRules:
		site.Rules = st.robots
	case AccessAllowAll:
		site.Unread = usage.Allowed
	default:
		site.Unread = usage.Disallowed
	}
	r := robotsRead{o: o, dial: dial, ua: ua}
	var unread []*unreadFile
	for i, s := range t.signals {
		var p signalPart
		if access == AccessRules && i < len(st.more.signals) {
			p = st.more.signals[i]
		}
		if u := s.usage(t, p, r, c, site); u != nil {
			unread = append(unread, u)
		}
	}
	if u := t.pageLicenses(r, page, c, site); u != nil {
		unread = append(unread, u)
	}
	target := req.URL.RequestURI()
	if strings.HasPrefix(target, "//") {
		target = req.URL.String()
	}
	d := usage.Decide(usage.Query{Agent: t.agent(ua), URL: target, Category: c, Now: now}, site, page)
	for _, u := range unread {
		d.Evidence = append(d.Evidence, usage.Evidence{Category: c, Source: usage.Source{
			Signal: u.signal, Place: usage.InFile, URL: u.url,
			Text: clipText("cannot be read: " + unprefixed(u.err))}})
	}
	return d, nil
}

// usageLines is the signal of robots.txt's usage lines: Content-Usage
// (IETF aipref) and Content-Signal, read by package usage. A file without
// them costs nothing: usage.ParseRobots then allocates nothing.
type usageLines struct{}

// robotsLines is usageLines' part of a robots.txt.
type robotsLines struct{ s *usage.RobotsSignals }

func (p robotsLines) memSize() int64     { return int64(p.s.MemSize()) }
func (p robotsLines) expires() time.Time { return time.Time{} }

func (usageLines) read(_ *Transport, r robotsRead, prev signalPart) signalPart {
	if prev != nil {
		return prev // the same body
	}
	// The lines' evidence names the file by usage.Site.RobotsURL.
	if s := usage.ParseRobots(r.body, ""); !s.Empty() {
		return robotsLines{s}
	}
	return nil
}

func (usageLines) usage(_ *Transport, part signalPart, _ robotsRead, _ usage.Category, site *usage.Site) *unreadFile {
	if p, ok := part.(robotsLines); ok {
		site.Robots = p.s
	}
	return nil
}

func (usageLines) fetchBudget(*Transport) time.Duration { return 0 }
func (usageLines) keepsBody() bool                      { return false }

// clipText cuts s to the 200 bytes a usage.Source's Text holds.
func clipText(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}

// categoryList names the usage categories, for error messages.
func categoryList() string {
	var names []string
	for _, c := range usage.Categories() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}
