package ascii

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct {
		s, lower      string
		equal, prefix bool
		contains      bool
	}{
		{"User-Agent", "user-agent", true, true, true},
		{"USER-AGENTS", "user-agent", false, true, true},
		{"User", "user-agent", false, false, false},
		{"xDisAllow", "disallow", false, false, true},
		{"\xc3\x89", "\xc3\xa9", false, false, false}, // É and é: ASCII only
		{"", "", true, true, true},
	} {
		if got := EqualFold(tc.s, tc.lower); got != tc.equal {
			t.Errorf("EqualFold(%q, %q) = %v", tc.s, tc.lower, got)
		}
		if got := EqualFold([]byte(tc.s), tc.lower); got != tc.equal {
			t.Errorf("EqualFold([]byte(%q), %q) = %v", tc.s, tc.lower, got)
		}
		if got := HasPrefixFold(tc.s, tc.lower); got != tc.prefix {
			t.Errorf("HasPrefixFold(%q, %q) = %v", tc.s, tc.lower, got)
		}
		if got := ContainsFold(tc.s, strings.ToUpper(tc.lower)); got != tc.contains && IsASCII(tc.lower) {
			t.Errorf("ContainsFold(%q, %q) = %v", tc.s, strings.ToUpper(tc.lower), got)
		}
	}
	if rest, ok := CutPrefixFold("The-ACAP:x", "the-acap:"); !ok || rest != "x" {
		t.Errorf("CutPrefixFold = %q, %v", rest, ok)
	}
}

func TestBytes(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if got, want := Lower(b), strings.ToLower(string(rune(b)))[0]; b < 0x80 && got != want || b >= 0x80 && got != b {
			t.Errorf("Lower(%#x) = %#x", b, got)
		}
		if got, want := Upper(b), strings.ToUpper(string(rune(b)))[0]; b < 0x80 && got != want || b >= 0x80 && got != b {
			t.Errorf("Upper(%#x) = %#x", b, got)
		}
		if got, want := IsSpace(b), strings.ContainsRune(" \t\n\v\f\r", rune(b)); got != want {
			t.Errorf("IsSpace(%#x) = %v", b, got)
		}
		if got, want := IsHex(b), strings.ContainsRune("0123456789abcdefABCDEF", rune(b)); got != want {
			t.Errorf("IsHex(%#x) = %v", b, got)
		} else if got && int(Unhex(b)) != strings.IndexByte("0123456789abcdef", Lower(b)) {
			t.Errorf("Unhex(%q) = %d", b, Unhex(b))
		}
	}
	if got := string(TrimSpace([]byte(" \t a b\r\n"))); got != "a b" {
		t.Errorf("TrimSpace = %q", got)
	}
}
