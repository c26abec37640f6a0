package usage

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

const googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"

var xrNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func headerPage(values ...string) *Page {
	return &Page{Header: http.Header{"X-Robots-Tag": values}}
}

func metaPage(nameContent ...string) *Page {
	p := &Page{Header: http.Header{}}
	for i := 0; i+1 < len(nameContent); i += 2 {
		p.Meta = append(p.Meta, Meta{Name: nameContent[i], Content: nameContent[i+1]})
	}
	return p
}

// condOf merges the conditions of evidences as Decide does.
func condOf(ev []Evidence) Conditions {
	var c Conditions
	for _, e := range ev {
		c = c.merge(e.Conditions)
	}
	return c
}

type xrCase struct {
	name  string
	page  *Page
	agent string
	cat   Category
	want  Verdict
	cond  Conditions
	n     int // number of evidences, when not 0
}

func runXRCases(t *testing.T, cases []xrCase) {
	t.Helper()
	for _, tc := range cases {
		ev := xRobotsEvidence(tc.page, tc.agent, tc.cat, xrNow)
		for _, e := range ev {
			if e.Category != tc.cat {
				t.Errorf("%s: evidence of %s for %s", tc.name, e.Category, tc.cat)
			}
			if e.Verdict == Allowed {
				t.Errorf("%s: %v allows: this signal only restricts", tc.name, e)
			}
		}
		if got := verdictOf(ev); got != tc.want {
			t.Errorf("%s: %s for %q = %v, want %v (%v)", tc.name, tc.cat, tc.agent, got, tc.want, ev)
		}
		if got := condOf(ev); !xrSameConditions(got, tc.cond) {
			t.Errorf("%s: %s conditions = %+v, want %+v", tc.name, tc.cat, got, tc.cond)
		}
		if tc.n != 0 && len(ev) != tc.n {
			t.Errorf("%s: %d evidences, want %d: %v", tc.name, len(ev), tc.n, ev)
		}
	}
}

// Google Search Central, "Using the robots meta tag": <meta name="robots">
// addresses every crawler, <meta name="googlebot"> Googlebot only, and
// <meta name="googlebot-news"> Google News only; name and content are
// case-insensitive; several tags address several crawlers.
func TestXRobotsSpecUsingTheRobotsMetaTag(t *testing.T) {
	runXRCases(t, []xrCase{
		{"robots noindex", metaPage("robots", "noindex"), "FooBot/1.0", Search, Disallowed, Conditions{}, 1},
		{"robots noindex, no agent", metaPage("robots", "noindex"), "", Search, Disallowed, Conditions{}, 1},
		{"googlebot noindex, Googlebot", metaPage("googlebot", "noindex"), googlebotUA, Search, Disallowed, Conditions{}, 1},
		{"googlebot noindex, bingbot", metaPage("googlebot", "noindex"), "bingbot", Search, Unknown, Conditions{}, 0},
		{"googlebot noindex, no agent", metaPage("googlebot", "noindex"), "", Search, Unknown, Conditions{}, 0},
		{"googlebot-news noindex, Googlebot", metaPage("googlebot-news", "noindex"), "Googlebot", Search, Unknown, Conditions{}, 0},
		{"googlebot-news noindex, Googlebot-News", metaPage("googlebot-news", "noindex"), "Googlebot-News", Search, Disallowed, Conditions{}, 1},
		{"case", metaPage("GoogleBot", "NoIndex"), "GOOGLEBOT", Search, Disallowed, Conditions{}, 1},
		{"several crawlers, googlebot", metaPage("googlebot", "noindex", "googlebot-news", "nosnippet"), "googlebot", Snippet, Unknown, Conditions{}, 0},
		{"several crawlers, googlebot-news", metaPage("googlebot", "noindex", "googlebot-news", "nosnippet"), "googlebot-news", Snippet, Disallowed, Conditions{}, 1},
		{"several crawlers, googlebot-news search", metaPage("googlebot", "noindex", "googlebot-news", "nosnippet"), "googlebot-news", Search, Unknown, Conditions{}, 0},
		// An agent prefix is a header syntax: in a meta tag it is an
		// unknown directive.
		{"prefix in meta", metaPage("robots", "googlebot: noindex"), "googlebot", Search, Unknown, Conditions{}, 0},
		// Other meta tags carry no robots directive.
		{"description", metaPage("description", "noindex"), "FooBot", Search, Unknown, Conditions{}, 0},
		{"tdm-reservation", metaPage("tdm-reservation", "1"), "FooBot", TDM, Unknown, Conditions{}, 0},
	})
}

