package acap

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/robotsguard/robotsguard/policy"
)

// fastBodies are files that exercise what the fast path decides and what
// it leaves to the general path.
var fastBodies = []string{
	`User-agent: *
Disallow: /private/
Allow: /private/open
Disallow: /*.PDF$

ACAP-crawler: *
ACAP-disallow-crawl: /private/
ACAP-allow-crawl: /private/open
ACAP-disallow-index: /drafts/
ACAP-allow-present-snippet: /news/ max-length=20-words
ACAP-disallow-present: /news/archive/
ACAP-disallow-other: /
ACAP-crawler: NewsBot
ACAP-allow-crawl: /private/
ACAP-disallow-crawl: /news$
ACAP-allow-index: /*.html
ACAP-disallow-index: /*/print
`,
	`ACAP-version: 1.1
ACAP-qualified-usage: brief present-snippet max-length=30-words
ACAP-composite-usage: show (brief) present-thumbnail index
ACAP-resource-set: media /img/ /video/*.mp4$
User-agent: FooBot
Disallow: /a/
Allow: /a/b

ACAP-crawler: *
ACAP-allow-(show): /gallery/
ACAP-disallow-crawl: the-acap:resource-set:media
ACAP-allow-crawl: /a/
ACAP-disallow-crawl: /a/b
ACAP-allow-other: / usage-ref=/terms
ACAP-usage-purpose: research
ACAP-disallow-index: /gallery/
`,
	`User-agent: *
Disallow: /x

ACAP-crawler: *
ACAP-allow-crawl: /x
ACAP-disallow-crawl: /*x
ACAP-allow-crawl: /*x
ACAP-disallow-crawl: /x$
ACAP-disallow-crawl: /X*Y
`,
	`User-agent: NewsBot
Disallow: /private/

ACAP-crawler: *
ACAP-disallow-crawl: /private/
ACAP-allow-index: /news/
ACAP-disallow-index: /drafts/
ACAP-disallow-present: /
ACAP-allow-other: /a/
ACAP-crawler: NewsBot
ACAP-allow-index: /*
ACAP-disallow-crawl: /
ACAP-allow-crawl: /news/
ACAP-crawler: Guidebot
ACAP-allow-present-snippet: /
ACAP-disallow-index: /news$
`,
}

// repeatBodies are files whose ACAP fields repeat the conventional
// rules, or nearly, by agent: whether the conventional rules need not be
// looked up in a crawl decision (agentPlan.convRepeated).
var repeatBodies = []struct {
	body     string
	repeated map[string]bool // by agent
}{
	// Repeated by a record naming the agent, in another case.
	{`User-agent: Guidebot
Disallow: /
Allow: /Open/

User-agent: *
Disallow: /private/

ACAP-crawler: Guidebot
ACAP-disallow-crawl: /
ACAP-allow-crawl: /open/
ACAP-crawler: *
ACAP-disallow-crawl: /private/
ACAP-allow-crawl: /private/open
`, map[string]bool{"Guidebot": true, "FooBot": true}},
	// Repeated by the record for any crawler, which a record naming the
	// agent overrides for crawl for some.
	{`User-agent: *
Disallow: /private/
Disallow: /x

ACAP-crawler: *
ACAP-disallow-crawl: /private/
ACAP-disallow-crawl: /x
ACAP-allow-crawl: /x/open
ACAP-crawler: NewsBot
ACAP-allow-index: /
ACAP-crawler: Guidebot
ACAP-allow-crawl: /x/
ACAP-crawler: AllBot
ACAP-allow-crawl: /
`, map[string]bool{"FooBot": true, "NewsBot": true, "Guidebot": false, "AllBot": false}},
	// Repeated, and written again with the other verdict.
	{`User-agent: *
Disallow: /a/

ACAP-crawler: *
ACAP-disallow-crawl: /a/
ACAP-crawler: NewsBot
ACAP-allow-crawl: /A/
`, map[string]bool{"FooBot": true, "NewsBot": false}},
	// Rules the fields may compare differently, and one not repeated.
	{`User-agent: WildBot
Disallow: /*.pdf$
User-agent: EscBot
Disallow: /a%3Fb
User-agent: EndBot
Disallow: /a$
User-agent: *
Disallow: /a/
Disallow: /b/
Disallow:

ACAP-crawler: *
ACAP-disallow-crawl: /*.pdf$
ACAP-disallow-crawl: /a%3fb
ACAP-disallow-crawl: /a$
ACAP-disallow-crawl: /a/
ACAP-allow-index: /b/
`, map[string]bool{"WildBot": false, "EscBot": false, "EndBot": false, "FooBot": false}},
}

