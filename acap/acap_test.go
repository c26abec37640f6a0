package acap_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
		{agent: "foo", url: "/a", usage: acap.Present, purpose: "news", permitted: false, reason: acap.BasisConflict},
		{agent: "foo", url: "/a", usage: acap.Present, permitted: true, line: 8},
	})

	// Two records naming the crawler are pooled; neither overrides.
	p = acap.Parse(file(
		"ACAP-crawler: foobot",
		"ACAP-allow-crawl: /a/",
		"ACAP-crawler: FooBot/2.0",
		"ACAP-disallow-crawl: /a/b/",
	))
	check(t, p, []want{
		{agent: "FooBot/1.0", url: "/a/b/c", usage: acap.Crawl, permitted: false, line: 4},
		{agent: "FooBot/1.0", url: "/a/c", usage: acap.Crawl, permitted: true, line: 2},
		{agent: "foo", url: "/a/b/c", usage: acap.Crawl, permitted: true, reason: acap.BasisNone},
	})
}

func TestNarrowestScope(t *testing.T) { // 2.4.6
	for _, tc := range []struct {
		allow, disallow, path string
		permitted             bool
		reason                acap.Basis
	}{
		{"/news/", "/news/sport/", "/news/sport/a", false, acap.BasisField},
		{"/news/sport/", "/news/", "/news/sport/a", true, acap.BasisField},
		// A pattern that has run out is wider.
		{"/a$", "/a", "/a", true, acap.BasisField},
		// '$' is wider than anything else, even '*' (so /docs* is
		// narrower than /docs$).
		{"/docs*", "/docs$", "/docs", true, acap.BasisField},
		// '*' is wider than a literal, whatever the lengths.
		{"/a*c", "/ab", "/abc", false, acap.BasisField},
		{"/private/", "/*.pdf", "/private/x.pdf", true, acap.BasisField},
		{"*.pdf", "/", "/x.pdf", false, acap.BasisField},
		// Two literals differ: undecidable, so prohibited.
		{"/*a", "/*b", "/ab", false, acap.BasisConflict},
		{"/a", "/a", "/a", false, acap.BasisConflict},
		// Patterns compare in canonical form, ignoring case.
		{"/%7Ea/", "/~A", "/~a/b", true, acap.BasisField},
	} {
		p := acap.Parse(file("ACAP-crawler: *", "ACAP-allow-crawl: "+tc.allow, "ACAP-disallow-crawl: "+tc.disallow))
		d := p.Decide(acap.Query{Agent: "bot", URL: tc.path, Usage: acap.Crawl})
		if d.Permitted != tc.permitted || d.Basis != tc.reason {
			t.Errorf("allow %q, disallow %q on %q: got %v", tc.allow, tc.disallow, tc.path, d)
		}
		if d.Basis == acap.BasisConflict && len(d.Conflict) != 2 {
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
		if d.Basis == acap.BasisField && d.Field.FellBack != (tc.q.Honours != nil || tc.q.Interprets != nil) {
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
// records, the crawl decisions are those of the policy package, made by
// the same rule.
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
				want := r.Group(agent).Decide(u)
				if d.Permitted != want.Allowed {
					t.Fatalf("%s: %s %s: ACAP %v, policy %v", f, agent, u, d, want)
				}
				byRule := d.Basis == acap.BasisField && d.Field.Conventional
				if byRule != (want.Basis == policy.BasisRule) || byRule && (d.Field.Line != want.Rule.Line || d.Field.Text != want.Rule.String()) {
					t.Fatalf("%s: %s %s: ACAP %v (%+v), policy %v", f, agent, u, d, d.Field, want)
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

// adversarialFiles are files of about 500 KiB built to make a reader's
// cost grow with the square of their size, each with the verdict a crawl
// of /a/b must get.
var adversarialFiles = []struct {
	name      string
	body      func() []byte
	permitted bool
}{
	// 16,000 wildcard fields, all matching.
	{"wildcards", func() []byte { return adversarial(16000) }, false},
	// A composite usage of 6,000 qualified usages of index, and 7,000
	// fields naming it.
	{"composite", func() []byte {
		var b, c strings.Builder
		b.WriteString("ACAP-version: 1.1\n")
		c.WriteString("ACAP-composite-usage: c crawl")
		for i := range 6000 {
			fmt.Fprintf(&b, "ACAP-qualified-usage: q%d index time-limit=%d-days\n", i, i)
			fmt.Fprintf(&c, " (q%d)", i)
		}
		b.WriteString(c.String() + "\nACAP-crawler: *\nACAP-disallow-crawl: /a/b\n")
		for range 7000 {
			b.WriteString("ACAP-allow-(c): /\n")
		}
		return []byte(b.String())
	}, false},
	// A resource set of 40,000 patterns, named by 4,000 fields.
	{"set", func() []byte {
		var b strings.Builder
		b.WriteString("ACAP-resource-set: s")
		for i := range 20000 {
			fmt.Fprintf(&b, " /*%d", i%10)
		}
		for i := range 20000 {
			fmt.Fprintf(&b, " /x%d", i)
		}
		b.WriteString(" /a/\nACAP-crawler: *\n")
		for i := range 4000 {
			fmt.Fprintf(&b, "ACAP-allow-crawl: the-acap:resource-set:s\nACAP-disallow-crawl: /a/b%d\n", i%3)
		}
		return []byte(b.String())
	}, true},
	// 900 permissions of other with 32 distinct usage-ref qualifiers
	// each, all of narrowest scope: the crawler must honour them all.
	{"qualifiers", func() []byte {
		var b strings.Builder
		b.WriteString("ACAP-version: 1.1\nACAP-crawler: *\n")
		for i := range 900 {
			b.WriteString("ACAP-allow-other: /")
			for j := range 32 {
				fmt.Fprintf(&b, " usage-ref=/%x", i*32+j)
			}
			b.WriteString("\n")
		}
		return []byte(b.String())
	}, true},
	// A qualified usage with 32 qualifiers, named 10 times by each of
	// 4,000 composite usages, each named by a field.
	{"definitions", func() []byte {
		var b strings.Builder
		b.WriteString("ACAP-version: 1.1\nACAP-qualified-usage: q other")
		for i := range 32 {
			fmt.Fprintf(&b, " usage-ref=/%d", i)
		}
		b.WriteString("\n")
		for i := range 4000 {
			fmt.Fprintf(&b, "ACAP-composite-usage: c%d%s\n", i, strings.Repeat(" (q)", 10))
		}
		b.WriteString("ACAP-crawler: *\n")
		for i := range 4000 {
			fmt.Fprintf(&b, "ACAP-allow-(c%d): /\n", i)
		}
		return []byte(b.String())
	}, true},
	// A qualified usage with 16,000 qualifiers, named 20,000 times by one
	// composite usage and once by each of 4,000 others.
	{"qualified", func() []byte {
		var b strings.Builder
		b.WriteString("ACAP-version: 1.1\nACAP-qualified-usage: q other")
		for i := range 16000 {
			fmt.Fprintf(&b, " usage-ref=/%x", i)
		}
		b.WriteString("\nACAP-composite-usage: c" + strings.Repeat(" (q)", 20000) + "\n")
		for i := range 4000 {
			fmt.Fprintf(&b, "ACAP-composite-usage: c%d (q)\n", i)
		}
		return []byte(b.String() + "ACAP-crawler: *\nACAP-allow-(c): /\nACAP-allow-(c1): /\n")
	}, false},
	// 25,000 permissions of one pattern.
	{"fields", func() []byte {
		return []byte("ACAP-crawler: *\n" + strings.Repeat("ACAP-allow-crawl: /\n", 25000))
	}, true},
	// 10,000 records naming crawlers, each with a field.
	{"records", func() []byte {
		var b strings.Builder
		for i := range 10000 {
			fmt.Fprintf(&b, "ACAP-crawler: bot%d\nACAP-allow-crawl: /%d\n", i, i)
		}
		return []byte(b.String() + "ACAP-crawler: *\nACAP-disallow-crawl: /a/\n")
	}, false},
}

// TestAdversarialFiles checks the verdicts on files built to defeat the
// package; BenchmarkAdversarial measures their cost.
func TestAdversarialFiles(t *testing.T) {
	for _, tc := range adversarialFiles {
		body := tc.body()
		if len(body) < 300<<10 || len(body) > 500<<10 { // whole, within the size limit
			t.Fatalf("%s: file of %d bytes", tc.name, len(body))
		}
		p := acap.Parse(body)
		d := p.Decide(acap.Query{Agent: "bot", URL: "/a/b", Usage: acap.Crawl})
		if d.Permitted != tc.permitted {
			t.Errorf("%s: %v", tc.name, d)
		}
		if m := p.MemSize(); m > 20*len(body) {
			t.Errorf("%s: MemSize %d for %d bytes", tc.name, m, len(body))
		}
	}
}

func TestAdversarialWildcards(t *testing.T) {
	p := acap.Parse(adversarial(20000))
	// Every pattern starts "/*a"; then a literal 'a' is narrower than
	// '*', and the longest run of them narrowest: "/*aaaaa", which the
	// file holds with both verdicts.
	d := p.Decide(acap.Query{Agent: "bot", URL: "/" + strings.Repeat("a", 2000), Usage: acap.Crawl})
	if d.Permitted || d.Basis != acap.BasisConflict || len(d.Conflict) < 2 {
		t.Fatalf("got %v", d.Basis)
	}
	for _, f := range d.Conflict {
		if f.Pattern != "/*aaaaa" {
			t.Errorf("conflicting field %v", f)
		}
	}
}

// TestRecordEnds checks that a record and a sub-record end where section
// 2.3 says, whatever the fields before were worth.
func TestRecordEnds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		w     want
	}{
		{"after a field naming an undefined set", []string{
			"ACAP-crawler: named-crawler",
			"ACAP-allow-(cache): the-acap:resource-set:crawable",
			"ACAP-crawler: *",
			"ACAP-disallow-crawl: /",
		}, want{agent: "otherbot", url: "/a", usage: acap.Crawl, permitted: false, line: 4}},
		{"after a field using an ACAP 1.1 feature in a 1.0 file", []string{
			"ACAP-crawler: a",
			"ACAP-allow-index: /x/ time-limit=until-recrawled time-limit=3-days",
			"ACAP-crawler: b",
			"ACAP-disallow-crawl: /",
		}, want{agent: "a", url: "/a", usage: acap.Crawl, permitted: true}},
		{"after a field without a colon", []string{
			"ACAP-crawler: a",
			"ACAP-allow-index /x/",
			"ACAP-crawler: b",
			"ACAP-disallow-crawl: /",
		}, want{agent: "a", url: "/a", usage: acap.Crawl, permitted: true}},
		{"a sub-record after an unknown usage", []string{
			"ACAP-crawler: *",
			"ACAP-usage-purpose: news",
			"ACAP-allow-bogus: /",
			"ACAP-usage-purpose: images",
			"ACAP-disallow-index: /",
		}, want{agent: "bot", url: "/a", usage: acap.Index, purpose: "news", permitted: true}},
		// A User-agent line starts a conventional group, not a new ACAP
		// record: the ACAP fields after it still belong to the record.
		{"across a conventional group", []string{
			"ACAP-crawler: *",
			"ACAP-allow-crawl: /",
			"User-agent: *",
			"ACAP-disallow-index: /private/",
		}, want{agent: "bot", url: "/private/a", usage: acap.Index, permitted: false, line: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check(t, acap.Parse(file(tc.lines...)), []want{tc.w})
		})
	}
}

// TestOverridesBeforeFallback: the overrides compare the usages as written,
// so a crawler that understands less does not get more.
func TestOverridesBeforeFallback(t *testing.T) {
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-disallow-present-snippet: /",
		"ACAP-disallow-index: /",
		"ACAP-crawler: bot",
		"ACAP-allow-present: /",
		"ACAP-allow-crawl: /",
	))
	cannot := func(us ...acap.Usage) func(acap.Usage) bool {
		return func(u acap.Usage) bool { return !slices.Contains(us, u) }
	}
	for _, tc := range []struct {
		q      acap.Query
		reason acap.Basis
	}{
		{acap.Query{Usage: acap.PresentSnippet}, acap.BasisConflict},
		{acap.Query{Usage: acap.PresentSnippet, Interprets: cannot(acap.PresentSnippet)}, acap.BasisConflict},
		{acap.Query{Usage: acap.Crawl, Interprets: cannot(acap.Index)}, acap.BasisConflict},
		// A prohibition that fell back to crawl still prohibits the
		// usage it was written for.
		{acap.Query{Usage: acap.Index, Interprets: cannot(acap.Index)}, acap.BasisField},
	} {
		tc.q.Agent, tc.q.URL = "bot", "/a"
		if d := p.Decide(tc.q); d.Permitted || d.Basis != tc.reason {
			t.Errorf("%s: got %v, want prohibited (%v)", tc.q.Usage, d, tc.reason)
		}
	}
}

func TestConventionalAgainstOverriddenField(t *testing.T) {
	p := acap.Parse(file(
		"User-agent: *",
		"Disallow: /x/",
		"ACAP-crawler: bot",
		"ACAP-allow-crawl: /",
		"ACAP-crawler: *",
		"ACAP-allow-crawl: /x/",
	))
	// For bot the "*" field is overridden: it cannot make the
	// conventional Disallow: /x/ be ignored.
	check(t, p, []want{
		{agent: "bot", url: "/x/a", usage: acap.Crawl, permitted: false, line: 2},
		{agent: "other", url: "/x/a", usage: acap.Crawl, permitted: true, line: 6},
	})
}

func TestQualifiersAcrossFields(t *testing.T) {
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-allow-present-snippet: /a/ max-length=250-chars",
		"ACAP-allow-present-snippet: /a/ max-length=10-words",
	))
	// Each field's repetition rules stay within it: both limits hold.
	check(t, p, []want{{agent: "bot", url: "/a/1", usage: acap.PresentSnippet, permitted: true, line: 2,
		quals: "max-length=250-chars max-length=10-words"}})
}

