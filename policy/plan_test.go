package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/internal/match"
)

// TestFlatPlanWhen checks which Groups decide through a flatPlan: those of
// one group of the file matched rule by rule, and no others.
func TestFlatPlanWhen(t *testing.T) {
	many := "User-agent: *\n" + strings.Repeat("Disallow: /x\n", match.FlatMax+1)
	for _, c := range []struct {
		name, body, agent string
		d                 Dialect
		plan              bool
		n                 int
	}{
		{"one group", "User-agent: *\nDisallow: /a\nAllow: /a/b\n", "bot", RFC9309, true, 2},
		{"named group", "User-agent: *\nDisallow: /\n\nUser-agent: bot\nDisallow: /a\n", "bot", RFC9309, true, 1},
		{"no rules", "User-agent: other\nDisallow: /\nUser-agent: bot\n", "bot", RFC9309, true, 0},
		{"two groups name the agent", "User-agent: bot\nDisallow: /a\n\nUser-agent: bot\nDisallow: /b\n", "bot", RFC9309, false, 0},
		{"more than match.FlatMax rules", many, "bot", RFC9309, false, 0},
		{"no group", "User-agent: other\nDisallow: /\n", "bot", RFC9309, false, 0},
		{"query variants", "User-agent: *\nDisallow: /a*%3Fb\n", "bot", RFC9309, false, 0},
		{"google", "User-agent: *\nDisallow: /a\n", "bot", Google, true, 1},
		{"google index.html", "User-agent: *\nAllow: /a/index.html\n", "bot", Google, false, 0},
		{"koster record", "User-agent: botany\nDisallow: /a\nDisallow: /b\n", "bot", Koster1996, true, 2},
	} {
		g := Parser{Dialect: c.d}.Parse([]byte(c.body)).Group(c.agent)
		f := g.flat
		if got := f.OK(); got != c.plan || f.Len() != c.n {
			t.Errorf("%s: plan %v with %d rules, want %v with %d", c.name, got, f.Len(), c.plan, c.n)
		}
	}
}

// TestFlatPlanAgrees decides paths through the plans of the Groups of the
// corpus subset, in each dialect, and through the same Groups without
// them: the Decisions, rule and line included, must be the same.
func TestFlatPlanAgrees(t *testing.T) {
	planned := 0
	for _, body := range corpusBodies(t) {
		for _, d := range []Dialect{RFC9309, Google, Koster1996} {
			r := Parser{Dialect: d}.Parse(body)
			agents := []string{"unknownbot", "googlebot", "bingbot"}
			for _, a := range r.agents() {
				if !a.star() && a.token.n > 0 {
					agents = append(agents, r.str(a.token))
				}
			}
			for _, agent := range agents {
				g := r.Group(agent)
				if !g.flat.OK() {
					continue
				}
				planned++
				bare := *g
				bare.flat = match.Plan{}
				for _, p := range planPaths(g) {
					if got, want := g.Decide(p), bare.Decide(p); got != want {
						t.Fatalf("dialect %v, agent %q, path %q: %v through the plan, %v without", d, agent, p, got, want)
					}
				}
			}
		}
	}
	if planned < 100 {
		t.Fatalf("%d Groups with a plan: the corpus subset should give many", planned)
	}
	t.Logf("%d Groups decided with and without their plan", planned)
}

// planPaths returns paths that g's rules match, nearly match and do not.
func planPaths(g *Group) []string {
	paths := []string{"/", "", "/robots.txt", "/x", "/index.html", "/a?b", "?q", "//h/p"}
	for _, rl := range g.Rules() {
		p := strings.NewReplacer("*", "x", "$", "").Replace(rl.Pattern)
		paths = append(paths, p, p+"z", p+"/", p+"?q=1", strings.TrimSuffix(p, "/"), strings.ToUpper(p))
		if len(p) > 1 {
			paths = append(paths, p[:len(p)-1], fmt.Sprintf("%s%%2F%s", p[:1], p[1:]))
		}
	}
	return paths
}

// TestFlatPlanPastLastRule decides paths whose second byte is 0xff, that of
// the bytes past a plan's last rule, with groups whose first rule is empty
// (it matches nothing, and is not in the plan's order) and 1 to 9 rules.
func TestFlatPlanPastLastRule(t *testing.T) {
	for n := 1; n <= 9; n++ {
		body := "User-agent: *\nDisallow:\n" + strings.Repeat("Allow: /b\n", n-1)
		for _, d := range []Dialect{RFC9309, Google, Koster1996} {
			g := Parser{Dialect: d}.Parse([]byte(body)).Group("bot")
			for _, p := range []string{"/\xff", "/\xffb", "\xff\xff"} {
				if dec := g.Decide(p); !dec.Allowed || dec.Basis == BasisRule {
					t.Errorf("dialect %v, %d rules, %q: %v, want no rule", d, n, p, dec)
				}
			}
		}
	}
}
