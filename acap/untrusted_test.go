package acap_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/acap"
)

// TestActionRequestsValidated: an action request locates a single resource
// by a path relative to the document root (section 2.6; the grammar's
// relative-part). Anything else is not returned by Actions, for a consumer
// could act on it (a wildcard take-down), and Problems reports it.
func TestActionRequestsValidated(t *testing.T) {
	bad := []string{
		"ACAP-request-take-down: /*",
		"ACAP-request-take-down: /news/$",
		"ACAP-request-take-down: the-acap:resource-set:news",
		"ACAP-request-take-down:",
		"ACAP-request-re-crawl: https://other.example/page",
		"ACAP-request-re-crawl: //other.example/page",
		"ACAP-request-re-crawl: /a /b",
		"ACAP-request-re-crawl: news/a",
		"ACAP-request-re-crawl: /a?b=c",
		"ACAP-request-re-crawl: /a%zz",
		"ACAP-request-re-crawl: /a\x00b",
	}
	good := []string{
		"ACAP-request-take-down: /news/bad-story.htm",
		"ACAP-request-re-crawl: /a%20b/c",
	}
	lines := append([]string{"ACAP-crawler: *"}, append(slices.Clone(bad), good...)...)
	p := acap.Parse(file(lines...))
	var got []string
	for _, a := range p.Actions("FooBot") {
		got = append(got, a.Path)
	}
	if want := []string{"/news/bad-story.htm", "/a%20b/c"}; !slices.Equal(got, want) {
		t.Errorf("Actions = %q, want %q", got, want)
	}
	var flagged []int
	for _, pr := range p.Problems() {
		if pr.Kind != acap.ProblemAction {
			t.Errorf("problem %v of kind %v", pr, pr.Kind)
		}
		flagged = append(flagged, pr.Line)
	}
	if len(flagged) != len(bad) {
		t.Errorf("problems at lines %v, want one per invalid request (%d)", flagged, len(bad))
	}
}

// TestUndefinedResourceSetNamesNothing: the document's own example names
// the resource set "crawable", which it does not define. A set that is not
// defined has no members (reading 18): the prohibition does not widen to
// the whole site.
func TestUndefinedResourceSetNamesNothing(t *testing.T) {
	p := acap.Parse(file(
		"ACAP-resource-set: crawlable /public/ /news/",
		"ACAP-crawler: *",
		"ACAP-disallow-index: the-acap:resource-set:crawable",
		"ACAP-disallow-present: the-acap:resource-set:crawlable",
	))
	check(t, p, []want{
		{agent: "bot", url: "/private/x", usage: acap.Index, permitted: true},
		{agent: "bot", url: "/news/x", usage: acap.Present, permitted: false, line: 4},
	})
	pr := p.Problems()
	if len(pr) != 1 || pr[0].Line != 3 || pr[0].Kind != acap.ProblemUndefined {
		t.Errorf("problems %v, want line 3 (undefined name)", pr)
	}
}

// TestProblemKinds: each problem has a kind, for programs.
func TestProblemKinds(t *testing.T) {
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-frobnicate: /x",                          // 2: unknown field
		"ACAP-allow-fly: /x",                           // 3: unknown usage
		"ACAP-allow-crawl /x",                          // 4: syntax
		"ACAP-version: 1.1",                            // 5: placement
		"ACAP-allow-index: /x time-limit=7-days",       // 6: version (a 1.1 feature without ACAP-version)
		"ACAP-allow-crawl: the-acap:resource-set:none", // 7: undefined
		"ACAP-disallow-crawl: /x max-length=3-words",   // 8: qualifier
	))
	want := map[int]acap.ProblemKind{2: acap.ProblemUnknownField, 3: acap.ProblemUnknownUsage, 4: acap.ProblemSyntax,
		5: acap.ProblemPlacement, 7: acap.ProblemUndefined, 8: acap.ProblemQualifier}
	got := map[int]acap.ProblemKind{}
	for _, pr := range p.Problems() {
		if pr.Kind == 0 || strings.HasPrefix(pr.Kind.String(), "ProblemKind(") {
			t.Errorf("%v: kind %v", pr, pr.Kind)
		}
		if _, ok := got[pr.Line]; !ok {
			got[pr.Line] = pr.Kind
		}
	}
	for line, k := range want {
		if got[line] != k {
			t.Errorf("line %d: kind %v, want %v (problems %v)", line, got[line], k, p.Problems())
		}
	}
}

