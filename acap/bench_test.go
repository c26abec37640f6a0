package acap_test

import (
	"os"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// benchURLs are paths of independent.ie, a real file with conventional and
// ACAP records.
var benchURLs = []string{
	"/news/irish-news/story-1.ece", "/search/?q=x", "/sport/rugby/", "/opinion/a?service=Print",
	"/tablet/", "/news/a?WT.mc_id=rss", "/", "/business/b-2.html",
}

func benchFile(b *testing.B) []byte {
	body, err := os.ReadFile("testdata/independent.ie.txt")
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func BenchmarkParse(b *testing.B) {
	body := benchFile(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		acap.Parse(body)
	}
}

// BenchmarkDecideCrawl compares an ACAP crawl decision (ACAP records and
// conventional ones pooled) with the policy package's decision on the same
// file's conventional records.
func BenchmarkDecideCrawl(b *testing.B) {
	body := benchFile(b)
	b.Run("lib=acap", func(b *testing.B) {
		p := acap.Parse(body)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p.Decide(acap.Query{Agent: "FooBot/1.0", URL: benchURLs[i%len(benchURLs)], Usage: acap.Crawl})
			i++
		}
	})
	b.Run("lib=policy", func(b *testing.B) {
		g := policy.Parse(body).Group("FooBot/1.0")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			g.Decide(benchURLs[i%len(benchURLs)])
			i++
		}
	})
}

// BenchmarkAdversarial parses and decides on files of about 500 KiB built
// to make the cost grow with the square of their size (adversarialFiles).
func BenchmarkAdversarial(b *testing.B) {
	for _, tc := range adversarialFiles {
		body := tc.body()
		b.Run("file="+tc.name+"/op=parse", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				acap.Parse(body)
			}
		})
		b.Run("file="+tc.name+"/op=decide", func(b *testing.B) {
			p := acap.Parse(body)
			path := "/a/b"
			if tc.name == "wildcards" {
				path = "/" + strings.Repeat("a", 2000)
			}
			honours := func(acap.Qualifier) bool { return true }
			b.ReportAllocs()
			for b.Loop() {
				p.Decide(acap.Query{Agent: "bot", URL: path, Usage: acap.Crawl, Honours: honours})
			}
		})
	}
}