func TestCompositeWithOther(t *testing.T) {
	p := acap.Parse(file(
		"ACAP-composite-usage: c crawl other",
		"ACAP-crawler: *",
		"ACAP-disallow-crawl: /",
		"ACAP-allow-(c): /a/",
	))
	checkProblems(t, p, 1)
	check(t, p, []want{{agent: "bot", url: "/a/1", usage: acap.Crawl, permitted: true, line: 4}})
}

func TestZeroValues(t *testing.T) {
	var p acap.Policy
	if d := p.Decide(acap.Query{Agent: "a", URL: "/", Usage: acap.Crawl}); !d.Permitted {
		t.Errorf("zero Policy: %v", d)
	}
	if (acap.Reference{}).AppliesTo("a") {
		t.Error("zero Reference applies")
	}
	q := acap.Parse(file("ACAP-crawler: *", "ACAP-disallow-crawl: /x/"))
	if got := q.Include(acap.Reference{}, file("ACAP-crawler: *", "ACAP-disallow-crawl: /")); got != q {
		t.Error("Include of a foreign reference changed the policy")
	}
	if p.MemSize() <= 0 || len(p.Problems()) != 0 || p.HasRecords() {
		t.Error("zero Policy")
	}
}

func TestVersionSyntax(t *testing.T) {
	for _, lines := range [][]string{
		{"ACAP-version: -0.5", "ACAP-crawler: *"},
		{"ACAP-version: 1.x", "ACAP-crawler: *"},
		{"ACAP-allow-index /x", "ACAP-version: 1.1"},
	} {
		p := acap.Parse(file(lines...))
		if p.Version() != "" {
			t.Errorf("%q: Version = %q", lines, p.Version())
		}
	}
}

