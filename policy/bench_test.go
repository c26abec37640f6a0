package policy_test

import (
	"path/filepath"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// Benchmarks of the policy engine alone, on the corpus subset. The bench
// module compares it with other libraries.

type benchQuery struct {
	g   *policy.Group
	url string
}

func benchQueries(b *testing.B) []benchQuery {
	var qs []benchQuery
	for _, s := range loadSites(b, filepath.Join("testdata", "corpus"), 50) {
		r := policy.Parse(s.body)
		for _, a := range corpusAgents {
			g := r.Group(a)
			for _, u := range s.urls {
				g.Decide(u)
				qs = append(qs, benchQuery{g, u})
			}
		}
	}
	return qs
}

// BenchmarkGroupDecide is the cost of one Decide on a compiled group,
// averaged over the real URLs of the subset and four agents.
func BenchmarkGroupDecide(b *testing.B) {
	qs := benchQueries(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := &qs[i%len(qs)]
		q.g.Decide(q.url)
	}
}

// BenchmarkParseSubset parses every file of the subset.
func BenchmarkParseSubset(b *testing.B) {
	sites := loadSites(b, filepath.Join("testdata", "corpus"), 0)
	total := 0
	for _, s := range sites {
		total += len(s.body)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, s := range sites {
			policy.Parse(s.body)
		}
	}
}
