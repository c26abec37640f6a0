package acap_test

import (
	"os"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

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
// conventional ones pooled, Policy.Decide) with the policy package's
// decision on the same file's conventional records (policy.Group.Decide,
// the group looked up once), side by side: benchstat -col /engine gives
// the ratio. The real files are the corpus's two with ACAP records, asked
// about the URLs seen on their sites, by an unknown agent and by one their
// conventional records name; the adversarial files (adversarialFiles) are
// asked what BenchmarkAdversarial asks, without Honours.
func BenchmarkDecideCrawl(b *testing.B) {
	type file struct {
		name   string
		body   []byte
		urls   []string
		agents []string
	}
	var files []file
	for _, site := range []struct{ name, agent string }{{"independent.ie", "Googlebot/2.1"}, {"rsc.org", "Guidebot/1.0"}} {
		body, err := os.ReadFile("testdata/" + site.name + ".txt")
		if err != nil {
			b.Fatal(err)
		}
		list, err := os.ReadFile("testdata/" + site.name + ".urls")
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, file{site.name, body, strings.Fields(string(list)), []string{"FooBot/1.0", site.agent}})
	}
	for _, tc := range adversarialFiles {
		path := "/a/b"
		if tc.name == "wildcards" {
			path = "/" + strings.Repeat("a", 2000)
		}
		files = append(files, file{"adversarial-" + tc.name, tc.body(), []string{path}, []string{"bot"}})
	}
	for _, f := range files {
		for _, agent := range f.agents {
			name := "file=" + f.name + "/agent=" + policy.ProductToken(agent)
			b.Run(name+"/engine=conventional", func(b *testing.B) {
				g := policy.Parse(f.body).Group(agent)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					g.Decide(f.urls[i%len(f.urls)])
					i++
				}
			})
			b.Run(name+"/engine=acap", func(b *testing.B) {
				p := acap.Parse(f.body)
				// The first decision for an agent compiles what it reads.
				p.Decide(acap.Query{Agent: agent, URL: f.urls[0], Usage: acap.Crawl})
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					p.Decide(acap.Query{Agent: agent, URL: f.urls[i%len(f.urls)], Usage: acap.Crawl})
					i++
				}
			})
		}
	}
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
			// The first decision for an agent compiles what it reads.
			p.Decide(acap.Query{Agent: "bot", URL: path, Usage: acap.Crawl, Honours: honours})
			b.ReportAllocs()
			for b.Loop() {
				p.Decide(acap.Query{Agent: "bot", URL: path, Usage: acap.Crawl, Honours: honours})
			}
		})
	}
}