// TestQualifierValues reads every value range of Annex A, each valid in an
// ACAP 1.1 file; those that ACAP 1.1 added are ignored in a 1.0 file.
func TestQualifierValues(t *testing.T) {
	for _, tc := range []struct {
		usage, qualifier string
		v11              bool
	}{
		{"present-snippet", "max-length=30-words", false},
		{"present-oldsnippet", "max-length=400-chars", false},
		{"present", "must-include-resource=http://example.com/credit.png", false},
		{"present", "must-include-resource=plus-terms", false},
		{"present-snippet", "must-include-resource=the-acap:extract:id:lede", false},
		{"present", "must-include-resource=the-acap:credit:class:byline", false},
		{"present", "must-include-resource=the-acap:link:meta:source", false},
		{"present", "must-include-resource=the-acap:license-link:http://example.com/l", true},
		{"present", "must-include-resource=the-acap:registration-link:http://example.com/r", true},
		{"present", "must-include-resource=the-acap:credit:text:By%20us", true},
		{"index", "must-use-resource=the-acap:extract:id:main", false},
		{"index", "must-use-resource=the-acap:extract:meta:description", false},
		{"index", "must-use-resource=the-acap:extract:idlist:a,b", true},
		{"index", "must-use-resource=the-acap:extract:classlist:a,b", true},
		{"present-link", "must-use-resource=the-acap:text:Read%20more", true},
		{"present-original", "prohibited-modification=translation", false},
		{"present", "prohibited-modification=appearance", true},
		{"present", "prohibited-modification=content", true},
		{"present", "prohibited-modification=metadata", true},
		{"present", "prohibited-modification=structure", true},
		{"present", "prohibited-modification=plus-terms", true},
		{"present-oldcopy", "required-context=within-user-frame", true},
		{"present-oldcopy", "prohibited-context=within-user-frame", false},
		{"preserve", "time-limit=plus-terms", true},
		{"other", "usage-ref=http://example.com/terms", true},
		{"other", "usage-ref=the-acap:link:id:terms", true},
		{"other", "usage-ref=the-acap:permission-link:http://example.com/ask", true},
		{"other", "usage-ref=the-acap:terms-link:text:See%20terms", true},
	} {
		field := "ACAP-allow-" + tc.usage + ": /x/ " + tc.qualifier
		p := acap.Parse(file("ACAP-version: 1.1", "ACAP-crawler: *", field))
		d := p.Decide(acap.Query{Agent: "bot", URL: "/x/1", Usage: acap.Usage(tc.usage)})
		if len(p.Problems()) != 0 || !d.Permitted || len(d.Qualifiers) != 1 || d.Qualifiers[0].String() != tc.qualifier {
			t.Errorf("%s: %v, problems %v", field, d, p.Problems())
		}
		old := acap.Parse(file("ACAP-crawler: *", field))
		if got := len(old.Problems()) == 1; got != tc.v11 {
			t.Errorf("%s in a 1.0 file: ignored = %v, want %v", field, got, tc.v11)
		}
	}
	// time-limit=plus-terms followed by another: plus-terms is dropped
	// (reading 6).
	p := acap.Parse(file("ACAP-version: 1.1", "ACAP-crawler: *", "ACAP-allow-index: /x/ time-limit=plus-terms time-limit=3-days"))
	check(t, p, []want{{agent: "bot", url: "/x/1", usage: acap.Index, permitted: true, line: 3, quals: "time-limit=3-days"}})
}

