package usage

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

func corpusBodies(b *testing.B) [][]byte {
	files, _ := filepath.Glob(filepath.Join(usageCorpusDir, "robots", "*.txt"))
	if len(files) == 0 {
		b.Skipf("no corpus at %s", usageCorpusDir)
	}
	bodies := make([][]byte, 0, len(files))
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	return bodies
}

// BenchmarkParseRobots reads every file of the corpus's robots folder per
// iteration: as they are (almost none has a usage line), with a
// Content-Signal group appended (so each is scanned), and, for scale, the
// full policy.Parse of the same files.
func BenchmarkParseRobots(b *testing.B) {
	bodies := corpusBodies(b)
	size := 0
	withLine := make([][]byte, len(bodies))
	for i, body := range bodies {
		size += len(body)
		withLine[i] = append(append([]byte(nil), body...), "\nUser-agent: *\nContent-Signal: search=yes, ai-train=no\n"...)
	}
	b.Run("corpus", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, body := range bodies {
				ParseRobots(body, robotsURL)
			}
		}
	})
	b.Run("corpus+signal", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, body := range withLine {
				ParseRobots(body, robotsURL)
			}
		}
	})
	b.Run("policy.Parse", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, body := range bodies {
				policy.Parse(body)
			}
		}
	})
}

func BenchmarkRobotsEvidence(b *testing.B) {
	body, err := os.ReadFile("testdata/aipref/publisher.txt")
	if err != nil {
		b.Fatal(err)
	}
	r := ParseRobots(body, robotsURL)
	b.ReportAllocs()
	for b.Loop() {
		r.Evidence("Mozilla/5.0 (compatible; ExampleSearchBot/2.1)", "https://example.com/archive/2020/page.html", AIInput)
	}
}

func BenchmarkParsePreferences(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ParsePreferences(`train-ai=n, ai-use=y;exp=@1767225600, search=y, future="x"`)
	}
}
