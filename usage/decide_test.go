package usage

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

func TestCombineMostRestrictiveWins(t *testing.T) {
	allow := Evidence{Category: Search, Verdict: Allowed, Source: Source{Signal: ContentUsage, Place: InHeader, Name: "Content-Usage", Text: "search=y"}}
	deny := Evidence{Category: Search, Verdict: Disallowed, Source: Source{Signal: XRobotsTag, Place: InHeader, Name: "X-Robots-Tag", Text: "noindex"}}
	cond := Evidence{Category: Search, Conditions: Conditions{MaxSnippet: 50}, Source: Source{Signal: XRobotsTag, Place: InHeader, Name: "X-Robots-Tag", Text: "max-snippet:50"}}
	for _, tc := range []struct {
		name     string
		ev       []Evidence
		want     Verdict
		decisive Signal
	}{
		{"none", nil, Unknown, 0},
		{"conditions only", []Evidence{cond}, Unknown, 0},
		{"allow", []Evidence{allow, cond}, Allowed, ContentUsage},
		{"deny after allow", []Evidence{allow, deny}, Disallowed, XRobotsTag},
		{"deny before allow", []Evidence{deny, allow}, Disallowed, XRobotsTag},
	} {
		d := Decision{Category: Search, Evidence: tc.ev}
		combine(&d)
		if d.Verdict != tc.want || d.Decisive.Source.Signal != tc.decisive {
			t.Errorf("%s: verdict %v by %v, want %v by %v", tc.name, d.Verdict, d.Decisive.Source.Signal, tc.want, tc.decisive)
		}
		if d.Verdict != Disallowed && len(tc.ev) > 0 && tc.ev[len(tc.ev)-1].Conditions.MaxSnippet == 50 && d.Conditions.MaxSnippet != 50 {
			t.Errorf("%s: conditions %+v lost max-snippet", tc.name, d.Conditions)
		}
	}
}

func TestConditionsMergeKeepsTheMostRestrictive(t *testing.T) {
	t1 := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	a := Conditions{MaxSnippet: 100, MaxImagePreview: "large", NotAfter: t2, MaxVideoPreview: 30 * time.Second, HasMaxVideoPreview: true, Policy: "https://a.example/p"}
	b := Conditions{MaxSnippet: 20, MaxImagePreview: "standard", NotAfter: t1, MaxVideoPreview: 0, HasMaxVideoPreview: true, NoFollow: true, Policy: "https://b.example/p"}
	for _, m := range []Conditions{a.merge(b), b.merge(a)} {
		if m.MaxSnippet != 20 || m.MaxImagePreview != "standard" || !m.NotAfter.Equal(t1) || m.MaxVideoPreview != 0 || !m.HasMaxVideoPreview || !m.NoFollow {
			t.Errorf("merged %+v", m)
		}
	}
	if got := a.merge(b).Policy; got != a.Policy {
		t.Errorf("policy %q, want the first, %q", got, a.Policy)
	}
	if z := (Conditions{}).merge(Conditions{}); !z.IsZero() {
		t.Errorf("zero merged with zero is %+v", z)
	}
}

const site = `User-agent: *
Disallow: /private/

User-agent: FooBot
Allow: /private/foo/
Disallow: /private/
`

func TestCrawlByRobotsRules(t *testing.T) {
	s := &Site{RobotsURL: "https://example.com/robots.txt", Rules: policy.Parse([]byte(site))}
	for _, tc := range []struct {
		agent, url string
		want       Verdict
		line       int
	}{
		{"OtherBot/1.0", "https://example.com/private/x", Disallowed, 2},
		{"FooBot/2.1 (+https://foo.example)", "https://example.com/private/foo/x", Allowed, 5},
		{"FooBot", "https://example.com/public", Allowed, 4},
	} {
		d := Decide(Query{Agent: tc.agent, URL: tc.url, Category: Crawl}, s, nil)
		if d.Verdict != tc.want || d.Decisive.Source.Line != tc.line || d.Decisive.Source.Signal != RobotsRules {
			t.Errorf("%s %s: %v (%s), want %v at line %d", tc.agent, tc.url, d.Verdict, d, tc.want, tc.line)
		}
	}
	// The Allow and Disallow lines speak of crawling only.
	if d := Decide(Query{Agent: "OtherBot", URL: "/private/x", Category: TrainAI}, s, nil); d.Verdict != Unknown || len(d.Evidence) != 0 {
		t.Errorf("train-ai by the conventional rules: %v %v", d.Verdict, d.Evidence)
	}
}

func TestCrawlWhenRobotsTxtUnread(t *testing.T) {
	rules := policy.Parse([]byte("User-agent: *\nDisallow: /\n"))
	un := Decide(Query{Agent: "a", URL: "/x", Category: Crawl}, &Site{Unread: Allowed, Status: 404, Rules: rules}, nil)
	if un.Verdict != Allowed || !strings.Contains(un.String(), "404") {
		t.Errorf("unavailable: %v", un)
	}
	ur := Decide(Query{Agent: "a", URL: "/x", Category: Crawl}, &Site{Unread: Disallowed, Status: 503}, nil)
	if ur.Verdict != Disallowed || !strings.Contains(ur.String(), "503") {
		t.Errorf("unreachable: %v", ur)
	}
}

const acapSite = `ACAP-crawler: *
ACAP-allow-crawl: /
ACAP-allow-index: /
ACAP-disallow-index: /drafts/
ACAP-allow-present-snippet: /news/ max-length=250-chars
ACAP-disallow-preserve: /
ACAP-disallow-other: /
`