// TestQualifierUsages: a permission with a qualifier that Annex A does not
// list for its usage cannot be honoured as written, so it is read as a
// prohibition of that usage (section 2.4.3), and a problem says so.
func TestQualifierUsages(t *testing.T) {
	for _, tc := range []struct{ usage, qualifier string }{
		{"present-thumbnail", "must-include-resource=plus-terms"},
		{"present-link", "must-include-resource=the-acap:credit:class:byline"},
		{"index", "max-length=3-words"},
		{"present-link", "prohibited-context=within-user-frame"},
		{"present-snippet", "target-condition=the-acap:target:url:http://example.com/"},
		{"crawl", "time-limit=3-days"},
		{"index", "usage-ref=http://example.com/terms"},
	} {
		field := "ACAP-allow-" + tc.usage + ": /x/ " + tc.qualifier
		p := acap.Parse(file("ACAP-version: 1.1", "ACAP-crawler: *", field))
		d := p.Decide(acap.Query{Agent: "bot", URL: "/x/1", Usage: acap.Usage(tc.usage)})
		probs := p.Problems()
		if len(probs) != 1 || !strings.Contains(probs[0].Reason, "does not apply to usage") ||
			d.Permitted || d.Basis != acap.BasisField || !d.Field.FellBack {
			t.Errorf("%s: %v, problems %v", field, d, probs)
		}
	}
}

