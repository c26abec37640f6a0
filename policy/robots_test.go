package policy_test

import (
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/policy"
)

const sample = `# Sample robots.txt
User-agent: *
Disallow: /private/
Allow: /private/public/
Crawl-delay: 2.5
Request-rate: 1/10s

User-agent: FooBot
User-agent: BarBot
Disallow: /*.pdf$
Crawl-delay: 1

Sitemap: https://example.com/sitemap.xml
Sitemap: /relative.xml
Host: example.com
Clean-param: ref /articles/
Unicorns: yes
`

func TestDecideExplains(t *testing.T) {
	r := policy.Parse([]byte(sample))
	tests := []struct {
		agent, url string
		want       policy.Decision
	}{
		{"OtherBot", "https://example.com/private/x", policy.Decision{
			Allowed: false, Basis: policy.BasisRule, GroupAgent: "*", GroupLine: 2,
			Rule: policy.Rule{Allow: false, Pattern: "/private/", Line: 3}}},
		{"OtherBot", "/private/public/x", policy.Decision{
			Allowed: true, Basis: policy.BasisRule, GroupAgent: "*", GroupLine: 2,
			Rule: policy.Rule{Allow: true, Pattern: "/private/public/", Line: 4}}},
		{"OtherBot", "/", policy.Decision{Allowed: true, Basis: policy.BasisNoMatch, GroupAgent: "*", GroupLine: 2}},
		{"BarBot/3.0", "/doc.pdf", policy.Decision{
			Allowed: false, Basis: policy.BasisRule, GroupAgent: "barbot", GroupLine: 8,
			Rule: policy.Rule{Allow: false, Pattern: "/*.pdf$", Line: 10}}},
		{"FooBot", "/private/x", policy.Decision{Allowed: true, Basis: policy.BasisNoMatch, GroupAgent: "foobot", GroupLine: 8}},
		{"FooBot", "/robots.txt", policy.Decision{Allowed: true, Basis: policy.BasisRobotsTxt, GroupAgent: "foobot", GroupLine: 8}},
	}
	for _, tc := range tests {
		if got := r.Group(tc.agent).Decide(tc.url); got != tc.want {
			t.Errorf("Decide(%q, %q) =\n\t%+v, want\n\t%+v", tc.agent, tc.url, got, tc.want)
		}
	}
	none := policy.Parse([]byte("user-agent: FooBot\ndisallow: /\n"))
	if d := none.Group("BarBot").Decide("/x"); d != (policy.Decision{Allowed: true, Basis: policy.BasisNoGroup}) {
		t.Errorf("no group: %+v", d)
	}
}

func TestDecisionString(t *testing.T) {
	r := policy.Parse([]byte(sample))
	tests := []struct{ agent, url, want string }{
		{"OtherBot", "/private/x", `disallowed by "Disallow: /private/" (line 3, group "*" at line 2)`},
		{"FooBot", "/x", `allowed: no rule of group "foobot" (line 8) matches`},
		{"FooBot", "/robots.txt", "allowed: robots.txt is always allowed"},
	}
	for _, tc := range tests {
		if got := r.Group(tc.agent).Decide(tc.url).String(); got != tc.want {
			t.Errorf("Decide(%q, %q).String() = %q, want %q", tc.agent, tc.url, got, tc.want)
		}
	}
}

