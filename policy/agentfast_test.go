package policy

import (
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/internal/ascii"
)

// TestTokenGroupIs checks the word-wise comparison of an agent with a built
// token against ascii.EqualFold: tokens of 0 to 20 bytes, around the four,
// eight and sixteen bytes read at once, with every byte of the agent
// replaced by each of the 256, and case changed. '-' and '_' must not fold
// (into CR and DEL), nor anything else but letters.
func TestTokenGroupIs(t *testing.T) {
	const letters = "abcdefghijklmnopqrstuvwxyz-_zyx"
	for n := 0; n <= 20; n++ {
		for _, shift := range []int{0, 7, 25, 26, 27} {
			tok := make([]byte, n)
			for i := range tok {
				tok[i] = letters[(i+shift)%len(letters)]
			}
			e := newTokenGroup(string(tok), nil, nil)
			check := func(ua string) {
				t.Helper()
				want := ascii.EqualFold(ua, e.token)
				var got bool
				if 4 <= len(ua) && len(ua) <= 16 {
					a, b := loadShort(ua)
					got = e.is(len(ua), a, b)
				} else {
					got = want // compared by EqualFold itself
				}
				if got != want {
					t.Fatalf("token %q, agent %q: is = %v, EqualFold %v", e.token, ua, got, want)
				}
			}
			check(string(tok))
			check(strings.ToUpper(string(tok)))
			for at := 0; at < n; at++ {
				for c := 0; c < 256; c++ {
					b := []byte(strings.ToUpper(string(tok)))
					b[at] = byte(c)
					check(string(b))
					b = append([]byte(nil), tok...)
					b[at] = byte(c)
					check(string(b))
				}
			}
			if n > 0 {
				check(string(tok[1:]))
				check(string(tok[:n-1]))
				check(string(tok) + "a")
			}
		}
	}
}

// TestGroupAgentsBySize asks for agents of 1 to 18 bytes, some the file
// names, in every case, twice: each gets the group of its own token.
func TestGroupAgentsBySize(t *testing.T) {
	var b strings.Builder
	var toks []string
	for n := 1; n <= 18; n++ {
		tok := strings.Repeat("x", n-1) + string(rune('a'+n))
		if n%3 == 0 {
			tok = strings.Repeat("-", n-1) + "_"
		}
		toks = append(toks, tok)
		if n%2 == 0 {
			b.WriteString("user-agent: " + tok + "\ndisallow: /" + tok + "\n\n")
		}
	}
	b.WriteString("user-agent: *\ndisallow: /star\n")
	r := Parse([]byte(b.String()))
	for round := 0; round < 2; round++ {
		for i, tok := range toks {
			for _, ua := range []string{tok, strings.ToUpper(tok), strings.ReplaceAll(strings.ReplaceAll(tok, "-", "\r"), "_", "\x7f")} {
				named := (i+1)%2 == 0 && ua != strings.ReplaceAll(strings.ReplaceAll(tok, "-", "\r"), "_", "\x7f") || (i+1)%2 == 0 && !strings.ContainsAny(tok, "-_")
				want := "*"
				if named {
					want = strings.ToLower(tok)
				}
				if got := r.Group(ua).Agent(); got != want {
					t.Errorf("round %d: Group(%q).Agent() = %q, want %q", round, ua, got, want)
				}
			}
		}
	}
}
