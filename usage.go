package robotsguard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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
// files are. A site whose file cannot be had (a 4xx, or while it cannot be
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
	st, _, err := t.lookup(context.WithoutCancel(req.Context()), o, dial, ua, now)
	if err != nil {
		return usage.Decision{}, err
	}
	site := &usage.Site{RobotsURL: o.robotsURL(), Status: int(st.status)}
	switch t.access(st, now) {
	case AccessRules:
		site.Rules, site.Robots = st.robots, st.more.signals
		if a := st.more.acap; a != nil {
			// The ACAP policy pools the conventional records, and
			// decides crawling in their place, as RoundTrip does.
			site.ACAP, site.Rules = a.policy, nil
		}
	case AccessAllowAll:
		site.Unread = usage.Allowed
	default:
		site.Unread = usage.Disallowed
	}
	var unread error
	if c == usage.TDM || c == usage.TrainAI {
		unread = t.tdmrep(o, dial, ua, site)
	}
	target := req.URL.RequestURI()
	if strings.HasPrefix(target, "//") {
		target = req.URL.String()
	}
	d := usage.Decide(usage.Query{Agent: t.agent(ua), URL: target, Category: c, Now: now}, site, page)
	if unread != nil {
		d.Evidence = append(d.Evidence, usage.Evidence{Category: c, Source: usage.Source{
			Signal: usage.TDMRep, Place: usage.InFile, URL: site.TDMRepURL,
			Text: clipText("cannot be read: " + unprefixed(unread))}})
	}
	return d, nil
}

// tdmrep reads o's TDMRep file into site, from memory while fresh, else
// from the Store or fetched as a robots.txt is. It leaves site.TDMRep nil
// when the site has none (a status the StatusPolicy reads as unavailable),
// and fails when the file cannot be read.
func (t *Transport) tdmrep(o origin, dial, ua string, site *usage.Site) error {
	u := &url.URL{Scheme: "http", Host: o.host, Path: usage.TDMRepPath}
	if o.https {
		u.Scheme = "https"
	}
	site.TDMRepURL = o.String() + usage.TDMRepPath
	rs := t.reference(o, u, dial, ua, time.Now().Add(t.fetchTimeout()))
	if rs.err != nil {
		return rs.err
	}
	if t.statusPolicy()(rs.entry.Status) != AccessRules {
		return nil // no file
	}
	p := rs.tdm.Load()
	if p == nil {
		// Read once for the entry's life, a file that does not parse
		// too: a large one must not cost its parse on every call.
		f, err := usage.ParseTDMRep(rs.entry.Body, site.TDMRepURL)
		p = &tdmParsed{file: f, err: err}
		rs.tdm.Store(p)
	}
	if p.err != nil {
		return p.err
	}
	site.TDMRep = p.file
	return nil
}

// robotsSignals returns the usage signals of a robots.txt body, or nil
// when it has none (most files: usage.ParseRobots then allocates nothing).
// Their evidence names the file by usage.Site.RobotsURL.
func robotsSignals(body []byte) *usage.RobotsSignals {
	if s := usage.ParseRobots(body, ""); !s.Empty() {
		return s
	}
	return nil
}

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