func TestGroupData(t *testing.T) {
	r := policy.Parse([]byte(sample))
	star := r.Group("OtherBot")
	if d, ok := star.CrawlDelay(); !ok || d != 2500*time.Millisecond {
		t.Errorf("* crawl-delay = %v, %v; want 2.5s", d, ok)
	}
	if rt, ok := star.RequestRate(); !ok || rt != (policy.Rate{Requests: 1, Per: 10 * time.Second}) || rt.Interval() != 10*time.Second {
		t.Errorf("* request-rate = %+v, %v", rt, ok)
	}
	foo := r.Group("FooBot")
	if d, ok := foo.CrawlDelay(); !ok || d != time.Second {
		t.Errorf("FooBot crawl-delay = %v, %v; want 1s", d, ok)
	}
	if _, ok := foo.RequestRate(); ok {
		t.Error("FooBot has no request-rate")
	}
	if bar := r.Group("barbot"); bar.Agent() != "barbot" || foo.Agent() != "foobot" || bar.Line() != 8 {
		t.Errorf("BarBot follows group %q at line %d", bar.Agent(), bar.Line())
	}
	if got := r.Sitemaps(); len(got) != 1 || got[0] != "https://example.com/sitemap.xml" {
		t.Errorf("Sitemaps() = %q", got)
	}
	if got := r.Host(); got != "example.com" {
		t.Errorf("Host() = %q", got)
	}
	want := []policy.Directive{
		{Line: 14, Key: "sitemap", Value: "/relative.xml"},
		{Line: 16, Key: "Clean-param", Value: "ref /articles/"},
		{Line: 17, Key: "Unicorns", Value: "yes"},
	}
	if got := r.Unknown(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Unknown() = %+v, want %+v", got, want)
	}
	groups := r.Records()
	wantAgents := []policy.AgentInfo{{Token: "foobot", Line: 8, CrawlDelay: time.Second}, {Token: "barbot", Line: 9, CrawlDelay: time.Second}}
	if len(groups) != 2 || fmt.Sprint(groups[1].Agents) != fmt.Sprint(wantAgents) || groups[1].Line != 8 ||
		len(groups[0].Rules) != 2 || groups[0].Agents[0].CrawlDelay != 2500*time.Millisecond {
		t.Errorf("Records() = %+v", groups)
	}
}

func TestCrawlDelayAndRequestRateValues(t *testing.T) {
	tests := []struct {
		line  string
		delay time.Duration
		rate  policy.Rate
	}{
		{"crawl-delay: 10", 10 * time.Second, policy.Rate{}},
		{"crawl-delay: 0.25", 250 * time.Millisecond, policy.Rate{}},
		{"crawl-delay: 5 # seconds", 5 * time.Second, policy.Rate{}},
		{"crawl-delay: -1", -1, policy.Rate{}},
		{"crawl-delay: NaN", -1, policy.Rate{}},
		{"crawl-delay: soon", -1, policy.Rate{}},
		{"crawl-delay: 1e300", time.Duration(1<<63 - 1), policy.Rate{}},
		{"request-rate: 1/5", -1, policy.Rate{Requests: 1, Per: 5 * time.Second}},
		{"request-rate: 3/1m", -1, policy.Rate{Requests: 3, Per: time.Minute}},
		{"request-rate: 1/2h 0600-0845", -1, policy.Rate{Requests: 1, Per: 2 * time.Hour}},
		{"request-rate: 0/5", -1, policy.Rate{}},
		{"request-rate: 1/0", -1, policy.Rate{}},
		{"request-rate: fast", -1, policy.Rate{}},
	}
	for _, tc := range tests {
		g := policy.Parse([]byte("user-agent: *\n" + tc.line + "\n")).Group("x")
		d, ok := g.CrawlDelay()
		if ok != (tc.delay >= 0) || ok && d != tc.delay {
			t.Errorf("%q: CrawlDelay() = %v, %v; want %v", tc.line, d, ok, tc.delay)
		}
		if rt, _ := g.RequestRate(); rt != tc.rate {
			t.Errorf("%q: RequestRate() = %+v, want %+v", tc.line, rt, tc.rate)
		}
	}
	// A Crawl-delay applies to the user-agent lines above it in its group,
	// though the group goes on: other records do not end groups.
	r := policy.Parse([]byte("user-agent: a\ncrawl-delay: 9\n\nuser-agent: b\ncrawl-delay: 2\ndisallow: /x\n"))
	if d, _ := r.Group("a").CrawlDelay(); d != 9*time.Second {
		t.Errorf("a: crawl-delay %v, want 9s", d)
	}
	if d, _ := r.Group("b").CrawlDelay(); d != 2*time.Second || r.Allowed("a", "/x") {
		t.Errorf("b: crawl-delay %v, want 2s; a must follow the group's Disallow", d)
	}
	// Several groups: the politest value wins.
	g := policy.Parse([]byte("user-agent: a\ncrawl-delay: 1\nrequest-rate: 1/1\nuser-agent: a\ncrawl-delay: 3\nrequest-rate: 1/2\n")).Group("a")
	if d, _ := g.CrawlDelay(); d != 3*time.Second {
		t.Errorf("merged crawl-delay %v, want 3s", d)
	}
	if rt, _ := g.RequestRate(); rt.Per != 2*time.Second {
		t.Errorf("merged request-rate %+v, want 1/2s", rt)
	}
	// Groups naming the same agent: the values of each.
	g = policy.Parse([]byte("user-agent: a\ncrawl-delay: 3\n\nuser-agent: a\nrequest-rate: 1/2\n\nuser-agent: b\ncrawl-delay: 1\n")).Group("a")
	if d, _ := g.CrawlDelay(); d != 3*time.Second {
		t.Errorf("crawl-delay of two groups %v, want 3s", d)
	}
	if rt, _ := g.RequestRate(); rt.Per != 2*time.Second {
		t.Errorf("request-rate of two groups %+v, want 1/2s", rt)
	}
}