// TestRepeatedConventional checks which plans need not look up the
// conventional rules, and that the fast path decides as the general path
// does on them.
func TestRepeatedConventional(t *testing.T) {
	urls := append(fastURLs, "/Open/x", "/open/x", "/OPEN", "/Private/open", "/private/OPEN", "/x/open/y", "/X/Open",
		"/a%3Fb", "/a?b", "/a%3fb", "/A", "/a", "/a/x.pdf", "/B/c", "/b/c")
	for _, tc := range repeatBodies {
		p := Parse([]byte(tc.body))
		for agent, want := range tc.repeated {
			if got := p.planFor(agent).convRepeated; got != want {
				t.Errorf("%s in\n%s: convRepeated %v, want %v", agent, tc.body, got, want)
			}
			for _, url := range urls {
				for _, u := range fastUsages {
					checkFast(t, p, Query{Agent: agent, URL: url, Usage: u})
				}
			}
		}
	}
}

var fastURLs = []string{"/", "/private/a", "/private/open", "/private/x.PDF", "/news", "/news/a", "/news/archive/b",
	"/drafts/c", "/gallery/p.html", "/gallery/print", "/img/a.png", "/video/b.mp4", "/a/", "/a/b", "/a/bc",
	"/x", "/xy", "/ax", "/x/Y", "https://example.com/news/a.html?q=1", "/search/?q=x", "/a%2Fb", "/caf%C3%A9/"}

var fastAgents = []string{"FooBot/1.0", "NewsBot", "Googlebot/2.1", "Guidebot", "gsa-crawler", "Mozilla/5.0 (compatible; NewsBot/2)", ""}

var fastUsages = []Usage{Crawl, Follow, Index, Preserve, Present, Other, PresentOriginal, PresentCurrentCopy,
	PresentOldCopy, PresentSnippet, PresentThumbnail, PresentOldSnippet, PresentOldThumbnail, PresentLink}

// checkFast compares the fast path's decision, when it takes one, with
// the general path's.
func checkFast(t *testing.T, p *Policy, q Query) (decided bool) {
	t.Helper()
	cased, lower, lacks := canonicalLower(nil, policy.PathOf(q.URL))
	if want := policy.CanonicalPath(policy.PathOf(q.URL)); cased != want || string(lower) != strings.ToLower(want) {
		t.Fatalf("canonicalLower(%q) = %q, %q; want %q", policy.PathOf(q.URL), cased, lower, want)
	}
	if c, l, k := canonicalLowerURL(nil, q.URL); c != cased || string(l) != string(lower) || k != lacks {
		t.Fatalf("canonicalLowerURL(%q) = %q, %q, %08b; want %q, %q, %08b", q.URL, c, l, k, cased, lower, lacks)
	}
	s := subject{path: lower, lacks: lacks}
	var fast Decision
	if !p.decideFast(p.planFor(q.Agent), &q, cased, &s, &fast) {
		return false
	}
	if general := p.decideGeneral(q, cased, nil); !reflect.DeepEqual(fast, general) {
		t.Fatalf("%+v:\nfast    %#v\ngeneral %#v", q, fast, general)
	}
	return true
}

// TestFastPathAgrees checks that the fast path decides as the general
// path does, on this package's files and the URLs of their sites.
func TestFastPathAgrees(t *testing.T) {
	bodies := fastBodies
	urls := fastURLs
	files, _ := filepath.Glob("testdata/*.txt")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(b))
		if u, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".urls"); err == nil {
			urls = append(urls, strings.Fields(string(u))...)
		}
	}
	decided, all := 0, 0
	for _, body := range bodies {
		p := Parse([]byte(body))
		for _, agent := range fastAgents {
			for _, u := range fastUsages {
				for _, url := range urls {
					all++
					if checkFast(t, p, Query{Agent: agent, URL: url, Usage: u}) {
						decided++
					}
				}
			}
		}
	}
	t.Logf("the fast path decided %d of %d queries", decided, all)
	if decided < all/2 {
		t.Errorf("the fast path decided %d of %d queries", decided, all)
	}
}

