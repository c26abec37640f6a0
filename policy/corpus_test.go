package policy_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// sharedCorpus is the project's full corpus, present beside the repository
// on developer machines and in CI.
const sharedCorpus = "../../shared/corpus"

// corpusSite is a robots.txt file and the real URLs seen on its site.
type corpusSite struct {
	name string
	body []byte
	urls []string
}

// loadSites reads the robots.txt files of dir/robots that have a URL list
// in dir/urls, keeping at most maxURLs URLs of each.
func loadSites(t testing.TB, dir string, maxURLs int) []corpusSite {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "urls", "*.urls"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no URL lists in %s: %v", dir, err)
	}
	sort.Strings(names)
	var sites []corpusSite
	for _, n := range names {
		site := strings.TrimSuffix(filepath.Base(n), ".urls")
		body, err := os.ReadFile(filepath.Join(dir, "robots", site+".txt"))
		if err != nil {
			continue
		}
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		var urls []string
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && len(urls) < maxURLs {
			if u := strings.TrimSpace(sc.Text()); u != "" {
				urls = append(urls, u)
			}
		}
		f.Close()
		sites = append(sites, corpusSite{site, body, urls})
	}
	return sites
}

var corpusAgents = []string{"Googlebot", "bingbot", "GPTBot", "FooBot"}

