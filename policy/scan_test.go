package policy

import (
	"strings"
	"testing"
)

// checkCanonicalPathOf fails when canonicalPathOf, the way most URLs
// take, disagrees with pathOf and needsCanonical.
func checkCanonicalPathOf(t *testing.T, url string) {
	t.Helper()
	got, canonical, ok := canonicalPathOf(url)
	want, slash := pathOf(url)
	if ok && (slash || got != want || canonical == needsCanonical(got, false)) {
		t.Fatalf("canonicalPathOf(%q) = %q, canonical %v; pathOf: %q (slash %v), canonical %v", url, got, canonical, want, slash, !needsCanonical(want, false))
	}
	if !ok && !slash && strings.HasPrefix(want, "/") &&
		(strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "/") && !strings.HasPrefix(url, "//")) {
		t.Fatalf("canonicalPathOf(%q) not ok; its path is %q", url, want)
	}
}

// TestCanonicalPathOfBytes puts every byte at every place of paths of
// lengths around the eight bytes read at once.
func TestCanonicalPathOfBytes(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for at := 1; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte("/" + strings.Repeat("a", n-1))
				b[at] = byte(c)
				for _, prefix := range []string{"", "https://example.com", "http://a.b"} {
					checkCanonicalPathOf(t, prefix+string(b))
					checkCanonicalPathOf(t, prefix+string(b)+"?q=%2F")
					checkCanonicalPathOf(t, prefix+string(b)+"#frag%")
				}
			}
		}
	}
}

func TestCanonicalPathOfCases(t *testing.T) {
	for _, u := range []string{
		"", "/", "//", "///a", "https://", "https://a", "https://a#b/c", "https://a?b#c", "https://a;b",
		"http://ex.com/a%41", "http://ex.com/a%2f", "http://ex.com/a%2F", "http://ex.com/a?%2F", "http://ex.com/a?%3f",
		"/a%", "/a%4", "/a%4#", "/a%41#", "/a%3C#", "/a#%zz", "/a*b", "/a$", "/a b", "/a\x80", "/a?b?c#d#e",
		"https://example.com/wp-admin/admin-ajax.php?action=x&y=1", "https://example.com#/a", "example.com/a",
		"/search?q=a+b&page=2~x!y", "https://host:8080/p/q/r/s/t/u/v/w/x/y/z",
	} {
		checkCanonicalPathOf(t, u)
	}
}

func FuzzCanonicalPathOf(f *testing.F) {
	for _, u := range []string{"https://example.com/a/b?c=d#e", "/a%2Fb?%2F", "http://x/%7e", "/a#b"} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, url string) {
		checkCanonicalPathOf(t, url)
	})
}

// TestNeedsCanonical: needsCanonical tells whether canonicalize changes a
// path or a pattern, whatever its length and wherever its bytes that are
// not plain fall (it skips plain bytes sixteen and eight at a time).
func TestNeedsCanonical(t *testing.T) {
	for _, s := range []string{"", "/a", "/abcdefg", "/abcdefghijklmno", "/abcdefghijklmnopqrstuvwxyz0123456789/", "/a%41b*c$"} {
		everyByteEverywhere(s, func(b []byte) {
			for _, pattern := range []bool{false, true} {
				changed := string(canonicalize(nil, b, pattern)) != string(b)
				if got := needsCanonical(b, pattern); got != changed {
					t.Fatalf("needsCanonical(%q, %v) = %v, canonicalize changes it: %v", b, pattern, got, changed)
				}
				if got := needsCanonical(string(b), pattern); got != changed {
					t.Fatalf("needsCanonical(string %q, %v) = %v, canonicalize changes it: %v", b, pattern, got, changed)
				}
			}
		})
	}
}

// TestAllocSize: allocSize rounds up to the least size class that holds n
// bytes, through its table for small sizes too.
func TestAllocSize(t *testing.T) {
	want := func(n int) int {
		for _, c := range sizeClasses {
			if int(c) >= n {
				return int(c)
			}
		}
		return (n + 8191) &^ 8191
	}
	for n := -1; n <= 40000; n++ {
		w := want(n)
		if n <= 0 {
			w = 0
		}
		if got := allocSize(n); got != w {
			t.Fatalf("allocSize(%d) = %d, want %d", n, got, w)
		}
	}
}

// TestRulesSet: a rulesSet holds each of its members once, in its array
// and past it.
func TestRulesSet(t *testing.T) {
	var s rulesSet
	rs := make([]rules, 10)
	for i := range rs {
		if !s.add(&rs[i]) {
			t.Fatalf("member %d was in the set before it was added", i)
		}
		for j := range rs {
			if s.has(&rs[j]) != (j <= i) || j <= i && s.add(&rs[j]) {
				t.Fatalf("after %d added: member %d has %v", i+1, j, s.has(&rs[j]))
			}
		}
	}
}

// TestCanonicalEndBytes puts every byte at every place of paths of 1 to
// 48 bytes, past the sixteen bytes or-ed at once and the eight or sixteen
// read again at the end, alone and after a '?': canonicalEnd agrees with
// needsCanonical on the path up to its first '#'.
func TestCanonicalEndBytes(t *testing.T) {
	for n := 1; n <= 48; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				for _, q := range []int{-1, 0, n / 2} {
					b := []byte("/" + strings.Repeat("a", n-1))
					if q > 0 && q != at {
						b[q] = '?'
					}
					b[at] = byte(c)
					s := string(b)
					want := len(s)
					if h := strings.IndexByte(s, '#'); h >= 0 {
						want = h
					}
					wantOK := !needsCanonical(s[:want], false)
					end, ok := canonicalEnd(s)
					if ok != wantOK || ok && end != want {
						t.Fatalf("canonicalEnd(%q) = %d, %v; want %d, %v", s, end, ok, want, wantOK)
					}
				}
			}
		}
	}
}