// TestParseAllocations: a parsed file is two allocations, whatever its
// size, and the first query for an agent adds its Group (with the agent's
// token when the file does not name it); later queries allocate nothing.
func TestParseAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts vary under the race detector")
	}
	body := []byte("User-agent: *\nDisallow: /a\nAllow: /b\nCrawl-delay: 2\nSitemap: https://example.com/s.xml\n\n" +
		"User-agent: foobot\nUser-agent: barbot\nDisallow: /\nHost: example.com\nUnicorns: yes\n")
	for _, tc := range []struct {
		name  string
		max   float64
		parse func() *policy.Robots
	}{
		{"Parse", 2, func() *policy.Robots { return policy.Parse(body) }},
		{"named agent", 3, func() *policy.Robots { r := policy.Parse(body); r.Allowed("FooBot/1.0", "/x"); return r }},
		{"other agent", 4, func() *policy.Robots { r := policy.Parse(body); r.Allowed("OtherBot/1.0", "/x"); return r }},
	} {
		if n := testing.AllocsPerRun(100, func() { tc.parse() }); n > tc.max {
			t.Errorf("%s: %v allocations, want at most %v", tc.name, n, tc.max)
		}
		r := tc.parse()
		if n := testing.AllocsPerRun(100, func() { r.Allowed("FooBot/1.0", "/x"); r.Allowed("OtherBot/1.0", "/x") }); n != 0 {
			t.Errorf("%s: %v allocations for queries of groups built", tc.name, n)
		}
	}
}

// TestRecordsAgentExtensions: each user-agent line of a record lists the
// Crawl-delay and Request-rate lines below it in its group, and only those.
func TestRecordsAgentExtensions(t *testing.T) {
	r := policy.Parse([]byte("user-agent: a\ncrawl-delay: 1\nuser-agent: b\nrequest-rate: 1/5\n" +
		"user-agent: c\ndisallow: /\n\nuser-agent: d\ndisallow: /x\n\nuser-agent: e\ncrawl-delay: 3\nuser-agent: f\n"))
	rate := policy.Rate{Requests: 1, Per: 5 * time.Second}
	want := [][]policy.AgentInfo{
		{{Token: "a", Line: 1, CrawlDelay: time.Second, RequestRate: rate}, {Token: "b", Line: 3, RequestRate: rate}, {Token: "c", Line: 5}},
		{{Token: "d", Line: 8}},
		{{Token: "e", Line: 11, CrawlDelay: 3 * time.Second}, {Token: "f", Line: 13}},
	}
	var got [][]policy.AgentInfo
	for _, rec := range r.Records() {
		got = append(got, rec.Agents)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("agents %+v, want %+v", got, want)
	}
}