// probes returns the paths to try against a file: its site's real URLs, and
// paths made from its own rules so that wildcard, anchor and prefix rules
// are hit, missed by one byte, and overlapped.
func probes(r *policy.Robots, urls []string, max int) []string {
	out := append([]string(nil), urls...)
	seen := map[string]bool{}
	add := func(p string) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if !seen[p] && len(out) < max {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, g := range r.Records() {
		for _, rl := range g.Rules {
			p := strings.TrimSuffix(rl.Pattern, "$")
			add(strings.ReplaceAll(p, "*", ""))
			add(strings.ReplaceAll(p, "*", "x/y.z"))
			add(strings.ReplaceAll(p, "*", "") + "/index.html")
			add(p[:len(p)/2])
			add(strings.ReplaceAll(p, "*", "") + "?q=1")
		}
	}
	return out
}

// agentsOf returns the standard agents plus a few named in the file.
func agentsOf(r *policy.Robots) []string {
	agents := append([]string(nil), corpusAgents...)
	for _, g := range r.Records() {
		for _, a := range g.Agents {
			if len(agents) < len(corpusAgents)+4 && a.Token != "*" {
				agents = append(agents, a.Token)
			}
		}
	}
	return append(agents, "", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
}

// checkAgainstReference compares Decide with the reference matcher on every
// probe and agent, in both dialects, and returns the number of checks.
func checkAgainstReference(t *testing.T, s corpusSite, maxProbes int) int {
	t.Helper()
	n := 0
	for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
		r := policy.Parser{Dialect: d}.Parse(s.body)
		ref := newReference(s.body, d)
		for _, agent := range agentsOf(r) {
			g := r.Group(agent)
			for _, u := range probes(r, s.urls, maxProbes) {
				if d == policy.Google {
					u = googleEncode(u)
				}
				got := g.Decide(u)
				allowed, line := ref.decide(agent, u)
				n++
				if got.Allowed != allowed || got.Rule.Line != line {
					t.Errorf("%s (%v): agent %q url %q: got %v (%v), reference says allowed=%v line %d",
						s.name, d, agent, u, got.Allowed, got, allowed, line)
					if t.Failed() && n > 20 {
						t.FailNow()
					}
				}
			}
		}
	}
	return n
}

// googleEncode percent-encodes the non-ASCII bytes of u: the Google dialect,
// like Google's library, expects URLs encoded by the caller.
func googleEncode(u string) string {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		if c := u[i]; c >= 0x80 || c <= ' ' {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestMatcherAgreesWithReference checks the indexed matcher against the
// reference matcher on the corpus subset in testdata: real URLs of each
// site, paths made from the file's rules, several agents, both dialects.
func TestMatcherAgreesWithReference(t *testing.T) {
	sites := loadSites(t, filepath.Join("testdata", "corpus"), 50)
	n := 0
	for _, s := range sites {
		n += checkAgainstReference(t, s, 300)
	}
	t.Logf("%d decisions on %d files of testdata/corpus agree with the reference", n, len(sites))
}

// TestMatcherAgreesWithReferenceFullCorpus does the same on every file of
// the shared corpus that has a URL list.
func TestMatcherAgreesWithReferenceFullCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("full corpus in long mode only; the testdata subset runs in short mode")
	}
	if _, err := os.Stat(sharedCorpus); err != nil {
		t.Skipf("shared corpus not found at %s", sharedCorpus)
	}
	sites := loadSites(t, sharedCorpus, 100)
	n := 0
	for _, s := range sites {
		n += checkAgainstReference(t, s, 300)
	}
	t.Logf("read %d files of %s/robots: %d decisions agree with the reference", len(sites), sharedCorpus, n)
}

// TestCorpusParses parses every file of the shared corpus, real robots.txt
// files and non-robots responses alike, in both dialects, and queries each:
// nothing panics, and a body over the limit is cut at it.
func TestCorpusParses(t *testing.T) {
	if _, err := os.Stat(sharedCorpus); err != nil {
		t.Skipf("shared corpus not found at %s", sharedCorpus)
	}
	count := map[string]int{}
	for _, dir := range []string{"robots", "robots-longtail", "invalid"} {
		files, err := filepath.Glob(filepath.Join(sharedCorpus, dir, "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
				r := policy.Parser{Dialect: d}.Parse(body)
				if r.Truncated() != (len(body) > policy.DefaultMaxSize) || r.Size() > policy.DefaultMaxSize {
					t.Errorf("%s: %d bytes, Truncated() = %v, Size() = %d", f, len(body), r.Truncated(), r.Size())
				}
				for _, a := range corpusAgents {
					r.Group(a).Decide("/")
					r.Group(a).Decide("https://example.com/a/b.php?c=d")
				}
				_ = policy.Parser{Dialect: d}.Report(body)
			}
			count[dir]++
		}
	}
	if count["robots"] < 2000 || count["robots-longtail"] < 10000 || count["invalid"] < 100 {
		t.Errorf("read %v files; the corpus README promises more", count)
	}
	t.Logf("parsed %d robots, %d robots-longtail and %d invalid files of %s in both dialects",
		count["robots"], count["robots-longtail"], count["invalid"], sharedCorpus)
}

// TestTruncationDropsPartialLine: a body over the limit is cut at the end of
// the last whole line before it, so a cut never turns a rule into a shorter
// one.
func TestTruncationDropsPartialLine(t *testing.T) {
	// The last rule starts 10 bytes before the limit.
	body := []byte("user-agent: *\ndisallow: /a\n")
	for len(body) < policy.DefaultMaxSize-10-100 {
		body = append(body, "# padding\n"...)
	}
	fill := policy.DefaultMaxSize - 10 - len(body) - 1
	body = append(append(body, bytes.Repeat([]byte("#"), fill)...), '\n')
	body = append(body, "disallow: /private/area\n"...)
	r := policy.Parse(body)
	if !r.Truncated() {
		t.Fatal("not truncated")
	}
	rules := r.Records()[0].Rules
	if len(rules) != 1 || rules[0].Pattern != "/a" {
		t.Errorf("rules %v: the cut line must be dropped", rules)
	}
	big := policy.Parser{MaxSize: 2 * policy.DefaultMaxSize}.Parse(body)
	if big.Truncated() || len(big.Records()[0].Rules) != 2 {
		t.Errorf("with MaxSize twice the default the whole body is read: truncated %v, rules %v", big.Truncated(), big.Records()[0].Rules)
	}
	small := policy.Parser{MaxSize: 1000}.Parse(body)
	if !small.Truncated() || small.Size() != policy.DefaultMaxSize {
		t.Errorf("MaxSize below 500 KiB must mean 500 KiB: size %d", small.Size())
	}
}
