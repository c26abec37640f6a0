package acap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

func TestOverrides(t *testing.T) { // 2.2.1
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-disallow-crawl: /",
		"ACAP-disallow-index: /",
		"ACAP-usage-purpose: news",
		"ACAP-disallow-present: /",
		"ACAP-crawler: foo",
		"ACAP-allow-crawl: /",
		"ACAP-allow-present: /",
		"ACAP-crawler: bar",
		"ACAP-usage-purpose: news",
		"ACAP-allow-index: /",
		"ACAP-allow-present: /",
	))
	checkProblems(t, p)
	check(t, p, []want{
		// A named record overrides "*" for the same usage and resource...
		{agent: "foo", url: "/a", usage: acap.Crawl, permitted: true, line: 7},
		{agent: "other", url: "/a", usage: acap.Crawl, permitted: false, line: 2},
		// ...but not for other usages: overrides are per field, not per
		// record as in RFC 9309.
		{agent: "foo", url: "/a", usage: acap.Index, permitted: false, line: 3},
		// A named sub-record's field is more specific in crawler and in
		// purpose than a "*" record's field: it overrides it.
		{agent: "bar", url: "/a", usage: acap.Index, purpose: "news", permitted: true, line: 11},
		{agent: "bar", url: "/a", usage: acap.Index, permitted: false, line: 3},
		// Named sub-record over "*" sub-record, same purpose.
		{agent: "bar", url: "/a", usage: acap.Present, purpose: "news", permitted: true, line: 12},
		// A named record-level field against a "*" sub-record field: no
		// override applies, the conflict cannot be decided (reading 3).
		{agent: "foo", url: "/a", usage: acap.Present, purpose: "news", permitted: false, reason: acap.ReasonConflict},
		{agent: "foo", url: "/a", usage: acap.Present, permitted: true, line: 8},
	})

	// Two records naming the crawler are pooled; neither overrides.
	p = acap.Parse(file(
		"ACAP-crawler: foo",
		"ACAP-allow-crawl: /a/",
		"ACAP-crawler: foobot",
		"ACAP-disallow-crawl: /a/b/",
	))
	check(t, p, []want{
		{agent: "FooBot/1.0", url: "/a/b/c", usage: acap.Crawl, permitted: false, line: 4},
		{agent: "FooBot/1.0", url: "/a/c", usage: acap.Crawl, permitted: true, line: 2},
		{agent: "foo", url: "/a/b/c", usage: acap.Crawl, permitted: true, line: 2},
	})
}

func TestNarrowestScope(t *testing.T) { // 2.4.6
	for _, tc := range []struct {
		allow, disallow, path string
		permitted             bool
		reason                acap.Reason
	}{
		{"/news/", "/news/sport/", "/news/sport/a", false, acap.ReasonField},
		{"/news/sport/", "/news/", "/news/sport/a", true, acap.ReasonField},
		// A pattern that has run out is wider.
		{"/a$", "/a", "/a", true, acap.ReasonField},
		// '$' is wider than anything else, even '*' (so /docs* is
		// narrower than /docs$).
		{"/docs*", "/docs$", "/docs", true, acap.ReasonField},
		// '*' is wider than a literal, whatever the lengths.
		{"/a*c", "/ab", "/abc", false, acap.ReasonField},
		{"/private/", "/*.pdf", "/private/x.pdf", true, acap.ReasonField},
		{"*.pdf", "/", "/x.pdf", false, acap.ReasonField},
		// Two literals differ: undecidable, so prohibited.
		{"/*a", "/*b", "/ab", false, acap.ReasonConflict},
		{"/a", "/a", "/a", false, acap.ReasonConflict},
		// Patterns compare in canonical form, ignoring case.
		{"/%7Ea/", "/~A", "/~a/b", true, acap.ReasonField},
	} {
		p := acap.Parse(file("ACAP-crawler: *", "ACAP-allow-crawl: "+tc.allow, "ACAP-disallow-crawl: "+tc.disallow))
		d := p.Decide(acap.Query{Agent: "bot", URL: tc.path, Usage: acap.Crawl})
		if d.Permitted != tc.permitted || d.Reason != tc.reason {
			t.Errorf("allow %q, disallow %q on %q: got %v", tc.allow, tc.disallow, tc.path, d)
		}
		if d.Reason == acap.ReasonConflict && len(d.Conflict) != 2 {
			t.Errorf("Conflict = %v", d.Conflict)
		}
	}

	// Of several fields of one verdict, the narrowest decide; fields
	// with different literals are all narrowest when they agree.
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-disallow-present: /",
		"ACAP-allow-present: /*a time-limit=3-days",
		"ACAP-allow-present: /*b time-limit=until-recrawled",
		"ACAP-allow-present: /* max-length=1-words",
	))
	checkProblems(t, p, 5) // max-length does not qualify present
	check(t, p, []want{{agent: "bot", url: "/ab", usage: acap.Present, permitted: true, line: 3, quals: "time-limit=3-days time-limit=until-recrawled"}})
}