func TestReport(t *testing.T) {
	body := "User-agent: *\nDisalow: /x # typo\n\n# note\nCrawl-delay: 3\nfoo bar baz\nUnicorns: 1\n"
	lines := policy.Parser{Dialect: policy.Google}.Report([]byte(body))
	want := []string{
		"1 user-agent user-agent=*",
		"2 disallow typo comment disallow=/x",
		"3 none empty",
		"4 none comment-only",
		"5 other known Crawl-delay=3",
		"6 none",
		"7 other Unicorns=1",
		"8 none empty",
	}
	var got []string
	for _, l := range lines {
		s := fmt.Sprintf("%d %v", l.Line, l.Kind)
		for _, f := range []struct {
			on   bool
			name string
		}{{l.Typo, "typo"}, {l.HasComment && !l.Comment, "comment"}, {l.Empty, "empty"}, {l.Comment, "comment-only"}, {l.Known, "known"}} {
			if f.on {
				s += " " + f.name
			}
		}
		if l.HasDirective {
			s += " " + l.Key + "=" + l.Value
		}
		got = append(got, s)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Report:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The RFC9309 dialect does not accept the typo.
	if l := (policy.Parser{}).Report([]byte(body))[1]; l.Kind != policy.KindOther || l.Typo {
		t.Errorf("RFC9309 line 2: %+v", l)
	}
}

// TestConcurrentFirstUse races many goroutines on the first queries of a
// fresh Robots, where the agent index and the matchers are built (run with
// -race).
func TestConcurrentFirstUse(t *testing.T) {
	body := []byte(strings.Repeat("user-agent: a\ndisallow: /a*b\nallow: /a/c\n", 20) + "user-agent: *\ndisallow: /x\n")
	for range 20 {
		r := policy.Parse(body)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				agent := []string{"a", "b"}[i%2]
				if r.Allowed(agent, "/a/xb") != (agent != "a") || r.Allowed(agent, "/x") != (agent == "a") {
					t.Errorf("wrong verdict for %s", agent)
				}
			}()
		}
		wg.Wait()
	}
}

// TestParseDoesNotRetainBody: changing the body after Parse changes
// nothing.
func TestParseDoesNotRetainBody(t *testing.T) {
	body := []byte("user-agent: *\ndisallow: /secret\nsitemap: https://a.example/s.xml\n")
	r := policy.Parse(body)
	for i := range body {
		body[i] = 'x'
	}
	if r.Allowed("a", "/secret") || r.Sitemaps()[0] != "https://a.example/s.xml" {
		t.Error("Robots changed with the body it was parsed from")
	}
}

// TestAdversarialPatterns: patterns built to make backtracking matchers
// explode decide correctly (the benchmarks show they stay linear).
func TestAdversarialPatterns(t *testing.T) {
	long := "/" + strings.Repeat("a", 5000)
	tests := []struct {
		pattern, path string
		match         bool
	}{
		{"/*a*a*a*a*a*a*a*a*a*a*$", long, true},
		{"/*a*a*a*a*a*a*a*a*a*a*b$", long, false},
		{"/*a*a*a*a*a*a*a*a*a*a*b", long, false},
		{"/" + strings.Repeat("*a", 200) + "$", long, true},
		{"/" + strings.Repeat("*a", 200) + "*b", long, false},
		{"/" + strings.Repeat("a", 4999) + "*$", long, true},
	}
	for _, tc := range tests {
		for _, d := range []policy.Dialect{policy.RFC9309, policy.Google} {
			r := policy.Parser{Dialect: d}.Parse([]byte("user-agent: *\ndisallow: " + tc.pattern + "\n"))
			if got := !r.Allowed("x", tc.path); got != tc.match {
				t.Errorf("%v: %.40q on a %d-byte path: match %v, want %v", d, tc.pattern, len(tc.path), got, tc.match)
			}
		}
	}
}