// Google Search Central, "Using the X-Robots-Tag HTTP header": several fields
// combine, a field holds a comma-separated list, and a field may name a user
// agent before its rules; rules without one address every crawler.
func TestXRobotsSpecUsingTheXRobotsTagHeader(t *testing.T) {
	june2010 := time.Date(2010, 6, 25, 23, 0, 0, 0, time.UTC) // 15:00 PST
	runXRCases(t, []xrCase{
		{"noindex", headerPage("noindex"), "FooBot", Search, Disallowed, Conditions{}, 1},
		{"noarchive + unavailable_after, archive", headerPage("noarchive", "unavailable_after: 25 Jun 2010 15:00:00 PST"), "FooBot", Archive, Disallowed, Conditions{}, 1},
		{"noarchive + unavailable_after, search", headerPage("noarchive", "unavailable_after: 25 Jun 2010 15:00:00 PST"), "FooBot", Search, Disallowed, Conditions{NotAfter: june2010}, 1},
		{"noimageindex + unavailable_after", headerPage("noimageindex", "unavailable_after: 25 Jun 2030 15:00:00 PST"), "FooBot", Search, Unknown, Conditions{NoImageIndex: true, NotAfter: june2010.AddDate(20, 0, 0)}, 2},
		{"googlebot/otherbot, googlebot", headerPage("googlebot: nofollow", "otherbot: noindex, nofollow"), googlebotUA, Search, Unknown, Conditions{NoFollow: true}, 1},
		{"googlebot/otherbot, otherbot", headerPage("googlebot: nofollow", "otherbot: noindex, nofollow"), "otherbot/2.0", Search, Disallowed, Conditions{NoFollow: true}, 2},
		{"googlebot/otherbot, thirdbot", headerPage("googlebot: nofollow", "otherbot: noindex, nofollow"), "thirdbot", Search, Unknown, Conditions{}, 0},
		{"googlebot/otherbot, no agent", headerPage("googlebot: nofollow", "otherbot: noindex, nofollow"), "", Search, Unknown, Conditions{}, 0},
		{"comma list", headerPage("noindex, nofollow"), "FooBot", Search, Disallowed, Conditions{NoFollow: true}, 2},
		// MDN's syntax: rules before a prefix address every crawler, the
		// prefix scopes the rules after it in the field.
		{"general then prefixed, other", headerPage("noarchive, googlebot: noindex, nofollow"), "FooBot", Search, Unknown, Conditions{}, 0},
		{"general then prefixed, archive", headerPage("noarchive, googlebot: noindex, nofollow"), "FooBot", Archive, Disallowed, Conditions{}, 1},
		{"general then prefixed, googlebot", headerPage("noarchive, googlebot: noindex, nofollow"), "Googlebot", Search, Disallowed, Conditions{NoFollow: true}, 2},
		{"two prefixes", headerPage("googlebot: noarchive, bingbot: noindex"), "googlebot", Search, Unknown, Conditions{}, 0},
		{"two prefixes, bingbot", headerPage("googlebot: noarchive, bingbot: noindex"), "bingbot", Archive, Unknown, Conditions{}, 0},
		// A prefix holds for its field only.
		{"prefix per field", headerPage("googlebot: nofollow", "noindex"), "FooBot", Search, Disallowed, Conditions{}, 1},
		{"empty prefix", headerPage("googlebot:", "noindex"), "FooBot", Search, Disallowed, Conditions{}, 1},
		{"case", headerPage("GoogleBot: NOINDEX"), "googlebot", Search, Disallowed, Conditions{}, 1},
	})
}

