package acap_test

import (
	"bufio"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// TestParseAlong: one scan with a policy.Builder alongside gives the
// Robots that policy.Parse gives, and the Policy that Parse gives, on the
// files of acap/testdata and policy/testdata/corpus.
func TestParseAlong(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	more, _ := filepath.Glob("../policy/testdata/corpus/robots/*.txt")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("only %d files", len(files))
	}
	agents := []string{"Googlebot", "bingbot", "GPTBot", "FooBot/1.0", "", "*"}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b := policy.Parser{}.NewBuilder()
		p := acap.Parser{}.ParseAlong(body, b)
		got, want := b.Robots(), policy.Parse(body)
		if got.Size() != want.Size() || got.Truncated() != want.Truncated() ||
			!reflect.DeepEqual(got.Records(), want.Records()) || !reflect.DeepEqual(got.Unknown(), want.Unknown()) ||
			!reflect.DeepEqual(got.Sitemaps(), want.Sitemaps()) || got.Host() != want.Host() {
			t.Errorf("%s: ParseAlong's Robots differs from policy.Parse's", f)
		}
		paths := pathsOf(f, want)
		parsed := acap.Parse(body)
		for _, a := range agents {
			for _, u := range paths {
				if g, w := got.Group(a).Decide(u), want.Group(a).Decide(u); !reflect.DeepEqual(g, w) {
					t.Fatalf("%s: %q %q: %v, want %v", f, a, u, g, w)
				}
				q := acap.Query{Agent: a, URL: u, Usage: acap.Crawl}
				if g, w := p.Decide(q), parsed.Decide(q); !reflect.DeepEqual(g, w) {
					t.Fatalf("%s: %+v: %v, want %v", f, q, g, w)
				}
			}
		}
	}
}

// pathsOf returns paths to decide on a file: its site's URLs when the
// corpus has them, and paths made from its patterns.
func pathsOf(file string, r *policy.Robots) []string {
	out := []string{"/", "/robots.txt", "/a?b=c", "/index.html"}
	name := strings.TrimSuffix(filepath.Base(file), ".txt")
	if f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "urls", name+".urls")); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for i := 0; sc.Scan() && i < 30; i++ {
			out = append(out, strings.TrimSpace(sc.Text()))
		}
		f.Close()
	}
	for _, rec := range r.Records() {
		for _, rl := range rec.Rules {
			if len(out) >= 200 {
				return out
			}
			p := strings.TrimSuffix(strings.ReplaceAll(rl.Pattern, "*", "x"), "$")
			out = append(out, p, p+"y", p[:len(p)/2])
		}
	}
	return out
}

// TestReferenceURLError: the error of a locator that does not parse says
// where it comes from.
func TestReferenceURLError(t *testing.T) {
	base, _ := url.Parse("https://example.com/robots.txt")
	_, err := acap.Reference{Locator: "http://[::1/x"}.URL(base)
	var ue *url.Error
	if err == nil || !strings.HasPrefix(err.Error(), "robotsguard: acap: ") || !errors.As(err, &ue) {
		t.Fatalf("err = %v", err)
	}
}
