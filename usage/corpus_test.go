package usage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// usageCorpusDir is the shared corpus of real robots.txt files, beside the
// repository.
const usageCorpusDir = "../../shared/corpus"

// acapCounter counts the records of a robots.txt whose key starts with
// "ACAP-", ignoring case.
type acapCounter struct{ n int }

func (a *acapCounter) UserAgent(int, []byte) {}
func (a *acapCounter) Allow(int, []byte)     {}
func (a *acapCounter) Disallow(int, []byte)  {}
func (a *acapCounter) Sitemap(int, []byte)   {}
func (a *acapCounter) Other(_ int, key, _ []byte) {
	if len(key) >= 5 && bytes.EqualFold(key[:5], []byte("acap-")) {
		a.n++
	}
}

// naiveSignalLines counts the lines of body, in the part a robots.txt
// parser reads, whose key (before ':', spaces trimmed) is sig's.
func naiveSignalLines(body []byte, sig Signal) int {
	if len(body) > policy.DefaultMaxSize {
		body = body[:policy.DefaultMaxSize]
		body = body[:bytes.LastIndexAny(body, "\r\n")+1]
	}
	name := "content-usage"
	if sig == ContentSignal {
		name = "content-signal"
	}
	n := 0
	for _, line := range strings.FieldsFunc(string(body), func(r rune) bool { return r == '\n' || r == '\r' }) {
		key, _, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.Trim(key, " \t\ufeff"), name) {
			n++
		}
	}
	return n
}

// TestRobotsSignalsCorpus reads every file of the corpus (every tenth with
// -short), reports how many carry each robots.txt usage signal, and checks
// that every Content-Usage and Content-Signal line is found and that each
// one speaking of a category shows in the Evidence of a query it decides.
func TestRobotsSignalsCorpus(t *testing.T) {
	if _, err := os.Stat(usageCorpusDir); err != nil {
		t.Skipf("no corpus at %s", usageCorpusDir)
	}
	for _, dir := range []string{"robots", "robots-longtail"} {
		files, err := filepath.Glob(filepath.Join(usageCorpusDir, dir, "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no file in %s", dir)
		}
		if testing.Short() {
			var some []string
			for i := 0; i < len(files); i += 10 {
				some = append(some, files[i])
			}
			files = some
		}
		var withUsage, withSignal, withACAP, clean, usageLines, signalLines int
		for _, file := range files {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			r := ParseRobots(body, "https://"+strings.TrimSuffix(filepath.Base(file), ".txt")+"/robots.txt")
			var acap acapCounter
			policy.Parser{}.Scan(body, &acap)
			if acap.n > 0 {
				withACAP++
			}
			probs, nprob := r.Problems()
			outside := map[Signal]int{}
			for _, p := range probs {
				if p.Err == errOutsideGroup {
					outside[p.Signal]++
				}
			}
			for _, sig := range []Signal{ContentUsage, ContentSignal} {
				naive := naiveSignalLines(body, sig)
				if got := r.Count(sig) + outside[sig]; got != naive && nprob <= robotsMaxProblems {
					t.Errorf("%s: %d %s lines read, %d in the file", file, got, sig, naive)
				}
			}
			if r.Count(ContentUsage) > 0 {
				withUsage++
				usageLines += r.Count(ContentUsage)
			}
			if r.Count(ContentSignal) > 0 {
				withSignal++
				signalLines += r.Count(ContentSignal)
			}
			if !r.Empty() && nprob == 0 {
				clean++
			}
			if !r.Empty() {
				for _, p := range probs {
					t.Logf("%s: %v", filepath.Base(file), p)
				}
				checkEveryRuleSpeaks(t, file, r)
			}
		}
		t.Logf("%s: %d files: %d with Content-Usage (%d lines), %d with Content-Signal (%d lines), %d with ACAP- fields; %d of the %d with usage lines read without a problem",
			dir, len(files), withUsage, usageLines, withSignal, signalLines, withACAP, clean, max(withUsage, withSignal))
	}
}

// checkEveryRuleSpeaks asks, for each rule that speaks of a category, about
// an agent of its group and a path its pattern matches, and expects the rule
// in the Evidence, unless a longer rule of its signal also matches.
func checkEveryRuleSpeaks(t *testing.T, file string, r *RobotsSignals) {
	t.Helper()
	for gi, g := range r.groups {
		agent := "" // no product token: the "*" groups
		for _, a := range r.agents {
			if a.group == uint32(gi) {
				agent = a.token
				break
			}
		}
		if agent == "" && !containsGroup(r.star, uint32(gi)) {
			continue // a group that names no crawler
		}
		for i := g.lo; i < g.hi; i++ {
			rule := r.rules[i]
			if strings.ContainsAny(rule.pattern, "*$") {
				continue
			}
			for _, c := range []Category{TrainAI, AIInput, Search} {
				slot, _ := aiprefSlotOf(c)
				if rule.verdicts[slot] == Unknown {
					continue
				}
				ev := r.Evidence(agent, rule.pattern, c)
				found := false
				for _, e := range ev {
					found = found || e.Source.Line == int(rule.line)
				}
				if !found && !longerRule(r, agent, rule) {
					t.Errorf("%s line %d %q: not in the Evidence for %q %s: %v", file, rule.line, rule.text, agent, c, ev)
				}
			}
		}
	}
}

func containsGroup(gs []uint32, g uint32) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

// longerRule reports whether agent's groups hold a rule of rule's signal
// with a longer pattern that matches rule's own path.
func longerRule(r *RobotsSignals, agent string, rule aiprefRule) bool {
	lo, hi, star := r.agentGroups(agent)
	var gs []uint32
	if star {
		gs = r.star
	} else {
		for _, a := range r.agents[lo:hi] {
			gs = append(gs, a.group)
		}
	}
	for _, gi := range gs {
		g := r.groups[gi]
		for _, o := range r.rules[g.lo:g.hi] {
			if o.signal == rule.signal && len(o.pattern) > len(rule.pattern) && policy.PatternMatches(o.pattern, rule.pattern) {
				return true
			}
		}
	}
	return false
}

// TestRobotsSignalsTestdata runs the corpus checks on files in the styles
// sites publish (testdata/aipref), which the shared corpus, collected before
// these signals spread, barely holds.
func TestRobotsSignalsTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/aipref/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	problems := 0
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		r := ParseRobots(body, robotsURL)
		if r.Empty() {
			t.Errorf("%s: no signal read", file)
		}
		_, n := r.Problems()
		problems += n
		for _, sig := range []Signal{ContentUsage, ContentSignal} {
			outside := 0
			probs, _ := r.Problems()
			for _, p := range probs {
				if p.Err == errOutsideGroup && p.Signal == sig {
					outside++
				}
			}
			if got, want := r.Count(sig)+outside, naiveSignalLines(body, sig); got != want {
				t.Errorf("%s: %d %s lines read, %d in the file", file, got, sig, want)
			}
		}
		checkEveryRuleSpeaks(t, file, r)
	}
	// mixed.txt: a line before the groups, Train-AI, ai-train=maybe.
	if problems != 3 {
		t.Errorf("%d problems, want 3", problems)
	}
}