// Google Search Central, "Valid indexing and serving rules": each rule, mapped
// onto the categories.
func TestXRobotsSpecValidRules(t *testing.T) {
	sec := time.Second
	runXRCases(t, []xrCase{
		{"all", headerPage("all"), "a", Search, Unknown, Conditions{}, 0},
		{"index, follow", headerPage("index, follow"), "a", Search, Unknown, Conditions{}, 0},
		{"noindex", headerPage("noindex"), "a", Search, Disallowed, Conditions{}, 0},
		{"noindex, snippet", headerPage("noindex"), "a", Snippet, Unknown, Conditions{}, 0},
		{"noindex, crawl", headerPage("noindex"), "a", Crawl, Unknown, Conditions{}, 0},
		{"nofollow", headerPage("nofollow"), "a", Search, Unknown, Conditions{NoFollow: true}, 1},
		{"none", headerPage("none"), "a", Search, Disallowed, Conditions{}, 1},
		{"nosnippet", headerPage("nosnippet"), "a", Snippet, Disallowed, Conditions{}, 1},
		{"nosnippet, search", headerPage("nosnippet"), "a", Search, Unknown, Conditions{}, 0},
		{"nosnippet, ai-input", headerPage("nosnippet"), "a", AIInput, Disallowed, Conditions{}, 1},
		{"indexifembedded", headerPage("indexifembedded"), "a", Search, Unknown, Conditions{IndexIfEmbedded: true}, 1},
		{"max-snippet:20", headerPage("max-snippet:20"), "a", Snippet, Unknown, Conditions{MaxSnippet: 20}, 1},
		{"max-snippet: 20, ai-input", headerPage("max-snippet: 20"), "a", AIInput, Unknown, Conditions{MaxSnippet: 20}, 1},
		{"max-snippet:0", headerPage("max-snippet:0"), "a", Snippet, Disallowed, Conditions{}, 1},
		{"max-snippet:-1", headerPage("max-snippet:-1"), "a", Snippet, Unknown, Conditions{}, 0},
		{"max-snippet:x", headerPage("max-snippet:x"), "a", Snippet, Unknown, Conditions{}, 0},
		{"max-snippet:-2", headerPage("max-snippet:-2"), "a", Snippet, Unknown, Conditions{}, 0},
		{"max-image-preview:none", headerPage("max-image-preview:none"), "a", Snippet, Unknown, Conditions{MaxImagePreview: "none"}, 1},
		{"max-image-preview:Standard", headerPage("max-image-preview:Standard"), "a", Search, Unknown, Conditions{MaxImagePreview: "standard"}, 1},
		{"max-image-preview:large", headerPage("max-image-preview:large"), "a", Snippet, Unknown, Conditions{MaxImagePreview: "large"}, 1},
		{"max-image-preview:huge", headerPage("max-image-preview:huge"), "a", Snippet, Unknown, Conditions{}, 0},
		{"max-video-preview:0", headerPage("max-video-preview:0"), "a", Snippet, Unknown, Conditions{HasMaxVideoPreview: true}, 1},
		{"max-video-preview:-1", headerPage("max-video-preview:-1"), "a", Snippet, Unknown, Conditions{}, 0},
		{"max-video-preview:15", headerPage("max-video-preview:15"), "a", Search, Unknown, Conditions{HasMaxVideoPreview: true, MaxVideoPreview: 15 * sec}, 1},
		{"max-video-preview huge", headerPage("max-video-preview:99999999999"), "a", Search, Unknown, Conditions{}, 0},
		{"notranslate", headerPage("notranslate"), "a", Search, Unknown, Conditions{NoTranslate: true}, 1},
		{"noimageindex", headerPage("noimageindex"), "a", Search, Unknown, Conditions{NoImageIndex: true}, 1},
		{"noarchive", headerPage("noarchive"), "a", Archive, Disallowed, Conditions{}, 1},
		{"nocache (Bing)", headerPage("nocache"), "a", Archive, Disallowed, Conditions{}, 1},
		{"noai", metaPage("robots", "noai, noimageai"), "a", TrainAI, Disallowed, Conditions{}, 1},
		{"noimageai", metaPage("robots", "noimageai"), "a", TrainAI, Unknown, Conditions{}, 0},
		{"noai, search", metaPage("robots", "noai"), "a", Search, Unknown, Conditions{}, 0},
		{"unknown", headerPage("noodp, noydir, nopagereadaloud, foo=bar"), "a", Search, Unknown, Conditions{}, 0},
		{"combined list", metaPage("robots", "max-snippet:20, max-image-preview:large"), "a", Snippet, Unknown, Conditions{MaxSnippet: 20, MaxImagePreview: "large"}, 2},
	})
}