func TestFallback(t *testing.T) { // 2.4.3
	p := acap.Parse(file(
		"ACAP-version: 1.1",
		"ACAP-crawler: *",
		"ACAP-allow-present-snippet: /news/ max-length=250-chars",
		"ACAP-disallow-present-thumbnail: /img/",
		"ACAP-disallow-preserve: /archive/",
		"ACAP-allow-crawl: /",
	))
	checkProblems(t, p)
	noLength := func(q acap.Qualifier) bool { return q.Type != "max-length" }
	only := func(us ...acap.Usage) func(acap.Usage) bool {
		return func(u acap.Usage) bool {
			for _, x := range us {
				if x == u {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		q    acap.Query
		want want
	}{
		// A crawler that cannot limit a snippet's length may not present
		// one: the permission becomes a prohibition.
		{acap.Query{URL: "/news/a", Usage: acap.PresentSnippet, Honours: noLength}, want{permitted: false, line: 3}},
		{acap.Query{URL: "/news/a", Usage: acap.PresentSnippet}, want{permitted: true, line: 3, quals: "max-length=250-chars"}},
		// It then falls back again if the crawler cannot act on a
		// present-snippet prohibition (reading 5): present is prohibited.
		{acap.Query{URL: "/news/a", Usage: acap.PresentLink, Honours: noLength, Interprets: only(acap.Crawl, acap.Present)}, want{permitted: false, line: 3}},
		{acap.Query{URL: "/news/a", Usage: acap.PresentLink, Honours: noLength}, want{permitted: true}},
		// A thumbnail prohibition it cannot act on prohibits presenting.
		{acap.Query{URL: "/img/a", Usage: acap.Present, Interprets: only(acap.Crawl, acap.Present)}, want{permitted: false, line: 4}},
		{acap.Query{URL: "/img/a", Usage: acap.Present}, want{permitted: true}},
		// A basic prohibition it cannot act on prohibits crawling
		// (reading 4), narrower than the crawl permission of /.
		{acap.Query{URL: "/archive/a", Usage: acap.Crawl, Interprets: only(acap.Crawl)}, want{permitted: false, line: 5}},
		{acap.Query{URL: "/archive/a", Usage: acap.Crawl}, want{permitted: true, line: 6}},
		// Going from thumbnail to present to crawl.
		{acap.Query{URL: "/img/a", Usage: acap.Crawl, Interprets: only(acap.Crawl)}, want{permitted: false, line: 4}},
	} {
		tc.q.Agent = "bot"
		w := tc.want
		w.agent, w.url, w.usage = "bot", tc.q.URL, tc.q.Usage
		d := p.Decide(tc.q)
		checkDecision(t, w, d)
		if d.Reason == acap.ReasonField && d.Field.FellBack != (tc.q.Honours != nil || tc.q.Interprets != nil) {
			t.Errorf("%s %s: FellBack = %v", tc.q.URL, tc.q.Usage, d.Field.FellBack)
		}
	}
}

func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []int
	}{
		{"definition after a record", []string{"ACAP-crawler: *", "ACAP-resource-set: a /a/"}, []int{2}},
		{"composite before its qualified usage", []string{
			"ACAP-composite-usage: c (q) crawl", "ACAP-qualified-usage: q index time-limit=3-days"}, []int{1}},
		{"duplicate usage name", []string{
			"ACAP-qualified-usage: q index time-limit=3-days", "ACAP-composite-usage: Q crawl"}, []int{2}},
		{"prohibition of a local usage", []string{
			"ACAP-qualified-usage: q index time-limit=3-days", "ACAP-crawler: *", "ACAP-disallow-(q): /"}, []int{3}},
		{"prohibition with qualifiers", []string{"ACAP-crawler: *", "ACAP-disallow-index: / time-limit=3-days"}, []int{2}},
		{"unknown usage", []string{"ACAP-crawler: *", "ACAP-allow-present-video: /"}, []int{2}},
		{"unknown field", []string{"ACAP-crawler: *", "ACAP-frobnicate: /"}, []int{2}},
		{"field outside a record", []string{"ACAP-allow-crawl: /"}, []int{1}},
		{"no crawler name", []string{"ACAP-crawler:", "ACAP-allow-crawl: /"}, []int{1}},
		{"bad date", []string{"ACAP-crawler: *", "ACAP-allow-index: / time-limit=until-2009-02-30"}, []int{2}},
		{"bad version", []string{"ACAP-version: one", "ACAP-crawler: *"}, []int{1}},
		{"ignore-conventional with a value", []string{"ACAP-ignore-conventional-records: yes"}, []int{1}},
		{"not a qualifier", []string{"ACAP-crawler: *", "ACAP-allow-index: / forever"}, []int{2}},
		{"qualifier spaced around '='", []string{"ACAP-crawler: *", "ACAP-allow-index: / time-limit = 3-days"}, nil},
		{"field names ignore case", []string{"acap-CRAWLER: *", "Acap-Allow-Index: /"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkProblems(t, acap.Parse(file(tc.lines...)), tc.want...)
		})
	}
}

// TestRealFiles reads the ACAP records of two files of the corpus.
func TestRealFiles(t *testing.T) {
	read := func(name string) *acap.Policy {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return acap.Parse(body)
	}
	p := read("rsc.org.txt")
	checkProblems(t, p)
	check(t, p, []want{
		// One record names gsa-crawler and Guidebot.
		{agent: "gsa-crawler", url: "/anything", usage: acap.Crawl, permitted: false, line: 43},
		{agent: "Guidebot/1.0", url: "/anything", usage: acap.Crawl, permitted: false, line: 43},
		{agent: "bot", url: "/Labs/x", usage: acap.Crawl, permitted: false, line: 49},
		{agent: "bot", url: "/labs/x", usage: acap.Crawl, permitted: false, line: 49},
		{agent: "bot", url: "/publishing/journals/rssfeed.asp?x", usage: acap.Crawl, permitted: false, line: 54},
	})
	p = read("independent.ie.txt")
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/news/a-1.ece", usage: acap.Crawl, permitted: false, line: 82},
		{agent: "bot", url: "/news/a-1.ece?x=1", usage: acap.Crawl, permitted: true},
		{agent: "bot", url: "/news/a?service=print", usage: acap.Crawl, permitted: false, line: 85},
	})
}