// TestInvalidUsage: a usage outside ACAP 1.1's list is a caller's error,
// prohibited, not "permitted: no field applies".
func TestInvalidUsage(t *testing.T) {
	p := acap.Parse(file("ACAP-crawler: *", "ACAP-allow-present: /"))
	for _, u := range []acap.Usage{"snipet", "(cache)", "", "present-"} {
		if u.Valid() {
			t.Errorf("Usage(%q).Valid()", u)
		}
		d := p.Decide(acap.Query{Agent: "bot", URL: "/a", Usage: u})
		if d.Permitted || d.Basis != acap.BasisInvalidUsage {
			t.Errorf("Decide for usage %q: %v", u, d)
		}
	}
	if !acap.Usage("Present-Snippet").Valid() {
		t.Error("usage names ignore case")
	}
	if d := p.Decide(acap.Query{Agent: "bot", URL: "/a", Usage: "PRESENT-snippet"}); !d.Permitted {
		t.Errorf("Decide for PRESENT-snippet: %v", d)
	}
}

// TestDefinitionsReadBack: resource sets, qualified and composite usages
// can be read back as they were read.
func TestDefinitionsReadBack(t *testing.T) {
	p := acap.Parse(file(
		"ACAP-version: 1.1",
		"ACAP-resource-set: Crawlable /public/ /News/ /public/",
		"ACAP-qualified-usage: cache preserve time-limit=until-recrawled",
		"ACAP-composite-usage: basic crawl index (cache)",
		"ACAP-composite-usage: broken crawl (undefined)",
		"ACAP-crawler: *",
	))
	got := p.Definitions()
	if len(got) != 3 {
		t.Fatalf("Definitions = %+v", got)
	}
	if d := got[0]; d.Kind != acap.ResourceSet || d.Name != "crawlable" || !slices.Equal(d.Patterns, []string{"/public/", "/news/"}) {
		t.Errorf("resource set %+v", d)
	}
	if d := got[1]; d.Kind != acap.QualifiedUsage || d.Name != "cache" || len(d.Usages) != 1 ||
		d.Usages[0].Usage != acap.Preserve || len(d.Usages[0].Qualifiers) != 1 || d.Usages[0].Qualifiers[0].String() != "time-limit=until-recrawled" {
		t.Errorf("qualified usage %+v", d)
	}
	if d := got[2]; d.Kind != acap.CompositeUsage || d.Name != "basic" || len(d.Usages) != 3 {
		t.Errorf("composite usage %+v", d)
	}
	if got[0].Kind.String() != "ACAP-resource-set" {
		t.Errorf("kind %v", got[0].Kind)
	}
}

// TestAgentProductToken: records are matched on the agent's product token
// (policy.ProductToken), not as substrings of the whole User-Agent value:
// a record named "compatible" or "Mozilla" does not apply to every
// browser-like crawler, and "news" does not apply to NewsBot.
func TestAgentProductToken(t *testing.T) {
	p := acap.Parse(file(
		"ACAP-crawler: compatible",
		"ACAP-disallow-crawl: /",
		"ACAP-crawler: Mozilla",
		"ACAP-disallow-index: /",
		"ACAP-crawler: news",
		"ACAP-disallow-present: /",
		"ACAP-crawler: NewsBot",
		"ACAP-disallow-follow: /private/",
		"ACAP-request-re-crawl: /a",
		"ACAP-crawler: bot8",
		"ACAP-disallow-follow: /eight/",
	))
	ua := "Mozilla/5.0 (compatible; NewsBot/2.1; +https://news.example/bot)"
	check(t, p, []want{
		{agent: ua, url: "/a", usage: acap.Crawl, permitted: true},
		{agent: ua, url: "/a", usage: acap.Index, permitted: true},
		{agent: ua, url: "/a", usage: acap.Present, permitted: true},
		{agent: ua, url: "/private/a", usage: acap.Follow, permitted: false, line: 8},
		{agent: "newsbot", url: "/private/a", usage: acap.Follow, permitted: false, line: 8},
		{agent: "NewsBotX/1.0", url: "/private/a", usage: acap.Follow, permitted: true},
		{agent: "Bot8/1.0 (+https://example.com)", url: "/eight/a", usage: acap.Follow, permitted: false, line: 11},
		{agent: "Foo Bar", url: "/private/a", usage: acap.Follow, permitted: true},
	})
	if a := p.Actions(ua); len(a) != 1 || a[0].Path != "/a" {
		t.Errorf("Actions(%q) = %v", ua, a)
	}
	if a := p.Actions("compatible"); len(a) != 0 {
		t.Errorf("Actions(compatible) = %v", a)
	}
}