// Google Search Central, "unavailable_after: [date/time]": the date is given
// in a widely adopted format (RFC 822, RFC 850, ISO 8601); the rule is ignored
// when no valid date is given. The page is disallowed from that time on.
func TestXRobotsSpecUnavailableAfter(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Time // zero: ignored
	}{
		{"unavailable_after: 25 Jun 2010 15:00:00 PST", time.Date(2010, 6, 25, 23, 0, 0, 0, time.UTC)},
		{"unavailable_after: 2020-09-21", time.Date(2020, 9, 21, 0, 0, 0, 0, time.UTC)},
		{"unavailable_after: 25-Aug-2007 15:00:00 EST", time.Date(2007, 8, 25, 20, 0, 0, 0, time.UTC)},
		{"unavailable_after: Wed, 25 Jun 2010 15:00:00 GMT", time.Date(2010, 6, 25, 15, 0, 0, 0, time.UTC)},
		{"unavailable_after: Friday, 25-Jun-10 15:00:00 GMT", time.Date(2010, 6, 25, 15, 0, 0, 0, time.UTC)},
		{"unavailable_after: 25 Jun 2010 15:00 +0200", time.Date(2010, 6, 25, 13, 0, 0, 0, time.UTC)},
		{"unavailable_after: 2020-09-21T10:30:00Z", time.Date(2020, 9, 21, 10, 30, 0, 0, time.UTC)},
		{"unavailable_after: 2020-09-21T10:30:00+02:00", time.Date(2020, 9, 21, 8, 30, 0, 0, time.UTC)},
		{"unavailable_after: 2020-09-21T10:30:00-0500", time.Date(2020, 9, 21, 15, 30, 0, 0, time.UTC)},
		{"unavailable_after: 2020-09-21T10:30", time.Date(2020, 9, 21, 10, 30, 0, 0, time.UTC)},
		{"unavailable_after: 2020-09-21 10:30:00", time.Date(2020, 9, 21, 10, 30, 0, 0, time.UTC)},
		{"UNAVAILABLE_AFTER:2020-09-21", time.Date(2020, 9, 21, 0, 0, 0, 0, time.UTC)},
		{"unavailable_after: Mon Sep 21 10:30:00 2020", time.Date(2020, 9, 21, 10, 30, 0, 0, time.UTC)},
		{"unavailable_after: tomorrow", time.Time{}},
		{"unavailable_after: 2020-13-45", time.Time{}},
		{"unavailable_after: 25 Jun 2010 15:00:00 CEST", time.Time{}},
		{"unavailable_after:", time.Time{}},
		{"unavailable_after", time.Time{}},
	} {
		ev := xRobotsEvidence(headerPage(tc.value), "a", Search, xrNow)
		if tc.want.IsZero() {
			if len(ev) != 0 {
				t.Errorf("%q: %v, want it ignored", tc.value, ev)
			}
			continue
		}
		if len(ev) != 1 || !ev[0].Conditions.NotAfter.Equal(tc.want) {
			t.Errorf("%q: %v, want NotAfter %v", tc.value, ev, tc.want)
		}
	}
	// At or past the date, search is disallowed; before it, allowed on
	// condition.
	date := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	p := headerPage("googlebot: unavailable_after: 2030-01-02T03:04:05Z")
	for _, tc := range []struct {
		now  time.Time
		want Verdict
	}{
		{date.Add(-time.Second), Unknown},
		{date, Disallowed},
		{date.Add(time.Hour), Disallowed},
	} {
		ev := xRobotsEvidence(p, "Googlebot", Search, tc.now)
		if len(ev) != 1 || ev[0].Verdict != tc.want || !ev[0].Conditions.NotAfter.Equal(date) {
			t.Errorf("at %v: %v, want %v with NotAfter %v", tc.now, ev, tc.want, date)
		}
	}
	// Not an agent: a known directive before the colon.
	if ev := xRobotsEvidence(p, "otherbot", Search, date); len(ev) != 0 {
		t.Errorf("googlebot's unavailable_after applied to otherbot: %v", ev)
	}
}