// With ACAP records in place of the Allow and Disallow lines, a URL no
// field speaks of may be crawled, as it may under those lines; the other
// categories stay unknown.
func TestACAPCrawlWithoutField(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\n\nACAP-crawler: *\nACAP-disallow-index: /drafts/\n")
	s := &Site{RobotsURL: "https://example.com/robots.txt", ACAP: acap.Parse(body)}
	for _, tc := range []struct {
		c    Category
		url  string
		want Verdict
	}{
		{Crawl, "/a", Allowed},
		{Crawl, "/private/a", Disallowed},
		{Search, "/a", Unknown},
		{Search, "/drafts/a", Disallowed},
	} {
		d := Decide(Query{Agent: "NewsBot/1.0", URL: tc.url, Category: tc.c}, s, nil)
		if d.Verdict != tc.want {
			t.Errorf("%s %s: %v (%s), want %v", tc.c, tc.url, d.Verdict, d, tc.want)
		}
	}
}

func TestACAPMapsOntoCategories(t *testing.T) {
	s := &Site{RobotsURL: "https://example.com/robots.txt", ACAP: acap.Parse([]byte(acapSite))}
	for _, tc := range []struct {
		c    Category
		url  string
		want Verdict
		line int
	}{
		{Crawl, "/drafts/a", Allowed, 2},
		{Search, "/news/1", Allowed, 3},
		{Search, "/drafts/a", Disallowed, 4},
		{Snippet, "/news/1", Allowed, 5},
		{Archive, "/news/1", Disallowed, 6},
		{TrainAI, "/news/1", Disallowed, 7},
		{AIInput, "/news/1", Disallowed, 7},
		{TDM, "/news/1", Disallowed, 7},
	} {
		d := Decide(Query{Agent: "NewsBot/1.0", URL: tc.url, Category: tc.c}, s, nil)
		if d.Verdict != tc.want || d.Decisive.Source.Signal != ACAP || d.Decisive.Source.Line != tc.line {
			t.Errorf("%s %s: %v (%s), want %v at line %d", tc.c, tc.url, d.Verdict, d, tc.want, tc.line)
		}
	}
	d := Decide(Query{Agent: "NewsBot/1.0", URL: "/news/1", Category: Snippet}, s, nil)
	if len(d.Conditions.ACAP) != 1 || d.Conditions.ACAP[0].String() != "max-length=250-chars" {
		t.Errorf("snippet conditions: %+v", d.Conditions)
	}
}

func TestInvalidCategory(t *testing.T) {
	s := &Site{Rules: policy.Parse([]byte("User-agent: *\nDisallow: /\n"))}
	if d := Decide(Query{Agent: "a", URL: "/", Category: "index"}, s, nil); d.Verdict != Unknown || len(d.Evidence) != 0 {
		t.Errorf("invalid category decided: %v", d)
	}
}

func TestUsageLinesCoverCrawlablePathsOnly(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n\n")
	s := &Site{RobotsURL: "https://example.com/robots.txt", Rules: policy.Parse(body), Robots: ParseRobots(body, "https://example.com/robots.txt")}
	if d := Decide(Query{Agent: "a", URL: "/public", Category: TrainAI}, s, nil); d.Verdict != Disallowed || d.Decisive.Source.Line != 3 {
		t.Errorf("train-ai on a crawlable path: %v", d)
	}
	if d := Decide(Query{Agent: "a", URL: "/private/x", Category: TrainAI}, s, nil); d.Verdict != Unknown {
		t.Errorf("train-ai on a path the file disallows: %v", d)
	}
}

// A Content-Signal reserves the rights over the site's content whether or
// not the file lets the agent crawl it: a copy of a disallowed page
// obtained elsewhere is still not to be trained on.
func TestContentSignalCoversDisallowedPaths(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\nContent-Signal: ai-train=no\n")
	s := &Site{RobotsURL: "https://example.com/robots.txt", Rules: policy.Parse(body), Robots: ParseRobots(body, "https://example.com/robots.txt")}
	for _, u := range []string{"/public", "/private/x"} {
		if d := Decide(Query{Agent: "a", URL: u, Category: TrainAI}, s, nil); d.Verdict != Disallowed || d.Decisive.Source.Line != 3 {
			t.Errorf("train-ai on %s: %v", u, d)
		}
	}
}

// A page whose head was cut leaves an evidence that says so, and decides
// nothing: the meta tags not seen might have spoken.
func TestTruncatedHeadIsInTheEvidence(t *testing.T) {
	p := &Page{Header: http.Header{"X-Robots-Tag": {"noarchive"}}, HTMLTruncated: true}
	for _, c := range []Category{Search, Archive, TDM} {
		d := Decide(Query{Agent: "a", URL: "/x", Category: c}, nil, p)
		if n := len(d.Evidence); n == 0 || d.Evidence[n-1].Source.Place != InMeta || d.Evidence[n-1].Verdict != Unknown {
			t.Errorf("%s: evidence %v does not tell of the cut head", c, d.Evidence)
		}
		if want := map[Category]Verdict{Search: Unknown, Archive: Disallowed, TDM: Unknown}[c]; d.Verdict != want {
			t.Errorf("%s: %v, want %v", c, d, want)
		}
	}
	if d := Decide(Query{Agent: "a", URL: "/x", Category: Crawl}, nil, p); len(d.Evidence) != 0 {
		t.Errorf("crawl: evidence %v", d.Evidence)
	}
}
