package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// corpusDir is the shared corpus of real robots.txt files, beside the
// repository.
const corpusDir = "../../../shared/corpus"

// TestLintCorpus lints every file of the corpus (every tenth with
// -short) and reports on how many files each finding fires. A finding
// that fires on most real files is noise, and fails the test.
func TestLintCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("no corpus at %s", corpusDir)
	}
	for _, dir := range []string{"robots", "robots-longtail", "invalid"} {
		files, err := filepath.Glob(filepath.Join(corpusDir, dir, "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if testing.Short() {
			var some []string
			for i := 0; i < len(files); i += 10 {
				some = append(some, files[i])
			}
			files = some
		}
		if len(files) == 0 {
			t.Fatalf("no file in %s", dir)
		}
		start := time.Now()
		fires := map[string]int{}
		findings := 0
		// Lint on every CPU; count on this goroutine.
		results := make([][]finding, len(files))
		var wg sync.WaitGroup
		next := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range next {
					body, err := os.ReadFile(files[i])
					if err != nil {
						t.Error(err)
						continue
					}
					results[i] = lint(body)
				}
			})
		}
		for i := range files {
			next <- i
		}
		close(next)
		wg.Wait()
		for i, fs := range results {
			seen := map[string]bool{}
			for _, fi := range fs {
				findings++
				if fi.Line < 0 || fi.Severity == "" || fi.Code == "" || fi.Message == "" {
					t.Errorf("%s: incomplete finding %+v", files[i], fi)
				}
				if !slices.Contains(lintCodes, fi.Code) {
					t.Errorf("%s: undocumented finding code %q", files[i], fi.Code)
				}
				seen[fi.Code] = true
			}
			for c := range seen {
				fires[c]++
			}
		}
		var codes []string
		for c := range fires {
			codes = append(codes, c)
		}
		sort.Slice(codes, func(i, j int) bool { return fires[codes[i]] > fires[codes[j]] })
		var b strings.Builder
		for _, c := range codes {
			b.WriteString("\n\t" + c + ": " + strconv.Itoa(fires[c]))
		}
		t.Logf("%s: %d files, %d findings in %v; files per finding:%s", dir, len(files), findings, time.Since(start).Round(time.Millisecond), b.String())
		if dir == "invalid" {
			continue
		}
		for _, c := range codes {
			if fires[c]*2 > len(files) {
				t.Errorf("%s: %q fires on %d of %d real files: noise", dir, c, fires[c], len(files))
			}
		}
	}
}