func TestGoogleDialectDifferences(t *testing.T) {
	tests := []struct {
		robots, agent, url string
		rfc, google        bool
	}{
		{"user-agent: *\ndisalow: /x\n", "a", "/x", true, false},
		{"useragent: a\ndisallow: /x\n", "a", "/x", true, false},
		{"user-agent: *\nallowance: /x\ndisallow: /\n", "a", "/x", false, true},
		{"user-agent: *\ndisallow /x\n", "a", "/x", true, false},
		{"user-agent: *\ndisallow: /\n", "a", "/robots.txt", true, false},
		{"user-agent: *\ndisallow: /\nallow: /d/index.html\n", "a", "/d/", false, true},
		{"user-agent: *\ndisallow: /%62az\n", "a", "/baz", false, true},
		{"user-agent: *\ndisallow: /a\x00b\n", "a", "/a", true, false}, // Google's lines end at NUL
		{"user-agent:\ndisallow: /x\n", "", "/x", true, false},         // Google: an empty agent matches an empty value
	}
	for _, tc := range tests {
		for _, c := range []struct {
			d    policy.Dialect
			want bool
		}{{policy.RFC9309, tc.rfc}, {policy.Google, tc.google}} {
			if got := (policy.Parser{Dialect: c.d}).Parse([]byte(tc.robots)).Allowed(tc.agent, tc.url); got != c.want {
				t.Errorf("%v: %q: Allowed(%q, %q) = %v, want %v", c.d, tc.robots, tc.agent, tc.url, got, c.want)
			}
		}
	}
}

// TestDecideURL: deciding a parsed URL (DecideURL, AllowedURL) gives what
// deciding it as a string gives, in both dialects, also for paths that start with "//" (which
// Decide, given just the path, would read as scheme-relative URLs).
func TestDecideURL(t *testing.T) {
	n := 0
	for _, s := range loadSites(t, filepath.Join("testdata", "corpus"), 50) {
		for _, d := range []policy.Dialect{policy.RFC9309, policy.Google} {
			r := policy.Parser{Dialect: d}.Parse(s.body)
			urls := append(s.urls, "https://example.com", "https://example.com?q=1", "https://example.com/a?", "//example.com/x",
				"https://example.com//admin/secret", "https://example.com//a?b=//c")
			for _, raw := range urls {
				u, err := url.Parse(raw)
				if err != nil {
					continue
				}
				for _, a := range corpusAgents {
					g := r.Group(a)
					if got, want := g.DecideURL(u), g.Decide(u.String()); got != want {
						t.Errorf("%s %v %s: DecideURL = %v, Decide = %v", s.name, d, raw, got, want)
					}
					if got, want := g.AllowedURL(u), g.Decide(u.String()).Allowed; got != want {
						t.Errorf("%s %v %s: AllowedURL = %v, Decide allows: %v", s.name, d, raw, got, want)
					}
					n++
				}
			}
		}
	}
	if n < 10000 {
		t.Errorf("only %d checks", n)
	}
}