// Google Search Central, "Using the indexifembedded rule": the examples in a
// meta tag and in headers.
func TestXRobotsSpecIndexIfEmbedded(t *testing.T) {
	for _, p := range []*Page{
		metaPage("googlebot", "noindex", "googlebot", "indexifembedded"),
		metaPage("googlebot", "noindex,indexifembedded"),
		headerPage("googlebot: noindex", "googlebot: indexifembedded"),
		headerPage("googlebot:noindex,indexifembedded"),
	} {
		ev := xRobotsEvidence(p, "Googlebot", Search, xrNow)
		if verdictOf(ev) != Disallowed || !condOf(ev).IndexIfEmbedded || len(ev) != 2 {
			t.Errorf("%+v: %v", p, ev)
		}
		if ev := xRobotsEvidence(p, "bingbot", Search, xrNow); len(ev) != 0 {
			t.Errorf("%+v: bingbot got %v", p, ev)
		}
	}
}

// Google Search Central, "Handling combined indexing and serving rules":
// directives of several tags and fields combine, the most restrictive
// applying: max-snippet:50 with nosnippet is nosnippet; with robots nofollow
// and googlebot noindex, Googlebot reads noindex, nofollow (the sum of the
// negative rules).
func TestXRobotsSpecCombiningRules(t *testing.T) {
	runXRCases(t, []xrCase{
		{"max-snippet:50, nosnippet", metaPage("robots", "max-snippet:50, nosnippet"), "a", Snippet, Disallowed, Conditions{MaxSnippet: 50}, 2},
		{"robots nofollow + googlebot noindex", metaPage("robots", "nofollow", "googlebot", "noindex"), "Googlebot", Search, Disallowed, Conditions{NoFollow: true}, 2},
		{"robots nofollow + googlebot noindex, other", metaPage("robots", "nofollow", "googlebot", "noindex"), "otherbot", Search, Unknown, Conditions{NoFollow: true}, 1},
		{"header and meta", &Page{Header: http.Header{"X-Robots-Tag": {"max-snippet:100"}}, Meta: []Meta{{"robots", "max-snippet:30", false}}}, "a", Snippet, Unknown, Conditions{MaxSnippet: 30}, 2},
		{"all does not lift noindex", headerPage("noindex", "all"), "a", Search, Disallowed, Conditions{}, 1},
		{"general and specific", headerPage("noindex", "googlebot: all"), "googlebot", Search, Disallowed, Conditions{}, 1},
	})
}

func TestXRobotsSource(t *testing.T) {
	p := &Page{
		Header: http.Header{"X-Robots-Tag": {"googlebot:  noindex ,  nofollow"}},
		Meta:   []Meta{{"googlebot", " max-snippet:20 ", false}},
	}
	ev := xRobotsEvidence(p, googlebotUA, Search, xrNow)
	want := []Source{
		{Signal: XRobotsTag, Place: InHeader, Name: "X-Robots-Tag", Text: "googlebot: noindex"},
		{Signal: XRobotsTag, Place: InHeader, Name: "X-Robots-Tag", Text: "googlebot: nofollow"},
	}
	if len(ev) != len(want) {
		t.Fatalf("%v", ev)
	}
	for i := range want {
		if ev[i].Source != want[i] {
			t.Errorf("source %d = %+v, want %+v", i, ev[i].Source, want[i])
		}
	}
	if s := ev[0].String(); s != `search disallowed by X-Robots-Tag header "googlebot: noindex"` {
		t.Errorf("String = %s", s)
	}
	ev = xRobotsEvidence(p, "googlebot", Snippet, xrNow)
	if len(ev) != 1 || ev[0].Source != (Source{Signal: MetaRobots, Place: InMeta, Name: "googlebot", Text: "max-snippet:20"}) {
		t.Errorf("%+v", ev)
	}
	// Text is cut at 200 bytes, on a character boundary.
	long := "unavailable_after: 2020-09-21" + strings.Repeat("é", 200)
	if got := xrCut(long); len(got) > 200 || !strings.HasPrefix(long, got) || len(got) < 199 {
		t.Errorf("xrCut: %d bytes", len(got))
	}
}

