package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzInputs: any robots.txt file and any URL list or crawl log, read by
// check (with and without -acap), lint and diff from files (never over
// the network), end with one of the documented exit statuses, valid JSON
// on stdout, and no panic.
func FuzzInputs(f *testing.F) {
	f.Add([]byte(siteRobots), []byte("/private/a\n/news/1\n"), "present-snippet")
	f.Add([]byte("User-agent: *\nDisallow: /x$\n"), []byte(`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /x?y HTTP/1.1" 200 2326`+"\nsee https://example.com/x), then\n# c\n\n"), "")
	f.Add([]byte("\xef\xbb\xbfUser-agent: *\x00\nDisallow: /%E2%82\n"), []byte("/\xff\n HTTP://EXAMPLE.COM/%zz\n"), "(local)")
	for _, glob := range []string{"testdata/*.txt", "../../policy/testdata/corpus/robots/*.txt"} {
		files, _ := filepath.Glob(glob)
		for i, file := range files {
			if i >= 20 {
				break
			}
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, []byte("/\n/a/b?c\n"), "crawl")
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, robots, urls []byte, usage string) {
		if strings.ContainsAny(usage, "\x00") {
			return
		}
		file := filepath.Join(dir, "robots.txt")
		if err := os.WriteFile(file, robots, 0o644); err != nil {
			t.Fatal(err)
		}
		// Absolute URLs of the list are checked against the file, as
		// paths: no origin is contacted.
		for _, args := range [][]string{
			{"check", "-json", "-robots", file, "-urls", "-"},
			{"check", "-json", "-robots", file, "-acap", usage, "-urls", "-"},
			{"lint", "-json", file},
			{"diff", "-json", "-urls", "-", file, file},
		} {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, bytes.NewReader(urls), &stdout, &stderr)
			if code < 0 || code > exitFailure {
				t.Fatalf("%q: exit status %d; stderr %s", args, code, stderr.Bytes())
			}
			if code != exitUsage && code != exitFailure && !json.Valid(stdout.Bytes()) {
				t.Fatalf("%q: exit status %d with invalid JSON %q", args, code, stdout.Bytes())
			}
			if args[0] == "diff" && code == exitVerdict {
				t.Fatalf("%q: a file differs from itself: %s", args, stdout.Bytes())
			}
		}
	})
}