// TestOtherFallsBack: a prohibition of other that the crawler cannot act
// on becomes one of crawl, and still prohibits every other usage
// (reading 11).
func TestOtherFallsBack(t *testing.T) {
	p := acap.Parse(file("ACAP-crawler: *", "ACAP-disallow-other: /", "ACAP-allow-index: /public/"))
	notOther := func(u acap.Usage) bool { return u != acap.Other }
	for _, tc := range []struct {
		url       string
		usage     acap.Usage
		permitted bool
	}{
		{"/x", acap.Index, false},
		{"/x", acap.PresentSnippet, false},
		{"/x", acap.Crawl, false},
		{"/public/x", acap.Index, true},
	} {
		d := p.Decide(acap.Query{Agent: "bot", URL: tc.url, Usage: tc.usage, Interprets: notOther})
		if d.Permitted != tc.permitted {
			t.Errorf("%s for %s: %v", tc.url, tc.usage, d)
		}
	}
}

// TestMalformedProhibitions: a prohibition that breaks the grammar still
// prohibits at least what it meant (reading 18), and a set that is not
// defined names nothing; a permission that breaks the grammar is ignored.
func TestMalformedProhibitions(t *testing.T) {
	for _, tc := range []struct {
		field    string
		problems int
		w        []want
	}{
		{"ACAP-disallow-crawl: /a/ /b/", 1, []want{
			{agent: "bot", url: "/a/x", usage: acap.Crawl, permitted: false, line: 3},
			{agent: "bot", url: "/b/x", usage: acap.Crawl, permitted: true},
		}},
		{"ACAP-disallow-crawl: /a/ time-limit=3-days", 1, []want{
			{agent: "bot", url: "/a/x", usage: acap.Crawl, permitted: false, line: 3},
		}},
		// A resource set that is not defined has no members: the
		// prohibition applies to no resource (reading 18).
		{"ACAP-disallow-index: the-acap:resource-set:priv", 1, []want{
			{agent: "bot", url: "/x", usage: acap.Index, permitted: true},
			{agent: "bot", url: "/x", usage: acap.Crawl, permitted: true},
		}},
		{"ACAP-disallow-(crawling): /a/", 1, []want{
			{agent: "bot", url: "/a/x", usage: acap.Crawl, permitted: false, line: 3},
			{agent: "bot", url: "/a/x", usage: acap.Index, permitted: false, line: 3},
			{agent: "bot", url: "/a/x", usage: acap.Follow, permitted: true},
		}},
		{"ACAP-disallow-(crawling): /a/ time-limit=3-days", 2, []want{
			{agent: "bot", url: "/a/x", usage: acap.Index, permitted: false, line: 3},
		}},
		{"ACAP-disallow-(crawling): the-acap:resource-set:priv", 1, []want{
			{agent: "bot", url: "/x", usage: acap.Index, permitted: true},
		}},
		{"ACAP-allow-crawl: the-acap:resource-set:priv", 1, []want{
			{agent: "bot", url: "/x", usage: acap.Crawl, permitted: true},
		}},
		{"ACAP-allow-crawl: /a/ /b/", 1, []want{
			{agent: "bot", url: "/a/x", usage: acap.Crawl, permitted: true},
		}},
	} {
		p := acap.Parse(file("ACAP-composite-usage: crawling crawl index", "ACAP-crawler: *", tc.field))
		if len(p.Problems()) != tc.problems {
			t.Errorf("%s: problems %v", tc.field, p.Problems())
		}
		check(t, p, tc.w)
	}
}