// The output is bounded, and the bound never drops a disallowing directive.
func TestXRobotsBounded(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 10000; i++ {
		b.WriteString("max-snippet:")
		b.WriteString(strings.Repeat("1", 1+i%9))
		b.WriteString(", nofollow, max-video-preview:")
		b.WriteString(strings.Repeat("2", 1+i%7))
		b.WriteString(", ")
	}
	b.WriteString("nosnippet")
	p := &Page{
		Header: http.Header{"X-Robots-Tag": {b.String(), b.String()}},
		Meta:   []Meta{{"robots", b.String(), false}, {"googlebot", "max-snippet:0", false}},
	}
	for _, c := range Categories() {
		ev := xRobotsEvidence(p, "googlebot", c, xrNow)
		if len(ev) > xrMaxEvidence+3 {
			t.Errorf("%s: %d evidences", c, len(ev))
		}
	}
	ev := xRobotsEvidence(p, "googlebot", Snippet, xrNow)
	var names []string
	for _, e := range ev {
		if e.Verdict == Disallowed {
			names = append(names, e.Source.Name)
		}
	}
	if strings.Join(names, ",") != "X-Robots-Tag,robots,googlebot" {
		t.Errorf("disallowing evidences from %q", names)
	}
	// Identical evidences are returned once.
	ev = xRobotsEvidence(headerPage("noindex, noindex", "NOINDEX"), "a", Search, xrNow)
	if len(ev) != 1 {
		t.Errorf("%v", ev)
	}
	// A directive too long is ignored.
	if ev := xRobotsEvidence(headerPage("max-snippet:"+strings.Repeat("0", 300)+"1"), "a", Snippet, xrNow); len(ev) != 0 {
		t.Errorf("%v", ev)
	}
	if ev := xRobotsEvidence(nil, "a", Search, xrNow); ev != nil {
		t.Errorf("nil page: %v", ev)
	}
}

func FuzzXRobotsTag(f *testing.F) {
	for _, s := range []string{
		"noindex", "noindex, nofollow", "noarchive", "unavailable_after: 25 Jun 2010 15:00:00 PST",
		"googlebot: nofollow", "otherbot: noindex, nofollow", "noimageindex",
		"googlebot: noindex", "googlebot: indexifembedded", "googlebot:noindex,indexifembedded",
		"max-snippet:20, max-image-preview:large", "max-snippet:50, nosnippet", "max-snippet:0",
		"max-snippet:-1", "max-video-preview:-1", "max-video-preview:0", "notranslate", "none", "all",
		"unavailable_after: 2020-09-21", "unavailable_after: Wed, 25 Jun 2010 15:00:00 GMT",
		"noai, noimageai", "nocache", "noarchive, googlebot: noindex, nofollow",
	} {
		f.Add(s, "Googlebot")
	}
	f.Fuzz(func(t *testing.T, value, agent string) {
		p := &Page{Header: http.Header{"X-Robots-Tag": {value}}, Meta: []Meta{{"robots", value, false}}}
		for _, c := range Categories() {
			ev := xRobotsEvidence(p, agent, c, xrNow)
			if len(ev) > xrMaxEvidence+2 {
				t.Fatalf("%s: %d evidences", c, len(ev))
			}
			for _, e := range ev {
				if e.Category != c || e.Verdict == Allowed || len(e.Source.Text) > 200 {
					t.Fatalf("%s: %+v", c, e)
				}
				if e.Verdict == Unknown && e.Conditions.IsZero() {
					t.Fatalf("%s: evidence that says nothing: %+v", c, e)
				}
			}
		}
		// A naive reading: with no colon in the value, an item "noindex"
		// or "none" disallows search for every agent, and with neither of
		// them nor unavailable_after in the value, nothing does.
		lower := strings.ToLower(value)
		search := verdictOf(xRobotsEvidence(p, agent, Search, xrNow))
		if !strings.Contains(value, ":") {
			naive := false
			for _, item := range strings.Split(lower, ",") {
				if s := strings.TrimSpace(item); s == "noindex" || s == "none" {
					naive = true
				}
			}
			if naive != (search == Disallowed) {
				t.Fatalf("%q: search %v", value, search)
			}
		}
		if !strings.Contains(lower, "noindex") && !strings.Contains(lower, "none") &&
			!strings.Contains(lower, "unavailable_after") && search == Disallowed {
			t.Fatalf("%q: search disallowed", value)
		}
	})
}

func BenchmarkXRobotsEvidence(b *testing.B) {
	p := &Page{
		Header: http.Header{"X-Robots-Tag": {"noarchive", "googlebot: max-snippet:50, max-image-preview:large, unavailable_after: 25 Jun 2030 15:00:00 PST"}},
		Meta:   []Meta{{"viewport", "width=device-width", false}, {"robots", "index, follow, max-video-preview:-1", false}, {"googlebot", "nosnippet", false}},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range Categories() {
			xRobotsEvidence(p, googlebotUA, c, xrNow)
		}
	}
}