// TestMemSize: MemSize tracks the heap a parsed file and its matchers
// hold, within a factor of two, over the corpus subset.
func TestMemSize(t *testing.T) {
	sites := loadSites(t, filepath.Join("testdata", "corpus"), 1)
	heap := func() uint64 {
		runtime.GC() // twice: the first leaves what sync.Pools held for the second
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	kept := make([]*policy.Robots, len(sites))
	for i, s := range sites {
		kept[i] = policy.Parse(s.body)
		kept[i].Allowed("Googlebot", "/")
	}
	held := float64(heap() - before)
	est := 0
	for _, r := range kept {
		est += r.MemSize()
	}
	t.Logf("MemSize %d, held %.0f, ratio %.2f", est, held, float64(est)/held)
	if ratio := float64(est) / held; ratio < 0.5 || ratio > 2 {
		t.Errorf("MemSize totals %d bytes for %d files holding %.0f: ratio %.2f", est, len(kept), held, ratio)
	}
	runtime.KeepAlive(kept)
}

// TestManyAgents: a file of thousands of user-agent lines, each followed by
// a Crawl-delay, in one group, gives each agent the delays below it, and
// takes no longer than a linear pass (see BenchmarkManyAgents).
func TestManyAgents(t *testing.T) {
	// Product tokens hold letters only: name agent i in base 26.
	name := func(i int) string {
		b := []byte("bot")
		for ; i > 0 || len(b) == 3; i /= 26 {
			b = append(b, byte('a'+i%26))
		}
		return string(b)
	}
	var sb strings.Builder
	const n = 12000 // about 420 KB: under the parse limit
	for i := range n {
		fmt.Fprintf(&sb, "User-agent: %s\nCrawl-delay: %d\n", name(i), n-i)
	}
	sb.WriteString("Disallow: /x\n")
	r := policy.Parse([]byte(sb.String()))
	for _, i := range []int{0, 1, n / 2, n - 1} {
		g := r.Group(name(i))
		if d, _ := g.CrawlDelay(); d != time.Duration(n-i)*time.Second || g.Decide("/x").Allowed {
			t.Errorf("%s: crawl-delay %v, want %ds; /x allowed %v", name(i), d, n-i, g.Decide("/x").Allowed)
		}
	}
}

// TestGoogleIndexHTMLWithWildcards: Google's library derives "<dir>/$" from
// an Allow for "<dir>/index.html" whatever the directory holds, wildcards
// included.
func TestGoogleIndexHTMLWithWildcards(t *testing.T) {
	r := policy.Parser{Dialect: policy.Google}.Parse([]byte("user-agent: *\ndisallow: /\nallow: /*/index.html\n"))
	for _, tc := range []struct {
		url     string
		allowed bool
	}{{"/foo/", true}, {"/foo/bar/", true}, {"/foo", false}, {"/foo/index.html", true}, {"/foo/x", false}} {
		if got := r.Allowed("x", tc.url); got != tc.allowed {
			t.Errorf("%s: allowed %v, want %v", tc.url, got, tc.allowed)
		}
	}
}

func TestPatternMatches(t *testing.T) {
	tests := []struct {
		pattern, path string
		match         bool
	}{
		{"/a", "/a/b", true}, {"/a$", "/a", true}, {"/a$", "/a/", false},
		{"/*.php", "/x.php?y", true}, {"/*.php$", "/x.php?y", false}, {"*.gif$", "/a/b.gif", true},
		{"/a*b*c", "/axbyc", true}, {"/a*b*c", "/acb", false}, {"/a*$", "/a/b", true}, {"", "/a", true},
	}
	for _, tc := range tests {
		if got := policy.PatternMatches(tc.pattern, tc.path); got != tc.match {
			t.Errorf("PatternMatches(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.match)
		}
	}
	if got := policy.CanonicalPattern("/a*b%7e$"); got != "/a*b~$" {
		t.Errorf("CanonicalPattern = %q", got)
	}
}

// TestQueryVariantsBounded: a pattern with thousands of '*' before a "%2F"
// would need a variant per '*' (each as long as the pattern) to be read
// exactly; it is read as a wider Disallow instead, so a 500 KiB file of
// them stays within a small multiple of its size, and still disallows
// what its patterns match.
func TestQueryVariantsBounded(t *testing.T) {
	pattern := "/*" + strings.Repeat("a*", 8000) + "%2Fb"
	body := "user-agent: *\n" + strings.Repeat("disallow: "+pattern+"\n", 30)
	r := policy.Parse([]byte(body))
	path := "/" + strings.Repeat("a", 8000)
	for _, url := range []string{path + "%2Fb", path + "?x=%2Fb", path + "Xb"} {
		if r.Allowed("x", url) {
			t.Errorf("%.20q… allowed", url)
		}
	}
	if !r.Allowed("x", path+"c") {
		t.Errorf("a path without the final b is disallowed")
	}
	if m := r.MemSize(); m > 20*len(body) { // parsed and compiled
		t.Errorf("MemSize %d for a %d-byte file", m, len(body))
	}
}

// TestKosterMemSize: the matchers that deciding compiles for the records
// of a 1996-draft file count in MemSize, as for the other dialects.
func TestKosterMemSize(t *testing.T) {
	var b strings.Builder
	b.WriteString("user-agent: bot\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "disallow: /p%d/\n", i)
	}
	r := policy.Parser{Dialect: policy.Koster1996}.Parse([]byte(b.String()))
	r.Allowed("other", "/") // indexes the records, compiles none of them
	before := r.MemSize()
	if r.Allowed("bot", "/p7/x") {
		t.Fatal("/p7/x allowed")
	}
	if after := r.MemSize(); after < before+2000*4 {
		t.Errorf("MemSize %d after compiling a 2,000-rule record, %d before", after, before)
	}
}

// TestParseLineValues: tools that read lines one by one read Crawl-delay
// and Request-rate values as groups do.
func TestParseLineValues(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{{"0.5", 500 * time.Millisecond, true}, {"10 seconds", 10 * time.Second, true}, {"-1", 0, false}, {"soon", 0, false}} {
		if d, ok := policy.ParseCrawlDelay(tc.v); d != tc.want || ok != tc.ok {
			t.Errorf("ParseCrawlDelay(%q) = %v, %v; want %v, %v", tc.v, d, ok, tc.want, tc.ok)
		}
	}
	if r, ok := policy.ParseRequestRate("10/1m 0600-0845"); !ok || r.Interval() != 6*time.Second {
		t.Errorf("ParseRequestRate(10/1m) = %+v, %v", r, ok)
	}
	if _, ok := policy.ParseRequestRate("1/0"); ok {
		t.Error("ParseRequestRate(1/0) read a rate")
	}
	g := policy.Parse([]byte("User-agent: *\nCrawl-delay: 10 seconds\n")).Group("x")
	if d, _ := g.CrawlDelay(); d != 10*time.Second {
		t.Errorf("the group reads %v", d)
	}
}

// TestRuleLines: every rule reports its line, however far apart the rules
// of a file lie (comment lines between them) and however many there are.
func TestRuleLines(t *testing.T) {
	for _, gap := range []int{0, 1, 200, 300, 70000} {
		for _, n := range []int{1, 63, 64, 65, 130} {
			var sb strings.Builder
			sb.WriteString("user-agent: *\n")
			line := 1
			var want []int
			for i := range n {
				sb.WriteString(strings.Repeat("#\n", gap*(i%3)))
				line += gap * (i % 3)
				fmt.Fprintf(&sb, "disallow: /r%d\n", i)
				line++
				want = append(want, line)
			}
			r := policy.Parser{MaxSize: sb.Len()}.Parse([]byte(sb.String()))
			rules := r.Group("x").Rules()
			if len(rules) != n {
				t.Fatalf("gap %d, %d rules: %d rules read", gap, n, len(rules))
			}
			for i, rl := range rules {
				if rl.Line != want[i] {
					t.Errorf("gap %d, %d rules: rule %d on line %d, want %d", gap, n, i, rl.Line, want[i])
				}
				if d := r.Group("x").Decide(fmt.Sprintf("/r%d", i)); d.Rule.Line != want[i] {
					t.Errorf("gap %d, %d rules: /r%d decided by line %d, want %d", gap, n, i, d.Rule.Line, want[i])
				}
			}
		}
	}
}

// TestRecordAgentLines: every user-agent line of a record reports its
// line, however far apart the lines lie.
func TestRecordAgentLines(t *testing.T) {
	var sb strings.Builder
	line := 0
	var want [][]int
	for g, gap := range []int{0, 1, 200, 70000} {
		var lines []int
		for i := range 3 {
			sb.WriteString(strings.Repeat("# comment\n", gap*i))
			line += gap * i
			fmt.Fprintf(&sb, "user-agent: bot%c\n", 'a'+g*3+i)
			line++
			lines = append(lines, line)
		}
		sb.WriteString("disallow: /x\n\n")
		line += 2
		want = append(want, lines)
	}
	r := policy.Parser{MaxSize: sb.Len()}.Parse([]byte(sb.String()))
	recs := r.Records()
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, rec := range recs {
		var got []int
		for _, a := range rec.Agents {
			got = append(got, a.Line)
		}
		if !reflect.DeepEqual(got, want[i]) || rec.Line != want[i][0] {
			t.Errorf("record %d on line %d: agents on lines %v, want %v", i, rec.Line, got, want[i])
		}
	}
}