// qualifiedFile has n permissions of other for "/", each with q usage-ref
// qualifiers of its own, and a permission of index for "/a" with one.
func qualifiedFile(n, q int) []byte {
	var b strings.Builder
	b.WriteString("ACAP-version: 1.1\nACAP-crawler: *\nACAP-allow-index: /a time-limit=7-days\n")
	for i := range n {
		b.WriteString("ACAP-allow-other: /")
		for j := range q {
			fmt.Fprintf(&b, " usage-ref=/%x", i*q+j)
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// TestHonoursBounded: Decide asks Honours about 1024 qualifiers at most.
// When the permissions that apply carry more, it asks about none, and
// reads each as one the crawler cannot honour (section 2.4.3): a
// prohibition.
func TestHonoursBounded(t *testing.T) {
	for _, tc := range []struct {
		n, q      int
		permitted bool
	}{
		{32, 32, true},   // 1024
		{33, 32, false},  // 1056
		{900, 32, false}, // 28,800
		{2000, 1, false},
	} {
		p := acap.Parse(qualifiedFile(tc.n, tc.q))
		asked := 0
		honours := func(acap.Qualifier) bool { asked++; return true }
		d := p.Decide(acap.Query{Agent: "bot", URL: "/b", Usage: acap.Crawl, Honours: honours})
		if d.Permitted != tc.permitted || asked > 1024 {
			t.Errorf("%d×%d qualifiers: %v, Honours asked %d times", tc.n, tc.q, d, asked)
		}
		if !tc.permitted && (asked != 0 || d.Basis != acap.BasisField || !d.Field.FellBack || d.Field.Line != 4) {
			t.Errorf("%d×%d qualifiers: %v, Honours asked %d times", tc.n, tc.q, d, asked)
		}
		if tc.permitted && len(d.Qualifiers) != tc.n*tc.q {
			t.Errorf("%d×%d qualifiers: %d listed", tc.n, tc.q, len(d.Qualifiers))
		}
		// Without Honours, the crawler honours them all: permitted, with
		// every qualifier, in file order.
		d = p.Decide(acap.Query{Agent: "bot", URL: "/b", Usage: acap.Crawl})
		if !d.Permitted || len(d.Qualifiers) != tc.n*tc.q {
			t.Fatalf("%d×%d qualifiers, without Honours: %v with %d qualifiers", tc.n, tc.q, d.Basis, len(d.Qualifiers))
		}
		for i, q := range d.Qualifiers {
			if q.Value != fmt.Sprintf("/%x", i) {
				t.Fatalf("%d×%d qualifiers: qualifier %d is %v", tc.n, tc.q, i, q)
			}
		}
		// For index, the permission for "/a" alone counts: its qualifier
		// is asked about.
		asked = 0
		d = p.Decide(acap.Query{Agent: "bot", URL: "/a", Usage: acap.Index, Honours: honours})
		if !d.Permitted || asked != 1 || len(d.Qualifiers) != 1 {
			t.Errorf("%d×%d qualifiers, /a: %v, Honours asked %d times", tc.n, tc.q, d, asked)
		}
	}
}