// TestAnyRecordNamingOthers: an ACAP-crawler record for "*" that also
// names a crawler is read as one for any crawler, whatever the order of
// its lines.
func TestAnyRecordNamingOthers(t *testing.T) {
	for _, names := range [][2]string{{"*", "somebot"}, {"somebot", "*"}} {
		p := acap.Parse(file("ACAP-crawler: "+names[0], "ACAP-crawler: "+names[1], "ACAP-disallow-crawl: /"))
		checkProblems(t, p, 2)
		check(t, p, []want{
			{agent: "otherbot", url: "/x", usage: acap.Crawl, permitted: false, line: 3},
			{agent: "somebot", url: "/x", usage: acap.Crawl, permitted: false, line: 3},
		})
	}
}

// TestIgnoredOccurrences: occurrences of a qualifier that the rules for
// repetition ignore are not read, so their values do not matter.
func TestIgnoredOccurrences(t *testing.T) {
	p := acap.Parse(file("ACAP-version: 1.1", "ACAP-crawler: *",
		"ACAP-allow-index: /a/ time-limit=3-days time-limit=until-recrawled time-limit=bogus",
		"ACAP-allow-present-snippet: /a/ max-length=20-words max-length=bogus",
	))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/a/x", usage: acap.Index, permitted: true, line: 3, quals: "time-limit=3-days time-limit=until-recrawled"},
		{agent: "bot", url: "/a/x", usage: acap.PresentSnippet, permitted: true, line: 4, quals: "max-length=20-words"},
	})
}