// TestConventionalAgreesWithPolicy checks that, in files without ACAP
// records, the crawl decisions are those of the policy package.
func TestConventionalAgreesWithPolicy(t *testing.T) {
	files, _ := filepath.Glob("../policy/testdata/corpus/robots/*.txt")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	n := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, r := acap.Parse(body), policy.Parse(body)
		if p.HasRecords() {
			continue
		}
		site := strings.TrimSuffix(filepath.Base(f), ".txt")
		urls, _ := os.ReadFile(filepath.Join("../policy/testdata/corpus/urls", site+".urls"))
		paths := append(strings.Fields(string(urls)), "/robots.txt", "/", "/%7Ea?b=%2F")
		for _, agent := range []string{"Googlebot", "bingbot/2.0", "FooBot"} {
			for _, u := range paths {
				n++
				d := p.Decide(acap.Query{Agent: agent, URL: u, Usage: acap.Crawl})
				if want := r.Decide(agent, u); d.Permitted != want.Allowed {
					t.Fatalf("%s: %s %s: ACAP %v, policy %v", f, agent, u, d, want)
				}
			}
		}
	}
	t.Logf("%d files, %d queries", len(files), n)
}

// sharedCorpus is the project's full corpus, present beside the repository
// in CI.
const sharedCorpus = "../../shared/corpus"

// TestCorpusParses reads every file of the shared corpus, real robots.txt
// files and the non-robots bodies sites served in their place, and asks a
// decision of each.
func TestCorpusParses(t *testing.T) {
	if _, err := os.Stat(sharedCorpus); err != nil {
		t.Skipf("shared corpus not found at %s", sharedCorpus)
	}
	n, acapFiles := 0, 0
	for _, dir := range []string{"robots", "robots-longtail", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(sharedCorpus, dir, "*.txt"))
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p := acap.Parse(body)
			if p.HasRecords() {
				acapFiles++
			}
			p.Decide(acap.Query{Agent: "Googlebot", URL: "/a/b.html?c", Usage: acap.Crawl})
			n++
		}
	}
	if n < 10000 || acapFiles < 2 {
		t.Fatalf("read %d files, %d with ACAP records", n, acapFiles)
	}
	t.Logf("read %d files of %s: %d hold ACAP records", n, sharedCorpus, acapFiles)
}

// adversarial returns a file of n ACAP fields that all match /aaaa…:
// wildcard patterns, half of them permissions.
func adversarial(n int) []byte {
	var b strings.Builder
	b.WriteString("ACAP-crawler: *\n")
	for i := 0; i < n; i++ {
		verb := "allow"
		if i%2 == 1 {
			verb = "disallow"
		}
		b.WriteString("ACAP-" + verb + "-crawl: /" + strings.Repeat("*a", 1+i%7) + strings.Repeat("a", i%5) + "\n")
	}
	return []byte(b.String())
}

func TestAdversarialFile(t *testing.T) {
	body := adversarial(20000)
	if len(body) < 400<<10 {
		t.Fatalf("file of %d bytes", len(body))
	}
	p := acap.Parse(body)
	// Every pattern starts "/*a"; then a literal 'a' is narrower than
	// '*', and the longest run of them narrowest: "/*aaaaa", which the
	// file holds with both verdicts.
	d := p.Decide(acap.Query{Agent: "bot", URL: "/" + strings.Repeat("a", 2000), Usage: acap.Crawl})
	if d.Permitted || d.Reason != acap.ReasonConflict || len(d.Conflict) < 2 {
		t.Fatalf("got %v", d.Reason)
	}
	for _, f := range d.Conflict {
		if f.Pattern != "/*aaaaa" {
			t.Errorf("conflicting field %v", f)
		}
	}
}
