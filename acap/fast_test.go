package acap

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
	cased := policy.CanonicalPath(policy.PathOf(q.URL))
	path, have := appendLower(nil, cased)
	fast, ok := p.decideFast(&q, cased, path, have)
	if !ok {
		return false
	}
	if general := p.decideGeneral(q, cased, nil, 0); !reflect.DeepEqual(fast, general) {
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

// TestAppendLower checks the word-at-a-time lower-casing against one that
// reads a byte at a time, for every byte in every position of a word.
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
		got, set := appendLower([]byte("x"), s)
		w, wset := want(s)
		if string(got) != "x"+string(w) || set != wset {
			t.Fatalf("appendLower(%q) = %q, %x; want %q, %x", s, got[1:], set, w, wset)
		}
	}
	for c := range 256 {
		for pos := range 9 {
			b := []byte("/aZ09-._~/Ab")
			b[pos] = byte(c)
			check(string(b))
		}
	}
	check("")
	check("/News/Irish-News/Some-ARTICLE-30291.html?Q=%C3%A9")
}
