package usage

import (
	"fmt"
	"time"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// A Site holds the signals a site gives for all its pages: its robots.txt
// (conventional rules, ACAP records, Content-Usage and Content-Signal lines)
// and its /.well-known/tdmrep.json. Any field may be nil.
type Site struct {
	// RobotsURL is the robots.txt's URL, for explanations.
	RobotsURL string
	// Unread, when not Unknown, says the robots.txt could not be read as
	// a file, and what that means for crawling (RFC 9309 §2.3.1.3 and
	// §2.3.1.4): Allowed when it is unavailable (a 4xx status), Disallowed
	// when it is unreachable (a 5xx status, a network error). Rules are
	// then not consulted. Status is the status it was served with, or 0.
	Unread Verdict
	Status int

	Rules  *policy.Robots // the Allow and Disallow lines: crawl
	ACAP   *acap.Policy   // the ACAP records: every category (see the package doc)
	Robots *RobotsSignals // Content-Usage and Content-Signal lines
	TDMRep *TDMRepFile    // /.well-known/tdmrep.json; nil when the site has none
	// TDMRepURL is the tdmrep.json's URL, for explanations.
	TDMRepURL string
	// RSL holds the RSL documents of the site (robots.txt License lines)
	// and of the page (Link header fields), each weighed apart.
	RSL []*RSLFile
}

// A Query asks whether Agent may use URL for Category.
type Query struct {
	// Agent is the crawler's product token or full User-Agent value.
	Agent string
	// URL is the page's absolute URL, or its path with an optional query.
	URL      string
	Category Category
	// Now is the time conditions with an end (unavailable_after) are
	// judged against; the zero Time means time.Now.
	Now time.Time
}

// Decide answers q from the site's signals and, when page is not nil, the
// page's: see the package documentation for what each signal says of each
// category and how their verdicts combine. Either of site and page may be
// nil. A Query whose Category is not valid is a Decision with Verdict
// Unknown and no evidence.
func Decide(q Query, site *Site, page *Page) Decision {
	d := Decision{Category: q.Category}
	if !q.Category.Valid() {
		return d
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	c := q.Category
	var ev []Evidence
	if site != nil {
		ev = append(ev, site.rulesEvidence(q.Agent, q.URL, c)...)
		ev = append(ev, site.acapEvidence(q.Agent, q.URL, c)...)
		if site.Robots != nil {
			crawlable := site.crawlable(q.Agent, q.URL)
			for _, e := range site.Robots.Evidence(q.Agent, q.URL, c) {
				// The attach draft's rule that preferences cover only
				// crawlable paths is Content-Usage's; a Content-Signal
				// is a reservation of rights over the site's content,
				// crawlable or not.
				if crawlable || e.Source.Signal == ContentSignal {
					if e.Source.URL == "" {
						e.Source.URL = site.RobotsURL
					}
					ev = append(ev, e)
				}
			}
		}
	}
	if page != nil && c != Crawl {
		ev = append(ev, contentUsageHeaderEvidence(page, c)...)
		ev = append(ev, xRobotsEvidence(page, q.Agent, c, now)...)
	}
	var tdm *TDMRepFile
	if site != nil {
		tdm = site.TDMRep
	}
	if tdm != nil || page != nil {
		ev = append(ev, tdmEvidence(tdm, page, q.URL, c)...)
	}
	if site != nil {
		for _, f := range site.RSL {
			ev = append(ev, f.Evidence(q.URL, c)...)
		}
	}
	if page != nil && page.HTMLTruncated && c != Crawl {
		// Meta tags past the bound were not seen: say so, deciding
		// nothing, so that an explanation does not pass over it.
		sig := MetaRobots
		if c == TDM {
			sig = TDMRep
		}
		ev = append(ev, Evidence{Category: c, Source: Source{Signal: sig, Place: InMeta,
			Text: "the page was not read whole: meta tags past the bound were not seen"}})
	}
	d.Evidence = ev
	combine(&d)
	return d
}

// combine sets d's verdict, decisive evidence and conditions from its
// evidence: the most restrictive verdict wins (any Disallowed, else any
// Allowed, else Unknown), and the conditions of every evidence that does
// not disallow are merged, the most restrictive of each kind kept. A
// disallowed use keeps only a Policy, which says how to get a licence.
func combine(d *Decision) {
	for _, e := range d.Evidence {
		switch {
		case e.Verdict == Disallowed && d.Verdict != Disallowed:
			d.Verdict, d.Decisive = Disallowed, e
		case e.Verdict == Allowed && d.Verdict == Unknown:
			d.Verdict, d.Decisive = Allowed, e
		}
	}
	if d.Verdict == Disallowed {
		// Where to get a licence matters most when the use is not free.
		for _, e := range d.Evidence {
			if e.Verdict == Disallowed && e.Conditions.Policy != "" {
				d.Conditions.Policy = e.Conditions.Policy
				break
			}
		}
		return
	}
	for _, e := range d.Evidence {
		d.Conditions = d.Conditions.merge(e.Conditions)
	}
}

// previewRank orders max-image-preview values, the most restrictive first.
var previewRank = map[string]int{"none": 1, "standard": 2, "large": 3}

// merge returns the conditions of c and o together, the most restrictive
// of each kind.
func (c Conditions) merge(o Conditions) Conditions {
	if o.MaxSnippet > 0 && (c.MaxSnippet == 0 || o.MaxSnippet < c.MaxSnippet) {
		c.MaxSnippet = o.MaxSnippet
	}
	if r := previewRank[o.MaxImagePreview]; r > 0 && (previewRank[c.MaxImagePreview] == 0 || r < previewRank[c.MaxImagePreview]) {
		c.MaxImagePreview = o.MaxImagePreview
	}
	if o.HasMaxVideoPreview && (!c.HasMaxVideoPreview || o.MaxVideoPreview < c.MaxVideoPreview) {
		c.MaxVideoPreview, c.HasMaxVideoPreview = o.MaxVideoPreview, true
	}
	if !o.NotAfter.IsZero() && (c.NotAfter.IsZero() || o.NotAfter.Before(c.NotAfter)) {
		c.NotAfter = o.NotAfter
	}
	c.NoImageIndex = c.NoImageIndex || o.NoImageIndex
	c.NoTranslate = c.NoTranslate || o.NoTranslate
	c.NoFollow = c.NoFollow || o.NoFollow
	c.IndexIfEmbedded = c.IndexIfEmbedded || o.IndexIfEmbedded
	if r := contentUseRank(o.ContentUse); r > 0 && (c.ContentUse == "" || r < contentUseRank(c.ContentUse)) {
		c.ContentUse = o.ContentUse
	}
	if c.Policy == "" {
		c.Policy = o.Policy
	}
	if len(o.ACAP) > 0 {
		c.ACAP = append(c.ACAP[:len(c.ACAP):len(c.ACAP)], o.ACAP...)
	}
	if c.License == nil {
		c.License = o.License
	}
	return c
}

// rulesEvidence returns what the robots.txt's Allow and Disallow lines
// say of crawling target: they speak of crawling only.
func (s *Site) rulesEvidence(agent, target string, c Category) []Evidence {
	if c != Crawl {
		return nil
	}
	src := Source{Signal: RobotsRules, Place: InFile, URL: s.RobotsURL}
	switch s.Unread {
	case Allowed:
		src.Text = fmt.Sprintf("status %d: unavailable, everything may be crawled", s.Status)
		return []Evidence{{Category: Crawl, Verdict: Allowed, Source: src}}
	case Disallowed:
		if s.Status != 0 {
			src.Text = fmt.Sprintf("status %d: unreachable, nothing may be crawled", s.Status)
		} else {
			src.Text = "unreachable, nothing may be crawled"
		}
		return []Evidence{{Category: Crawl, Verdict: Disallowed, Source: src}}
	}
	if s.Rules == nil {
		return nil
	}
	pd := s.Rules.Group(agent).Decide(target)
	v := Disallowed
	if pd.Allowed {
		v = Allowed
	}
	switch pd.Basis {
	case policy.BasisRule:
		src.Line, src.Text = pd.Rule.Line, pd.Rule.String()
	case policy.BasisRobotsTxt:
		src.Text = "/robots.txt is always allowed"
	case policy.BasisNoGroup:
		src.Text = "no group applies"
	default:
		src.Line, src.Text = pd.GroupLine, fmt.Sprintf("no rule of group %s matches", pd.GroupAgent)
	}
	return []Evidence{{Category: Crawl, Verdict: v, Source: src}}
}

// crawlable reports whether the robots.txt's rules let agent crawl target:
// its Content-Usage lines speak only of paths it does
// (draft-ietf-aipref-attach: preferences attach to what a crawler may
// fetch).
func (s *Site) crawlable(agent, target string) bool {
	return s.Rules == nil || s.Rules.Allowed(agent, target)
}

// acapUsages maps each category onto the ACAP usages that speak of it: all
// of them must be permitted. ACAP 1.1 has no usage for AI or mining; its
// "other" usage stands for every usage it does not name.
var acapUsages = map[Category][]acap.Usage{
	Crawl:   {acap.Crawl},
	Search:  {acap.Index},
	Snippet: {acap.PresentSnippet},
	Archive: {acap.Preserve, acap.PresentCurrentCopy},
	TrainAI: {acap.Other},
	AIInput: {acap.Other},
	TDM:     {acap.Other},
}

// acapEvidence returns what the ACAP records say of c: one evidence per
// ACAP usage the category maps onto, when a field decides it (no evidence
// when no field speaks of it, though ACAP then permits it). For crawl, when
// the records stand in for the Allow and Disallow lines (s.Rules is nil),
// a URL no field speaks of may be crawled, as under those lines.
func (s *Site) acapEvidence(agent, target string, c Category) []Evidence {
	if s.ACAP == nil || !s.ACAP.HasRecords() {
		return nil
	}
	var ev []Evidence
	for _, u := range acapUsages[c] {
		ad := s.ACAP.Decide(acap.Query{Agent: agent, URL: target, Usage: u})
		if ad.Basis == acap.BasisNone {
			if c == Crawl && s.Rules == nil {
				// The ACAP policy stands in for the Allow and Disallow
				// lines (it pools them): what no field prohibits may
				// be crawled, as RFC 9309 and ACAP 1.1 (section 2.4.3)
				// both say.
				ev = append(ev, Evidence{Category: c, Verdict: Allowed, Source: Source{
					Signal: ACAP, Place: InFile, URL: s.RobotsURL, Text: "no ACAP field applies"}})
			}
			continue
		}
		e := Evidence{Category: c, Verdict: Disallowed, Source: Source{Signal: ACAP, Place: InFile, URL: s.RobotsURL}}
		f := ad.Field
		if ad.Basis == acap.BasisConflict && len(ad.Conflict) > 0 {
			f = ad.Conflict[0]
		}
		e.Source.Line, e.Source.Text = f.Line, clip(f.Text)
		if f.Source != "" {
			e.Source.URL = f.Source
		}
		if ad.Permitted {
			e.Verdict = Allowed
			e.Conditions.ACAP = ad.Qualifiers
		}
		ev = append(ev, e)
	}
	return ev
}

// clip trims s to 200 bytes, as Source.Text holds it.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}