// FuzzFastPath: the fast path decides as the general path does.
func FuzzFastPath(f *testing.F) {
	for _, b := range fastBodies {
		f.Add(b, "/private/open", "NewsBot", uint8(0))
	}
	for _, tc := range repeatBodies {
		for agent := range tc.repeated {
			f.Add(tc.body, "/a/b", agent, uint8(0))
		}
	}
	for _, tc := range everywhereBodies {
		for agent := range tc.everywhere {
			f.Add(tc.body, "/a/b", agent, uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, body, url, agent string, u uint8) {
		p := Parse([]byte(body))
		checkFast(t, p, Query{Agent: agent, URL: url, Usage: fastUsages[int(u)%len(fastUsages)]})
	})
}

// TestConcurrentDecide checks that a Policy compiled by the decisions of
// several goroutines at once decides as one compiled by a single one.
func TestConcurrentDecide(t *testing.T) {
	type query struct {
		agent, url string
		u          Usage
	}
	var qs []query
	for _, agent := range fastAgents {
		for _, url := range fastURLs {
			qs = append(qs, query{agent, url, Crawl}, query{agent, url, PresentSnippet})
		}
	}
	for _, body := range fastBodies {
		want := make([]Decision, len(qs))
		serial := Parse([]byte(body))
		for i, q := range qs {
			want[i] = serial.Decide(Query{Agent: q.agent, URL: q.url, Usage: q.u})
		}
		p := Parse([]byte(body))
		errs := make(chan string, 4)
		for g := range 4 {
			go func() {
				for i := range qs {
					i := (i + g*len(qs)/4) % len(qs) // each from another query
					q := qs[i]
					if d := p.Decide(Query{Agent: q.agent, URL: q.url, Usage: q.u}); !reflect.DeepEqual(d, want[i]) {
						errs <- fmt.Sprintf("%+v: %v, want %v", q, d, want[i])
						return
					}
				}
				errs <- ""
			}()
		}
		for range 4 {
			if e := <-errs; e != "" {
				t.Error(e)
			}
		}
	}
}

// eachVariant calls check with every prefix of base, and with each of them
// with every byte in every position.
func eachVariant(base string, check func(string)) {
	for n := range len(base) + 1 {
		for c := range 256 {
			for pos := range n {
				b := []byte(base[:n])
				b[pos] = byte(c)
				check(string(b))
			}
		}
		check(base[:n])
	}
}

// TestCanonicalLower checks canonicalLower against policy.CanonicalPath:
// on every byte in every position of paths of a few lengths, on every
// pair of bytes, and on paths with escapes and queries; and that it
// copies a path only when it holds a byte other than canonical lower-case
// ones.
func TestCanonicalLower(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := policy.CanonicalPath(s)
		cased, lower, lacks := canonicalLower(make([]byte, 3), s)
		if cased != want || string(lower) != strings.ToLower(want) {
			t.Fatalf("canonicalLower(%q) = %q, %q; want %q, %q", s, cased, lower, want, strings.ToLower(want))
		}
		var wantLacks uint8
		for i := range len(rareBytes) {
			if !strings.Contains(want, rareBytes[i:i+1]) {
				wantLacks |= byteEquals << i
			}
		}
		if lacks != wantLacks {
			t.Fatalf("canonicalLower(%q): lacks %08b; want %08b", s, lacks, wantLacks)
		}
		plain := !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 || pathBytes[r]&(byteUpper|byteRewrite) != 0 })
		if copied := len(s) > 0 && unsafe.SliceData(lower) != unsafe.StringData(s); copied == plain {
			t.Fatalf("canonicalLower(%q): copied %v", s, copied)
		}
	}
	eachVariant("/az09-._~/ab/Cd?e=f&g", check)
	for c1 := range 256 {
		for c2 := range 256 {
			check(string([]byte{'/', byte(c1), byte(c2)}))
		}
	}
	for _, s := range []string{"", "/", "/a%41b", "/a%2fb?c%2F%3f", "/%", "/a%4", "/%zz", "/a$", "/a*b", "/caf\xc3\xa9/", "/A%7eb?Q=%C3%A9", "/a b#c"} {
		check(s)
	}
}

