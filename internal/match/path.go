package match

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unsafe"
)

// PathStart returns the index of the path of url, when url is an http or
// https URL whose authority a '/' ends, or a path that starts with one
// '/'; begin is -1 when url is such a URL without a path (nothing, or a
// fragment, follows its authority), whose path is "/". ok is false for
// the other forms, whose path policy.PathOf finds.
func PathStart(url string) (begin int, ok bool) {
	if n := SchemeLen(url); n > 0 {
		return AuthorityEnd(url, n)
	}
	return 0, IsPath(url)
}

// SchemeLen returns the length of the "https://" or "http://" that starts
// url, or 0.
func SchemeLen(url string) int {
	switch {
	case strings.HasPrefix(url, "https://"):
		return len("https://")
	case strings.HasPrefix(url, "http://"):
		return len("http://")
	}
	return 0
}

// IsPath reports whether url is a path that starts with one '/' ("//"
// starts an authority).
func IsPath(url string) bool {
	return len(url) > 0 && url[0] == '/' && (len(url) == 1 || url[1] != '/')
}

// AuthorityEnd is PathStart for a URL whose authority starts at from.
// The authority ends at the first '/', '?' or ';'; a '#' before it starts
// a fragment, and the path is "/" (begin -1). ok is false when it is not
// a '/': "/" is to be put in front ("example.com?a").
func AuthorityEnd(url string, from int) (begin int, ok bool) {
	i := from
	for ; i+8 <= len(url); i += 8 {
		// Eight bytes at once. With h the low seven bits of each byte of
		// x, a byte of h^b*lsb8 + low7 has its high bit clear exactly
		// where h holds b (no byte carries into the next); the bytes of x
		// with the high bit set are not ASCII. '/' and '?' differ in bit
		// 0x10 only: h|0x10 holds '?' where h holds either.
		x := load64(url, i)
		h := x & low7
		t := ((h | 0x10*lsb8) ^ '?'*lsb8 + low7) & (h ^ ';'*lsb8 + low7) & (h ^ '#'*lsb8 + low7)
		if z := ^(t | x) & (lsb8 << 7); z != 0 {
			return endsAuthority(url, i+bits.TrailingZeros64(z)/8)
		}
	}
	for ; i < len(url); i++ {
		if endsHost[url[i]] != 0 {
			return endsAuthority(url, i)
		}
	}
	return -1, true
}

// endsAuthority is AuthorityEnd for the byte at j, the first '/', '?', ';'
// or '#' of the authority.
func endsAuthority(url string, j int) (begin int, ok bool) {
	switch url[j] {
	case '/':
		return j, true
	case '#':
		return -1, true
	}
	return 0, false
}

// load64 returns the eight bytes of s from i on, which s holds.
func load64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))[:])
}

// endsHost is 1 for '/', '?', ';' and '#', 0 for the other bytes.
var endsHost = [256]uint8{'/': 1, '?': 1, ';': 1, '#': 1}
