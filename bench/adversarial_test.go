package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
	"github.com/temoto/robotstxt"
)

// BenchmarkAdversarialPattern matches patterns built to make backtracking
// matchers explode against long paths that almost match. ns/op must grow
// linearly with the path length.
func BenchmarkAdversarialPattern(b *testing.B) {
	patterns := []string{"/*a*a*a*a*a*a*$", "/*a*a*a*a*a*a*b", "/" + strings.Repeat("*a", 50) + "*b$"}
	for pi, pat := range patterns {
		body := []byte("user-agent: *\ndisallow: " + pat + "\n")
		ours := policy.Parse(body)
		theirs, err := robotstxt.FromBytes(body)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1 << 10, 10 << 10, 100 << 10} {
			path := "/" + strings.Repeat("a", n)
			b.Run(fmt.Sprintf("pattern=%d/path=%dKiB/lib=robotsguard", pi, n>>10), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					ours.Allowed("FooBot", path)
				}
			})
			b.Run(fmt.Sprintf("pattern=%d/path=%dKiB/lib=temoto", pi, n>>10), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					theirs.TestAgent(path, "FooBot")
				}
			})
		}
	}
}

// wildcardFile returns a 500 KiB robots.txt made only of distinct wildcard
// rules that share literals, the worst case for a matcher's index.
func wildcardFile() []byte {
	var sb strings.Builder
	sb.WriteString("user-agent: *\n")
	for i := 0; sb.Len() < policy.DefaultMaxSize-64; i++ {
		fmt.Fprintf(&sb, "disallow: /*a*%d*b*a$\nallow: /*%d/*a*\n", i, i%97)
	}
	return []byte(sb.String())
}

// BenchmarkWildcardFile parses a 500 KiB file of wildcard rules and matches
// URLs against it.
func BenchmarkWildcardFile(b *testing.B) {
	body := wildcardFile()
	urls := []string{"/", "/a/1/b/a", "/x" + strings.Repeat("a1b", 300), "/12345/a/99/b/c/a"}
	b.Run("op=parse/lib=robotsguard", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			policy.Parse(body)
		}
	})
	b.Run("op=parse/lib=temoto", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			robotstxt.FromBytes(body)
		}
	})
	ours := policy.Parse(body)
	theirs, _ := robotstxt.FromBytes(body)
	ours.Allowed("FooBot", "/")
	b.Run("op=match/lib=robotsguard", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ours.Allowed("FooBot", urls[i%len(urls)])
		}
	})
	b.Run("op=match/lib=temoto", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			theirs.TestAgent(urls[i%len(urls)], "FooBot")
		}
	})
}

// BenchmarkManyAgents parses a 500 KiB file of user-agent and Crawl-delay
// lines in one group, and answers a first query: linear in the file.
func BenchmarkManyAgents(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < policy.DefaultMaxSize-64; i++ {
		name := []byte("bot") // product tokens hold letters only
		for j := i; j > 0 || len(name) == 3; j /= 26 {
			name = append(name, byte('a'+j%26))
		}
		fmt.Fprintf(&sb, "User-agent: %s\nCrawl-delay: %d\n", name, i%60)
	}
	sb.WriteString("Disallow: /x\n")
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		policy.Parse(body).Allowed("both", "/x")
	}
}

// adversarialFiles are robots.txt files built to make a matcher's query
// cost grow with the number of rules, with a URL for each.
func adversarialFiles() []struct {
	name string
	body []byte
	url  string
} {
	var out []struct {
		name string
		body []byte
		url  string
	}
	add := func(name string, body, url string) {
		out = append(out, struct {
			name string
			body []byte
			url  string
		}{name, []byte(body), url})
	}
	var sb strings.Builder
	// a. Thousands of rules sharing a long literal, each with its own end.
	sb.WriteString("user-agent: *\n")
	for i := 0; sb.Len() < policy.DefaultMaxSize-64; i++ {
		fmt.Fprintf(&sb, "disallow: /*abcdefghijklmnop*%x$\n", i)
	}
	add("shared-literal", sb.String(), "/"+strings.Repeat("abcdefghijklmnoX", 120)+"abcdefghijklmnopZ")
	// b. Literals that are suffixes of each other: long dictionary chains.
	sb.Reset()
	sb.WriteString("user-agent: *\n")
	for i := 1; i < 1000; i++ {
		fmt.Fprintf(&sb, "disallow: /*%s\n", strings.Repeat("a", i))
	}
	add("nested-literals", sb.String(), "/"+strings.Repeat("a", 2000))
	// c. Literals over every byte value: an automaton too large for a table.
	sb.Reset()
	sb.WriteString("user-agent: *\n")
	for c := 0x21; c < 0x7f; c++ {
		if c == '#' || c == '*' || c == '$' {
			continue
		}
		fmt.Fprintf(&sb, "disallow: /*Q%cR\ndisallow: /*P%cR\n", c, c)
	}
	add("wide-alphabet", sb.String(), "/"+strings.Repeat("Q~", 1000))
	// d. Many literal prefixes of the path, each with a few wildcard rules.
	sb.Reset()
	sb.WriteString("user-agent: *\n")
	for i := 1; i < 344; i++ {
		for _, c := range "bcdefghi" {
			fmt.Fprintf(&sb, "disallow: /%s*%c\n", strings.Repeat("a", i), c)
		}
	}
	add("nested-prefixes", sb.String(), "/"+strings.Repeat("a", 2000))
	return out
}

// BenchmarkAdversarialFiles is the query cost on those files.
func BenchmarkAdversarialFiles(b *testing.B) {
	for _, f := range adversarialFiles() {
		ours := policy.Parse(f.body)
		theirs, err := robotstxt.FromBytes(f.body)
		if err != nil {
			b.Fatal(err)
		}
		ours.Allowed("FooBot", f.url)
		b.Run("file="+f.name+"/lib=robotsguard", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ours.Allowed("FooBot", f.url)
			}
		})
		b.Run("file="+f.name+"/lib=temoto", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				theirs.TestAgent(f.url, "FooBot")
			}
		})
	}
}
