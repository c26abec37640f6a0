// Package bench compares robotsguard's policy engine with other robots.txt
// libraries on real files, side by side in one run. It is a separate module
// so that the libraries compared never enter robotsguard's go.mod.
//
//	cd bench
//	go test -run '^$' -bench . -benchmem -count 6 | tee out.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /lib out.txt
//
// Benchmarks read the shared corpus (../../shared/corpus) when it is there,
// and the subset in ../policy/testdata/corpus otherwise; -corpus=subset
// forces the subset.
package bench

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
	"github.com/temoto/robotstxt"
)

var corpusFlag = flag.String("corpus", "auto", "auto, full or subset")

const (
	fullCorpus   = "../../shared/corpus"
	subsetCorpus = "../policy/testdata/corpus"
)

// agents are the agents of every match query: two that most files name,
// one that some name, and one that none does.
var agents = []string{"Googlebot", "bingbot", "GPTBot", "FooBot"}

type site struct {
	name   string
	body   []byte
	urls   []string
	paths  []string // policy.PathOf of each URL, for libraries that take paths
	ours   *policy.Robots
	temoto *robotstxt.RobotsData
}

var (
	loadOnce sync.Once
	sites    []*site
	corpus   string
	skipped  int // files temoto rejects
)

func corpusDir() string {
	switch *corpusFlag {
	case "subset":
		return subsetCorpus
	case "full":
		return fullCorpus
	}
	if _, err := os.Stat(fullCorpus); err == nil {
		return fullCorpus
	}
	return subsetCorpus
}

// load reads every robots.txt of the corpus that has a URL list, and parses
// it with both libraries.
func load(b testing.TB) []*site {
	loadOnce.Do(func() {
		corpus = corpusDir()
		names, _ := filepath.Glob(filepath.Join(corpus, "urls", "*.urls"))
		sort.Strings(names)
		for _, n := range names {
			name := strings.TrimSuffix(filepath.Base(n), ".urls")
			body, err := os.ReadFile(filepath.Join(corpus, "robots", name+".txt"))
			if err != nil {
				continue
			}
			s := &site{name: name, body: body, urls: readLines(n)}
			if s.temoto, err = robotstxt.FromBytes(body); err != nil {
				skipped++
				continue
			}
			s.ours = policy.Parse(body)
			for _, u := range s.urls {
				s.paths = append(s.paths, policy.PathOf(u))
			}
			sites = append(sites, s)
		}
	})
	if len(sites) == 0 {
		b.Fatalf("no corpus found (tried %s)", corpus)
	}
	return sites
}

func readLines(name string) []string {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

type query struct {
	s     *site
	agent string
	i     int // index in s.urls
}

func queries(ss []*site) []query {
	var qs []query
	for _, s := range ss {
		for _, a := range agents {
			for i := range s.urls {
				qs = append(qs, query{s, a, i})
			}
		}
	}
	return qs
}

// BenchmarkMatch is the cost of one query on a parsed file, averaged over
// every URL of the corpus and the four agents. robotsguard is given the
// full URL and the User-Agent token (it extracts and normalises the path);
// temoto is given the path, extracted beforehand.
func BenchmarkMatch(b *testing.B) {
	qs := queries(load(b))
	b.Logf("corpus %s: %d files, %d queries (%d files temoto rejects left out)", corpus, len(sites), len(qs), skipped)
	for _, q := range qs {
		q.s.ours.Allowed(q.agent, q.s.urls[q.i]) // build the matchers first
	}
	b.Run("lib=robotsguard", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			q := &qs[i%len(qs)]
			q.s.ours.Allowed(q.agent, q.s.urls[q.i])
		}
	})
	b.Run("lib=temoto", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			q := &qs[i%len(qs)]
			q.s.temoto.TestAgent(q.s.paths[q.i], q.agent)
		}
	})
}

// BenchmarkMatchGroup is BenchmarkMatch with the agent's group looked up
// once per file, as a crawler checking many URLs of a site does.
func BenchmarkMatchGroup(b *testing.B) {
	ss := load(b)
	type gq struct {
		ours   *policy.Group
		temoto *robotstxt.Group
		url    string
		path   string
	}
	var qs []gq
	for _, s := range ss {
		for _, a := range agents {
			og, tg := s.ours.Group(a), s.temoto.FindGroup(a)
			for i, u := range s.urls {
				qs = append(qs, gq{og, tg, u, s.paths[i]})
				og.Decide(u)
			}
		}
	}
	b.Run("lib=robotsguard", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			q := &qs[i%len(qs)]
			q.ours.Decide(q.url)
		}
	})
	b.Run("lib=temoto", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			q := &qs[i%len(qs)]
			q.temoto.Test(q.path)
		}
	})
}

