package acap

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// checkGlobIndex compares the patterns an index of patterns finds for a
// path (globIndex.each, with what canonicalLower finds of the path) with
// those policy.PatternMatches matches, both lower-cased, in canonical
// form. It returns how many matched.
func checkGlobIndex(t *testing.T, x *globIndex, patterns []string, path string) int {
	t.Helper()
	_, lower, lacks := canonicalLower(nil, path)
	var want []int32
	for i, pat := range patterns {
		if policy.PatternMatches(pat, string(lower)) {
			want = append(want, int32(i))
		}
	}
	var got []int32
	for _, s := range []subject{{path: lower, lacks: lacks}, {path: lower}} {
		got = got[:0]
		x.each(&s, func(id int32) bool { got = append(got, id); return true })
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("patterns %q on %q (lacks %08b): found %v, want %v", patterns, lower, s.lacks, got, want)
		}
	}
	return len(want)
}

// lowerPatterns returns the patterns in the form a field holds them:
// canonical and lower-case, each once.
func lowerPatterns(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		p = strings.ToLower(policy.CanonicalPattern(p))
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// globCases are lists of patterns, below and above smallIndex, and paths
// that each pattern's cheap rejections (rare bytes, anchored ends, byte
// sets) and the narrowing by prefix must not skip when it matches.
var globCases = []struct {
	patterns, paths []string
}{
	{[]string{"/*.ece$", "/*startindex=", "/*from=*", "/*service=print", "/*action=email", "/*comment_form",
		"/*r=rss", "/*form=zznr3", "/*wt.mc_id=*", "/*ibpage=*", "/*start=*", "/search/", "/sponsored-features/",
		"/threetrending/", "/tablet/", "/sponsored/", "/qwerty/", "/unsorted/", "/7380", "/tablet/morning-edition/"},
		[]string{"/", "/news/a-1.ece", "/news/a-1.ece?x=1", "/a?startindex=3", "/a?from=x", "/a?service=print&b",
			"/x/comment_form", "/x?r=rss", "/x?form=zznr3", "/a?wt.mc_id=1", "/?ibpage=2", "/a?start=", "/search/x",
			"/sponsored/", "/sponsored-features/a", "/spo", "/tablet", "/tablet/", "/tablet/morning-edition/x",
			"/7380", "/73801", "/738", "/a.ece", "/ece", "/x/y.ECE", "/q?a=b&c=d", "/_", "/%41", "/a%3Db"}},
	{[]string{"/a*=", "/a*?", "/a*&", "/a*_", "/a*%2f", "/a*.", "/a*.$", "/a*=*&*_$", "/a", "/ab", "/abc",
		"/abc*d", "/abd", "/b*", "/b$", "/*", "/*$"},
		[]string{"/", "/a", "/a=", "/a?", "/a?b=c&d_e.", "/a%2fb", "/a%2Fb", "/a.", "/a.b", "/ab=&_", "/abcd",
			"/abd", "/b", "/bb", "/a=&x_", "/a_=&", "/abc_d", "/x"}},
	{[]string{"/news/", "/news/*.pdf$", "/news/*print", "/news/sport/", "/news/sport/*=", "/news$",
		"/news/*_x", "/news/a", "/news/ab", "/news/abc"},
		[]string{"/news", "/news/", "/news/a.pdf", "/news/a.pdf?x", "/news/print", "/news/sport/x?a=1",
			"/news/sport/", "/news/_x", "/news/abc", "/newsx", "/new"}},
	{[]string{"/a*b", "/a*b$", "/*.gif$", "/img/"},
		[]string{"/ab", "/axb", "/axbx", "/x.gif", "/img/x.gif", "/img"}},
}

// runCases returns lists of patterns with one prefix, as many as a run
// of globs with a table of candidates holds and one either side of those
// bounds, with rare bytes and without, and paths they match.
func runCases() (cases []struct{ patterns, paths []string }) {
	for _, n := range []int{runMin - 1, runMin, 31, 32, 33} {
		var pats, paths []string
		for i := range n {
			rare := string("=?&_%.x"[i%7])
			pats = append(pats, fmt.Sprintf("/r*k%d%s", i, rare))
			paths = append(paths, fmt.Sprintf("/r/k%d%s", i, rare), fmt.Sprintf("/r/k%d", i))
		}
		cases = append(cases, struct{ patterns, paths []string }{pats, paths})
	}
	return cases
}

// TestGlobIndex checks the patterns globIndex finds against
// policy.PatternMatches on lists built to exercise its shortcuts.
func TestGlobIndex(t *testing.T) {
	for _, tc := range append(globCases, runCases()...) {
		pats := lowerPatterns(tc.patterns)
		x := newGlobIndex(pats)
		matched := 0
		for _, path := range tc.paths {
			matched += checkGlobIndex(t, x, pats, path)
		}
		for _, pat := range pats {
			// The pattern itself, its literals, and more.
			p := strings.TrimSuffix(pat, "$")
			for _, path := range []string{p, strings.ReplaceAll(p, "*", ""), strings.ReplaceAll(p, "*", "x"), p + "y", p[:len(p)/2]} {
				matched += checkGlobIndex(t, x, pats, path)
			}
		}
		if matched == 0 {
			t.Errorf("patterns %q: no path matched", tc.patterns)
		}
	}
}

// fullCorpus is the project's full corpus, present beside the repository
// in CI.
const fullCorpus = "../../shared/corpus"

// TestGlobIndexCorpus checks the patterns globIndex finds against
// policy.PatternMatches for the rules of each file of the corpus (all
// their patterns in one index) and the URLs of its site.
func TestGlobIndexCorpus(t *testing.T) {
	dirs := []string{"../policy/testdata/corpus"}
	if _, err := os.Stat(fullCorpus); err == nil && !testing.Short() {
		dirs = append(dirs, fullCorpus)
	}
	files, queries, matched := 0, 0, 0
	for _, dir := range dirs {
		list, _ := filepath.Glob(filepath.Join(dir, "robots", "*.txt"))
		list = append(list, "testdata/independent.ie.txt", "testdata/rsc.org.txt")
		for _, f := range list {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var raw []string
			for _, rec := range policy.Parse(body).Records() {
				for _, rl := range rec.Rules {
					raw = append(raw, rl.Pattern)
				}
			}
			pats := lowerPatterns(raw)
			if len(pats) == 0 {
				continue
			}
			x := newGlobIndex(pats)
			paths := []string{"/", "/a?b=c&d_e.f", "/%7Ea?b=%2F"}
			name := strings.TrimSuffix(filepath.Base(f), ".txt")
			for _, u := range []string{filepath.Join(dir, "urls", name+".urls"), filepath.Join(filepath.Dir(f), name+".urls")} {
				if uf, err := os.Open(u); err == nil {
					sc := bufio.NewScanner(uf)
					sc.Buffer(nil, 1<<20)
					for sc.Scan() {
						paths = append(paths, policy.PathOf(strings.TrimSpace(sc.Text())))
					}
					uf.Close()
				}
			}
			for _, pat := range pats[:min(len(pats), 200)] {
				p := strings.TrimSuffix(pat, "$")
				paths = append(paths, p, strings.ReplaceAll(p, "*", "x"), p+"y")
			}
			files++
			for _, path := range paths {
				queries++
				matched += checkGlobIndex(t, x, pats, path)
			}
		}
	}
	t.Logf("%d files, %d paths, %d matches", files, queries, matched)
	if matched == 0 {
		t.Fatal("no path matched")
	}
}

// FuzzGlobIndex: globIndex finds the patterns policy.PatternMatches
// matches. spec holds one pattern a line.
func FuzzGlobIndex(f *testing.F) {
	for _, tc := range append(globCases, runCases()...) {
		f.Add(strings.Join(tc.patterns, "\n"), tc.paths[len(tc.paths)/2])
	}
	f.Fuzz(func(t *testing.T, spec, path string) {
		if !strings.HasPrefix(path, "/") {
			return
		}
		pats := lowerPatterns(strings.Split(spec, "\n"))
		checkGlobIndex(t, newGlobIndex(pats), pats, path)
	})
}