// TestCanonicalLowerURL checks canonicalLowerURL against canonicalLower
// of policy.PathOf: on every byte in every position of URLs of each form
// it reads itself and of others, and on the URLs of this package's sites.
func TestCanonicalLowerURL(t *testing.T) {
	check := func(url string) {
		t.Helper()
		wc, wl, wlacks := canonicalLower(nil, policy.PathOf(url))
		c, l, lacks := canonicalLowerURL(make([]byte, 3), url)
		if c != wc || string(l) != string(wl) || lacks != wlacks {
			t.Fatalf("canonicalLowerURL(%q) = %q, %q, %08b; want %q, %q, %08b", url, c, l, lacks, wc, wl, wlacks)
		}
	}
	for _, base := range []string{"https://ex.com/A/b?c=d", "http://ab.cd/e", "https://www.long-host.example/p", "/a/B?c", "//x.com/a"} {
		eachVariant(base, check)
	}
	for _, url := range []string{"", "/", "//", "https://", "https://a", "https://a#b/c", "https://a?b/c", "https://a;b/c",
		"https://abcdefghij#/k", "https://abcdefghij;/k", "https://abcdefghij+/k", "https://abcdefghij'/k", "https://a+b/c", "http://a.b/c#d", "/a#b", "/a%41", "/a://b", "HTTPS://a/b", "https://a/b%2F?c#d"} {
		check(url)
	}
	files, _ := filepath.Glob("testdata/*.urls")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, url := range strings.Fields(string(b)) {
			check(url)
		}
	}
}

// TestAppendLower checks the word-at-a-time lower-casing (appendLower)
// and byte sets (bytesOf) against ones that read a byte at a
// time, for every byte in every position of paths of every length up to
// two words and more.
func TestAppendLower(t *testing.T) {
	want := func(s string) ([]byte, byteSet) {
		var out []byte
		var set byteSet
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			set.add(c)
		}
		return out, set
	}
	check := func(s string) {
		w, wset := want(s)
		if got := appendLower([]byte("x"), s); string(got) != "x"+string(w) {
			t.Fatalf("appendLower(%q) = %q; want %q", s, got[1:], w)
		}
		if set := bytesOf(w); set != wset {
			t.Fatalf("bytesOf(%q) = %x; want %x", w, set, wset)
		}
	}
	eachVariant("/az09-._~/ab/cd/e", check)
	check("/News/Irish-News/Some-ARTICLE-30291.html?Q=%C3%A9")
}

// everywhereBodies are files where the crawl decision of some agents is
// the same on every path, and of others not (agentPlan.crawl).
var everywhereBodies = []struct {
	body       string
	everywhere map[string]bool // by agent
}{
	{`User-agent: Guidebot
Disallow: /
User-agent: *
Disallow: /private/

ACAP-crawler: Guidebot
ACAP-disallow-crawl: /
ACAP-allow-index: /news/
ACAP-crawler: *
ACAP-disallow-crawl: /private/
`, map[string]bool{"Guidebot": true, "FooBot": false}},
	{`ACAP-resource-set: all /
ACAP-crawler: *
ACAP-disallow-crawl: /
ACAP-allow-present: /news/
ACAP-crawler: NewsBot
ACAP-allow-crawl: /news/
ACAP-crawler: SetBot
ACAP-disallow-crawl: the-acap:resource-set:all
ACAP-crawler: OpenBot
ACAP-allow-crawl: /*
ACAP-crawler: SomeBot
ACAP-disallow-crawl: /
ACAP-allow-crawl: /public/
ACAP-crawler: OtherBot
ACAP-disallow-crawl: *
ACAP-disallow-other: /x/
ACAP-crawler: TwoBot
ACAP-disallow-crawl: /
ACAP-allow-crawl: /*
ACAP-crawler: IndexBot
ACAP-allow-index: /news/
`, map[string]bool{"FooBot": true, "NewsBot": false, "SetBot": false, "OpenBot": true, "SomeBot": false,
		"OtherBot": false, "TwoBot": true, "IndexBot": true}},
	{`User-agent: *
Disallow: /private/

ACAP-crawler: *
ACAP-disallow-crawl: /
`, map[string]bool{"FooBot": false}},
}

// TestCrawlEverywhere checks which plans hold one crawl decision for
// every path, and that the fast path decides as the general path does on
// them, on paths with and without a leading "/".
func TestCrawlEverywhere(t *testing.T) {
	urls := append(fastURLs, "", "*", "x", "?a", "/public/a", "/x/y", "//", "https://example.com", "https://example.com?q")
	for _, tc := range everywhereBodies {
		p := Parse([]byte(tc.body))
		for agent, want := range tc.everywhere {
			if got := p.planFor(agent).crawl != nil; got != want {
				t.Errorf("%s in\n%s: one crawl decision %v, want %v", agent, tc.body, got, want)
			}
			for _, url := range urls {
				for _, u := range fastUsages {
					checkFast(t, p, Query{Agent: agent, URL: url, Usage: u})
				}
			}
		}
	}
}
