package match

import (
	"strings"
	"testing"
)

// TestAuthorityEnd puts every byte at every place of hosts of lengths
// around the eight bytes read at once, twice: the first of the bytes that
// end a host is found, and tells where the path starts.
func TestAuthorityEnd(t *testing.T) {
	naive := func(s string, from int) (int, bool) {
		for i := from; i < len(s); i++ {
			switch s[i] {
			case '/':
				return i, true
			case '#':
				return -1, true
			case '?', ';':
				return 0, false
			}
		}
		return -1, true
	}
	for n := 1; n <= 20; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				for _, second := range []byte{'a', '/', '#', '?' + 0x80} {
					b := []byte("https://" + strings.Repeat("h", n))
					b[8+at] = byte(c)
					b[8+(at*7+3)%n] = second
					s := string(b)
					got, gotOK := AuthorityEnd(s, 8)
					if want, wantOK := naive(s, 8); got != want || gotOK != wantOK {
						t.Fatalf("AuthorityEnd(%q, 8) = %d, %v; want %d, %v", s, got, gotOK, want, wantOK)
					}
				}
			}
		}
	}
}
