package acap

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// decidePerClass decides q as Decide does, but reads every class of
// fields on its own, never in aggregates.
func decidePerClass(p *Policy, q Query) Decision {
	if !standard(q.Usage) {
		q.Usage = Usage(strings.ToLower(string(q.Usage)))
		if !q.Usage.Valid() {
			return Decision{Basis: BasisInvalidUsage}
		}
	}
	d := deciderPool.Get().(*decider)
	d.perClass = true
	d.cased = policy.CanonicalPath(policy.PathOf(q.URL))
	d.subj = subject{path: appendLower(d.subj.path[:0], d.cased)}
	dec := d.run(p, q)
	d.release()
	return dec
}

// honourModes are the crawlers checkAggregates asks for: one that honours
// every qualifier, one that honours none, and one that honours some.
var honourModes = []func(Qualifier) bool{
	nil,
	func(Qualifier) bool { return true },
	func(Qualifier) bool { return false },
	func(q Qualifier) bool {
		h := fnv.New32a()
		h.Write([]byte(q.Value))
		return h.Sum32()%3 != 0
	},
}

// checkAggregates compares the decisions on q, for each crawler of
// honourModes, with and without aggregates.
func checkAggregates(t *testing.T, p *Policy, q Query) {
	t.Helper()
	for _, h := range honourModes {
		q.Honours = h
		got, want := p.Decide(q), decidePerClass(p, q)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v (honours %v):\naggregates %v\n%#v\nper class  %v\n%#v", q, h != nil, got, got, want, want)
		}
	}
}

// aggregateBodies are files with patterns that many classes of fields
// name: different qualifiers, usages, verdicts, definitions, and fields
// repeated.
func aggregateBodies() []string {
	kinds := []string{
		"ACAP-allow-present-snippet: %s max-length=%d-words",
		"ACAP-allow-(c1): %s",
		"ACAP-allow-(c2): %s",
		"ACAP-disallow-present: %s",
		"ACAP-allow-other: %s usage-ref=/t%d",
		"ACAP-allow-crawl: %s",
		"ACAP-disallow-crawl: %s",
		"ACAP-allow-index: %s time-limit=%d-days",
		"ACAP-allow-present: %s prohibited-modification=translation",
		"ACAP-allow-present: %s prohibited-modification=style",
		"ACAP-allow-index: %s must-use-resource=/r%d",
		"ACAP-allow-(q1): %s",
		"ACAP-allow-(q3): %s",
		"ACAP-disallow-present-snippet: %s",
		"ACAP-allow-present: %s max-length=%d-words", // invalid for present: a prohibition
	}
	var out []string
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		var b strings.Builder
		b.WriteString("ACAP-version: 1.1\n")
		b.WriteString("ACAP-qualified-usage: q1 present-snippet max-length=20-words\n")
		b.WriteString("ACAP-qualified-usage: q2 present-snippet max-length=30-words\n")
		b.WriteString("ACAP-qualified-usage: q3 index time-limit=7-days\n")
		b.WriteString("ACAP-composite-usage: c1 (q1) (q3) crawl\n")
		b.WriteString("ACAP-composite-usage: c2 (q2) present (q1)\n")
		b.WriteString("User-agent: *\nDisallow: /a/\nAllow: /b\n\n")
		var use []string // the kinds of this file
		for _, k := range kinds {
			if rng.IntN(3) == 0 {
				use = append(use, k)
			}
		}
		if len(use) == 0 {
			use = kinds[:2]
		}
		for r := range 1 + rng.IntN(3) {
			fmt.Fprintf(&b, "ACAP-crawler: %s\n", []string{"*", "bot"}[rng.IntN(2)])
			for i := range 10 + rng.IntN(30) {
				pat := []string{"/", "/a/", "/*b"}[rng.IntN(3)]
				line := use[rng.IntN(len(use))]
				if strings.Count(line, "%") == 2 {
					line = fmt.Sprintf(line, pat, rng.IntN(4))
				} else {
					line = fmt.Sprintf(line, pat)
				}
				b.WriteString(line + "\n")
				if r == 1 && i%9 == 4 {
					fmt.Fprintf(&b, "ACAP-usage-purpose: research\nACAP-allow-present-snippet: %s max-length=9-words\n", pat)
				}
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestAggregatesAgree checks that reading the classes of a pattern in
// aggregates decides as reading each does.
func TestAggregatesAgree(t *testing.T) {
	bodies := append(aggregateBodies(), fastBodies...)
	// Many permissions of one pattern, each with qualifiers of its own.
	var b strings.Builder
	b.WriteString("ACAP-version: 1.1\nACAP-crawler: *\n")
	for i := range 60 {
		b.WriteString("ACAP-allow-other: /")
		for j := range 4 {
			fmt.Fprintf(&b, " usage-ref=/%x", i*4+j)
		}
		b.WriteString("\n")
	}
	bodies = append(bodies, b.String(), strings.Repeat("ACAP-allow-crawl: / \n", 30))
	// Aggregates of two usages whose parts interleave.
	b.Reset()
	b.WriteString("ACAP-version: 1.1\nACAP-crawler: *\n")
	for i := range 12 {
		fmt.Fprintf(&b, "ACAP-allow-present-snippet: / max-length=%d-words\n", i)
		fmt.Fprintf(&b, "ACAP-allow-present: / prohibited-modification=%s\n", []string{"any", "format", "style", "translation"}[i%4])
	}
	bodies = append(bodies, b.String())
	urls := []string{"/", "/a/x", "/xb", "/a/b"}
	aggregated := 0
	for _, body := range bodies {
		p := Parse([]byte(body))
		for _, agent := range []string{"bot", "other"} {
			for _, u := range fastUsages {
				for _, url := range urls {
					for _, purpose := range []string{"", "research"} {
						checkAggregates(t, p, Query{Agent: agent, URL: url, Usage: u, Purpose: purpose})
					}
				}
			}
		}
		for _, r := range p.records {
			if x := r.list.index(r.fields); x.aggs != nil {
				aggregated++
			}
		}
	}
	if aggregated == 0 {
		t.Fatal("no field list has aggregates")
	}
}

// FuzzAggregates: reading the classes of a pattern in aggregates decides
// as reading each does.
func FuzzAggregates(f *testing.F) {
	for _, b := range aggregateBodies()[:3] {
		f.Add(b, "/a/x", "bot", uint8(0))
	}
	f.Fuzz(func(t *testing.T, body, url, agent string, u uint8) {
		p := Parse([]byte(body))
		checkAggregates(t, p, Query{Agent: agent, URL: url, Usage: fastUsages[int(u)%len(fastUsages)]})
	})
}
