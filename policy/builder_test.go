package policy_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// TestBuilder: a Builder fed by Scan builds the Robots that Parse does, in
// every dialect, and can be fed again once Robots has emptied it.
func TestBuilder(t *testing.T) {
	sites := loadSites(t, filepath.Join("testdata", "corpus"), 50)
	for _, d := range []policy.Dialect{policy.RFC9309, policy.Google, policy.Koster1996} {
		p := policy.Parser{Dialect: d}
		b := p.NewBuilder()
		for _, s := range sites {
			want := p.Parse(s.body)
			truncated := p.Scan(s.body, b)
			got := b.Robots()
			if got.Dialect() != d || got.Truncated() != truncated || got.Size() != want.Size() || got.Truncated() != want.Truncated() {
				t.Errorf("%v %s: dialect %v, size %d, truncated %v; want %d, %v", d, s.name, got.Dialect(), got.Size(), got.Truncated(), want.Size(), want.Truncated())
			}
			if !reflect.DeepEqual(got.Records(), want.Records()) || !reflect.DeepEqual(got.Unknown(), want.Unknown()) ||
				!reflect.DeepEqual(got.Sitemaps(), want.Sitemaps()) || got.Host() != want.Host() {
				t.Errorf("%v %s: the Builder's Robots differs from Parse's", d, s.name)
			}
			for _, a := range corpusAgents {
				for _, u := range probes(want, s.urls, 50) {
					if g, w := got.Group(a).Decide(u), want.Group(a).Decide(u); !reflect.DeepEqual(g, w) {
						t.Fatalf("%v %s: %s %s: %v, want %v", d, s.name, a, u, g, w)
					}
				}
			}
		}
	}
}

// TestBuilderTruncated: Robots reports the size and truncation Scan told
// the Builder.
func TestBuilderTruncated(t *testing.T) {
	body := make([]byte, policy.DefaultMaxSize+10)
	for i := range body {
		body[i] = '\n'
	}
	p := policy.Parser{}
	b := p.NewBuilder()
	p.Scan(body, b)
	if r := b.Robots(); !r.Truncated() || r.Size() != policy.DefaultMaxSize {
		t.Errorf("Truncated() = %v, Size() = %d", r.Truncated(), r.Size())
	}
	if r := b.Robots(); r.Truncated() || r.Size() != 0 || len(r.Records()) != 0 {
		t.Errorf("an emptied Builder: Truncated() = %v, Size() = %d", r.Truncated(), r.Size())
	}
}

// TestBuilderLinesInAnyOrder: a Builder fed directly keeps the lines it is
// given, in whatever order they come.
func TestBuilderLinesInAnyOrder(t *testing.T) {
	b := policy.Parser{}.NewBuilder()
	b.UserAgent(300, []byte("a"))
	b.UserAgent(2, []byte("b"))
	b.Disallow(10, []byte("/x"))
	b.Disallow(400, []byte("/y"))
	b.Allow(11, []byte("/z"))
	b.UserAgent(5, []byte("c"))
	b.Allow(12, []byte("/w"))
	recs := b.Robots().Records()
	var agents, rules []int
	for _, rec := range recs {
		for _, a := range rec.Agents {
			agents = append(agents, a.Line)
		}
		for _, rl := range rec.Rules {
			rules = append(rules, rl.Line)
		}
	}
	if want := []int{300, 2, 5}; !reflect.DeepEqual(agents, want) {
		t.Errorf("agents on lines %v, want %v", agents, want)
	}
	if want := []int{10, 400, 11, 12}; !reflect.DeepEqual(rules, want) {
		t.Errorf("rules on lines %v, want %v", rules, want)
	}
}
