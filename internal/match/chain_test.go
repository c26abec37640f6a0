package match

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// testChain returns the chain of the distinct literals of lits, and its
// text.
func testChain(lits []string) (chain, string) {
	lits = slices.Clone(lits)
	slices.Sort(lits)
	lits = slices.Compact(lits)
	var text strings.Builder
	es := make([]prefixEntry, len(lits))
	for i, l := range lits {
		es[i].lit = span{uint32(text.Len()), uint32(len(l))}
		text.WriteString(l)
	}
	s := text.String()
	return newChain(s, es), s
}

// naiveDeepest returns the index in c of the longest literal that is a
// prefix of path, or -1.
func naiveDeepest(c chain, text, path string) int32 {
	best, n := int32(-1), -1
	for i, e := range c.lits {
		if l := text[e.lit.off : e.lit.off+e.lit.n]; len(l) > n && strings.HasPrefix(path, l) {
			best, n = int32(i), len(l)
		}
	}
	return best
}

// checkDeepest checks c.deepest against naiveDeepest for path.
func checkDeepest(t *testing.T, c chain, text, path string) {
	t.Helper()
	got, want := c.deepest(text, path), naiveDeepest(c, text, path)
	if got != want {
		str := func(i int32) string {
			if i < 0 {
				return "none"
			}
			sp := c.lits[i].lit
			return "\"" + text[sp.off:sp.off+sp.n] + "\""
		}
		t.Fatalf("deepest(%q) = %s, want %s (%d literals, indexed %v)", path, str(got), str(want), len(c.lits), c.first != nil)
	}
}

// TestChainFirstIndex checks chain.deepest, through the first index of
// large sets and the binary search of small ones, against a scan of every
// literal: sets with and without "" and "/", two-byte literals, literals
// that share their first bytes or differ only past them, bytes at and
// above 0x80 (above '/' and '0'), and literals that do not start with '/';
// paths that are empty, "/", two bytes long, shorter than a key, that no
// literal shares the first two or three bytes with, or the literals
// themselves, cut short and extended.
func TestChainFirstIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	heads := []string{"/a", "/ab", "/abc", "/b", "/\x80", "/\xff", "/\xff\xff", "/0", "/./", "/a\x80", "/\x00"}
	const alphabet = "ab/\x80\xff0?"
	for set := 0; set < 300; set++ {
		var lits []string
		if rng.IntN(2) == 0 {
			lits = append(lits, "")
		}
		if rng.IntN(2) == 0 {
			lits = append(lits, "/")
		}
		if rng.IntN(4) == 0 {
			lits = append(lits, "a", "ab", "\xff", "0")
		}
		n := 1 + rng.IntN(2*firstMin)
		for len(lits) < n {
			l := []byte(heads[rng.IntN(len(heads))])
			if rng.IntN(5) == 0 {
				l = l[:2] // a two-byte literal
			}
			for k := rng.IntN(10); k > 0; k-- {
				l = append(l, alphabet[rng.IntN(len(alphabet))])
			}
			lits = append(lits, string(l))
		}
		c, text := testChain(lits)
		if (c.first != nil) != (len(c.lits) >= firstMin) {
			t.Fatalf("%d literals: indexed %v", len(c.lits), c.first != nil)
		}
		paths := []string{"", "/", "a", "/a", "/b", "/c", "/\x80", "/\xff", "/\xff\xff", "/0", "/z/", "/zz", "/\x00", "/\x00\x00", "/a\x00"}
		for _, l := range c.lits {
			lit := text[l.lit.off : l.lit.off+l.lit.n]
			paths = append(paths, lit, lit+"/", lit+"\xff", lit+"x/y/z")
			if lit != "" {
				paths = append(paths, lit[:len(lit)-1], lit[:rng.IntN(len(lit))])
			}
		}
		for q := 0; q < 100; q++ {
			b := []byte("/")
			for k := rng.IntN(12); k > 0; k-- {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			}
			paths = append(paths, string(b))
		}
		for _, p := range paths {
			checkDeepest(t, c, text, p)
		}
	}
}

// FuzzChainDeepest checks chain.deepest against a scan of every literal,
// for the literals of lits (separated by newlines) and as many more made
// from them as the first index needs.
func FuzzChainDeepest(f *testing.F) {
	f.Add("/a\n/ab\n/b\n/\n\n/\x80\xff\n/abc/d", "/abc/de")
	f.Add("/x\n/xy\nq", "/xz")
	f.Add("/", "/")
	f.Fuzz(func(t *testing.T, lits, path string) {
		if len(lits) > 1<<12 {
			return
		}
		ls := strings.Split(lits, "\n")
		for i := 0; len(ls) < firstMin; i++ {
			l := ls[i%len(ls)]
			ls = append(ls, l+string(rune('a'+i%26)), l[:len(l)/2])
		}
		c, text := testChain(ls)
		checkDeepest(t, c, text, path)
		for _, l := range ls[:min(len(ls), 32)] {
			checkDeepest(t, c, text, l)
			checkDeepest(t, c, text, l+path)
		}
	})
}

// TestChainCount checks the branch-free binary search of countKeys
// against a count of keys, on sets of 0 to 40 keys with repeats, for keys
// around each of theirs and the extremes.
func TestChainCount(t *testing.T) {
	for n := 0; n <= 40; n++ {
		c := make([]prefixEntry, n)
		for i := range c {
			c[i].key = uint64(i/3) * 7
			if i == n-1 && n%2 == 0 {
				c[i].key = math.MaxUint64
			}
		}
		for _, k := range []uint64{0, 1, 6, 7, 8, 20, 21, 22, 90, 91, math.MaxUint64 - 1, math.MaxUint64} {
			want := 0
			for _, e := range c {
				if e.key <= k {
					want++
				}
			}
			if got := countKeys(c, k); got != want {
				t.Fatalf("%d keys: count(%d) = %d, want %d", n, k, got, want)
			}
		}
	}
}
