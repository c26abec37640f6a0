package policy_test

import (
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/policy"
)

// FuzzParse: any body parses in both dialects without panicking, gives one
// line report per line, and its decisions agree with the reference matcher.
func FuzzParse(f *testing.F) {
	for _, b := range seedBodies(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
			r := policy.Parser{Dialect: d}.Parse(body)
			lines := policy.Parser{Dialect: d}.Report(body)
			if want := countLines(body); len(lines) != want {
				t.Fatalf("%v: %d line reports for %d lines", d, len(lines), want)
			}
			checkAccessors(t, r)
			checkLines(t, r, lines)
			ref := newReference(body, d)
			for _, u := range []string{"/", "/a", "/a/b.php?c=d", "/index.html", "/robots.txt"} {
				for _, a := range []string{"FooBot", "*", ""} {
					got := r.Group(a).Decide(u)
					allowed, line := ref.decide(a, u)
					if got.Allowed != allowed || got.Rule.Line != line {
						t.Fatalf("%v: Decide(%q, %q) = %v; reference: allowed=%v line %d", d, a, u, got, allowed, line)
					}
				}
			}
		}
	})
}

// checkAccessors reads every part of r, and checks that the Group of each
// agent a record names has the longest Crawl-delay and the slowest
// Request-rate of the user-agent lines that name it.
func checkAccessors(t *testing.T, r *policy.Robots) {
	t.Helper()
	r.Sitemaps()
	r.Unknown()
	r.Host()
	if r.MemSize() <= 0 {
		t.Fatalf("MemSize %d", r.MemSize())
	}
	type ext struct {
		delay time.Duration
		rate  policy.Rate
	}
	want := map[string]*ext{}
	for _, rec := range r.Records() {
		for _, a := range rec.Agents {
			if a.Token == "" || a.Token == "*" || !policy.ValidProductToken(a.Token) {
				continue
			}
			e := want[a.Token]
			if e == nil {
				e = &ext{}
				want[a.Token] = e
			}
			e.delay = max(e.delay, a.CrawlDelay)
			if rt := a.RequestRate; rt.Per != 0 && (e.rate.Per == 0 || rt.Interval() > e.rate.Interval()) {
				e.rate = rt
			}
		}
	}
	if r.Dialect() == policy.Koster1996 {
		return // a crawler follows one record, not the union
	}
	for tok, e := range want {
		g := r.Group(tok)
		d, _ := g.CrawlDelay()
		rt, _ := g.RequestRate()
		if g.Agent() != tok || d != e.delay || rt.Interval() != e.rate.Interval() {
			t.Fatalf("Group(%q): agent %q, delay %v, rate %+v; records name it with delay %v, rate %+v", tok, g.Agent(), d, rt, e.delay, e.rate)
		}
	}
}

// checkLines checks the lines that the records of r report against the
// reports of the lines of its body: the agents are the user-agent lines,
// in file order, and each rule is on an allow or disallow line.
func checkLines(t *testing.T, r *policy.Robots, reports []policy.LineReport) {
	t.Helper()
	var want, got []int
	for _, rep := range reports {
		if rep.Kind == policy.KindUserAgent {
			want = append(want, rep.Line)
		}
	}
	for _, rec := range r.Records() {
		if len(rec.Agents) == 0 || rec.Line != rec.Agents[0].Line {
			t.Fatalf("record on line %d: agents %+v", rec.Line, rec.Agents)
		}
		for _, a := range rec.Agents {
			got = append(got, a.Line)
		}
		for _, rl := range rec.Rules {
			if k := reports[rl.Line-1].Kind; k != policy.KindAllow && k != policy.KindDisallow {
				t.Fatalf("rule %+v on a line of kind %v", rl, k)
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("agents on lines %v; user-agent lines %v", got, want)
	}
}

// FuzzMatch: for any file, agent and URL, the indexed matcher and the
// reference matcher agree, in both dialects.
func FuzzMatch(f *testing.F) {
	for _, v := range loadRobotsVectors(f) {
		if len(v.Robots) < 4096 {
			f.Add(v.Robots, v.Agent, v.URL)
		}
	}
	// Patterns with more query variants than the package spells out.
	many := "user-agent: *\ndisallow: /*a*a*a*a*a*a*a*a*a*%2Fb\nallow: /*a*a*a*a*a*a*a*a*a*a*%2Fb\n"
	for _, u := range []string{"/aaaaaaaaaa?x=/b", "/aaaaaaaaaa%2Fb", "/aaaaaaaaaXb", "/a?aaaaaaaaa=%2Fb"} {
		f.Add(many, "a", u)
	}
	bodies, urls := seedBodies(f), seedURLs(f)
	for i, b := range bodies {
		f.Add(string(b), "Googlebot", urls[i%len(urls)])
	}
	f.Add("user-agent: *\ndisallow: /*redirect=http%3A%2F%2F\n", "a", "/go?redirect=http%3A%2F%2Fx")
	f.Add("user-agent: *\ndisallow: /\nallow: /*/index.html\n", "a", "/foo/")
	f.Fuzz(func(t *testing.T, robots, agent, url string) {
		for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
			r := policy.Parser{Dialect: d}.Parse([]byte(robots))
			got := r.Group(agent).Decide(url)
			allowed, line := newReference([]byte(robots), d).decide(agent, url)
			if got.Allowed != allowed || got.Rule.Line != line {
				t.Fatalf("%v: Decide(%q, %q) = %v; reference: allowed=%v line %d", d, agent, url, got, allowed, line)
			}
			if p := decidePath(r.Group(agent), policy.CanonicalPath(policy.PathOf(url))); d == policy.RFC9309 && p != got {
				t.Fatalf("%v: Decide on the path %q = %v; Decide(%q) = %v", d, policy.CanonicalPath(policy.PathOf(url)), p, url, got)
			}
			if diff := checkMatchGroup(r.Group(agent), d, policy.CanonicalPath(policy.PathOf(url))); diff != "" {
				t.Fatalf("%v: %s", d, diff)
			}
			if u, err := neturl.Parse(url); err == nil {
				if g := r.Group(agent); g.AllowedURL(u) != g.DecideURL(u).Allowed {
					t.Fatalf("%v: AllowedURL(%q) = %v; DecideURL = %v", d, url, !g.DecideURL(u).Allowed, g.DecideURL(u))
				}
			}
		}
	})
}

// FuzzCanonicalPath: the canonical form is stable, holds only characters a
// URI may hold unencoded, and a URL matches a rule made from its own
// canonical form.
func FuzzCanonicalPath(f *testing.F) {
	for _, u := range seedURLs(f) {
		f.Add(u)
	}
	f.Add("/a%2fb?c=%3a%2F*$ ツ%")
	f.Fuzz(func(t *testing.T, path string) {
		c := policy.CanonicalPath(path)
		if again := policy.CanonicalPath(c); again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", path, c, again)
		}
		for i := 0; i < len(c); i++ {
			if ch := c[i]; ch <= ' ' || ch >= 0x7f || strings.IndexByte("\"#<>\\^`{|}*$", ch) >= 0 {
				t.Fatalf("CanonicalPath(%q) = %q holds %q", path, c, ch)
			}
		}
		p := policy.PathOf(path)
		r := policy.Parse([]byte("user-agent: *\ndisallow: " + policy.CanonicalPath(p) + "$\n"))
		if policy.CanonicalPath(p) != "/robots.txt" && r.Allowed("a", path) {
			t.Fatalf("%q is not matched by its own canonical form %q", path, policy.CanonicalPath(p))
		}
	})
}