// heavy are the rule-heavy files of the corpus subset: the first six have
// real URLs, the last four (in heavy/) the largest groups of the corpus.
var heavy = []string{
	"linkedin.com", "smugmug.com", "etsy.com", "wowhead.com", "ebay.com", "dreamstime.com",
	"heavy/runescape.com", "heavy/uber.com", "heavy/shopify.com", "heavy/ibe.unesco.org",
}

// probePaths returns paths that look like a site's URLs, made from the
// rules of its robots.txt: each pattern's literal text, with wildcards
// filled in, cut short, and extended.
func probePaths(r *policy.Robots, max int) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range r.Records() {
		for _, rl := range g.Rules {
			p := strings.TrimSuffix(rl.Pattern, "$")
			for _, c := range []string{
				strings.ReplaceAll(p, "*", "x/1"),
				strings.ReplaceAll(p, "*", "") + "/index.html?id=7",
				p[:len(p)*2/3],
			} {
				if !strings.HasPrefix(c, "/") {
					c = "/" + c
				}
				if !seen[c] && len(out) < max {
					seen[c] = true
					out = append(out, "https://example.com"+c)
				}
			}
		}
	}
	return out
}

// BenchmarkMatchRuleHeavy is BenchmarkMatch on single rule-heavy files,
// with their real URLs or, without any, paths made from their rules.
// rules= is the size of the group the agents follow.
func BenchmarkMatchRuleHeavy(b *testing.B) {
	for _, name := range heavy {
		body, err := os.ReadFile(filepath.Join(subsetCorpus, "robots", name+".txt"))
		if os.IsNotExist(err) {
			body, err = os.ReadFile(filepath.Join(subsetCorpus, name+".txt"))
		}
		if err != nil {
			b.Fatal(err)
		}
		ours := policy.Parse(body)
		theirs, err := robotstxt.FromBytes(body)
		if err != nil {
			b.Fatal(err)
		}
		urls := readLines(filepath.Join(subsetCorpus, "urls", name+".urls"))
		if len(urls) == 0 {
			urls = probePaths(ours, 2000)
		}
		type q struct{ agent, url, path string }
		var qs []q
		for _, a := range agents {
			for _, u := range urls {
				qs = append(qs, q{a, u, policy.PathOf(u)})
				ours.Allowed(a, u)
			}
		}
		label := fmt.Sprintf("file=%s/rules=%d", strings.TrimPrefix(name, "heavy/"), len(ours.Group("FooBot").Rules()))
		b.Run(label+"/lib=robotsguard", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				q := &qs[i%len(qs)]
				ours.Allowed(q.agent, q.url)
			}
		})
		b.Run(label+"/lib=temoto", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				q := &qs[i%len(qs)]
				theirs.TestAgent(q.path, q.agent)
			}
		})
	}
}

// BenchmarkParse parses every file of the corpus; MB/s is parse throughput
// and heap-bytes/byte the memory allocated per byte of robots.txt.
func BenchmarkParse(b *testing.B) {
	ss := load(b)
	total := 0
	for _, s := range ss {
		total += len(s.body)
	}
	run := func(b *testing.B, parse func([]byte)) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		var ms0, ms1 memStats
		ms0.read()
		for i := 0; i < b.N; i++ {
			for _, s := range ss {
				parse(s.body)
			}
		}
		ms1.read()
		b.ReportMetric(float64(ms1.alloc-ms0.alloc)/float64(b.N)/float64(total), "heap-bytes/byte")
	}
	b.Run("lib=robotsguard", func(b *testing.B) {
		run(b, func(body []byte) { policy.Parse(body) })
	})
	b.Run("lib=temoto", func(b *testing.B) {
		run(b, func(body []byte) { robotstxt.FromBytes(body) })
	})
}

// BenchmarkParseAndFirstMatch is the cost of a new file for a crawler:
// parse, then answer a first query for one agent, which builds that agent's
// matcher.
func BenchmarkParseAndFirstMatch(b *testing.B) {
	ss := load(b)
	total := 0
	for _, s := range ss {
		total += len(s.body)
	}
	b.Run("lib=robotsguard", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, s := range ss {
				policy.Parse(s.body).Allowed("Googlebot", s.urls[0])
			}
		}
	})
	b.Run("lib=temoto", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, s := range ss {
				r, _ := robotstxt.FromBytes(s.body)
				r.TestAgent(s.paths[0], "Googlebot")
			}
		}
	})
}