// TestTooManyQualifiers: a permission with more qualifiers than any
// reading needs cannot be interpreted, and is read as a prohibition;
// so is a usage to which a composite usage gives that many.
func TestTooManyQualifiers(t *testing.T) {
	refs := func(from, n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("usage-ref=/t%d", from+i))
		}
		return strings.Join(s, " ")
	}
	p := acap.Parse(file("ACAP-version: 1.1",
		"ACAP-qualified-usage: q1 other "+refs(0, 20),
		"ACAP-qualified-usage: q2 other "+refs(20, 20),
		"ACAP-qualified-usage: q3 other "+refs(0, 32),
		"ACAP-composite-usage: both (q1) (q2) index",
		"ACAP-composite-usage: again (q3) (q3) (q1)",
		"ACAP-crawler: *",
		"ACAP-allow-other: /a/ "+refs(0, 33),
		"ACAP-allow-(both): /b/",
		"ACAP-allow-(again): /c/",
	))
	checkProblems(t, p, 8, 9)
	for _, tc := range []struct {
		url, quals string
		permitted  bool
	}{
		{"/a/x", "", false},
		{"/b/x", "", false},
		{"/c/x", refs(0, 32), true},
	} {
		d := p.Decide(acap.Query{Agent: "bot", URL: tc.url, Usage: acap.Preserve})
		var quals []string
		for _, q := range d.Qualifiers {
			quals = append(quals, q.String())
		}
		if d.Permitted != tc.permitted || strings.Join(quals, " ") != tc.quals {
			t.Errorf("preserve %s: %v", tc.url, d)
		}
	}
	if !p.Permitted("bot", "/b/x", acap.Index) {
		t.Error("the index part of a composite with too many qualifiers for other is prohibited")
	}
}