func seedBodies(t testing.TB) [][]byte {
	var out [][]byte
	for _, s := range loadSites(t, filepath.Join("testdata", "corpus"), 1) {
		if len(s.body) <= 16<<10 {
			out = append(out, s.body)
		}
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "conformance", "google_robots_test.json")); err == nil {
		out = append(out, b[:4096]) // JSON: not robots.txt at all
	}
	return out
}

func seedURLs(t testing.TB) []string {
	var out []string
	for _, s := range loadSites(t, filepath.Join("testdata", "corpus"), 3) {
		out = append(out, s.urls...)
	}
	return out
}

// countLines counts lines as the parser does: LF, CR and CRLF end a line,
// and the text after the last line break is one more line.
func countLines(b []byte) int {
	n := 1
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			n++
		case '\r':
			n++
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		}
	}
	return n
}

// TestLineBreakKinds: files whose lines end with CR only, LF only or CRLF
// parse alike, and the CR-only file is not searched for LF on every line
// (see BenchmarkParseLineBreaks).
func TestLineBreakKinds(t *testing.T) {
	var lf strings.Builder
	lf.WriteString("User-agent: *\n")
	for i := range 5000 {
		fmt.Fprintf(&lf, "Disallow: /dir/%d/\n", i)
	}
	want := policy.Parse([]byte(lf.String())).Records()
	for _, nl := range []string{"\r", "\r\n"} {
		got := policy.Parse([]byte(strings.ReplaceAll(lf.String(), "\n", nl))).Records()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("line break %q: groups differ from LF's", nl)
		}
	}
}

// BenchmarkParseLineBreaks parses 500 KiB files with each kind of line
// break: the throughputs must be alike.
func BenchmarkParseLineBreaks(b *testing.B) {
	for _, nl := range []string{"\n", "\r", "\r\n"} {
		body := []byte("User-agent: *" + nl + strings.Repeat("#"+nl, policy.DefaultMaxSize/(1+len(nl))-20))
		b.Run(fmt.Sprintf("break=%q", nl), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for i := 0; i < b.N; i++ {
				policy.Parse(body)
			}
		})
	}
}

// FuzzProductToken: the crawler read from any User-Agent value is empty or
// a valid product token that the value holds, and reading it again gives
// it back.
func FuzzProductToken(f *testing.F) {
	for _, s := range []string{
		"FooBot", "FooBot/2.1 (+https://example.com/bot)", "colly - https://github.com/gocolly/colly",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Foo Bar", "Foo*", "",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "ツ", "Foo;bar", "\tFoo\t/1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ua string) {
		tok := policy.ProductToken(ua)
		if tok == "" {
			return
		}
		if !policy.ValidProductToken(tok) || !strings.Contains(ua, tok) {
			t.Fatalf("ProductToken(%q) = %q: not a token the value holds", ua, tok)
		}
		if again := policy.ProductToken(tok); again != tok {
			t.Fatalf("ProductToken(%q) = %q, but ProductToken(%q) = %q", ua, tok, tok, again)
		}
	})
}
