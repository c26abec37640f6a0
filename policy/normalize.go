package policy

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/robotsguard/robotsguard/internal/ascii"
	"github.com/robotsguard/robotsguard/internal/match"
)

// This file holds the byte-level transformations applied before matching:
// extracting the matchable part of a URL, and the percent-encoding
// normalisation of RFC 9309 §2.2.2 (RFC9309 dialect) or of Google's library
// (Google dialect).

// PathOf returns the part of url that robots.txt rules are matched against:
// path, params and query, without scheme, authority and fragment. The result
// always starts with "/", and is "/" when url has no path or is not a URL.
// PathOf does not change the encoding of url.
//
// url may be absolute ("https://example.com/a?b"), scheme-relative
// ("//example.com/a"), or a path ("/a?b"). PathOf agrees byte for byte with
// GetPathParamsQuery of Google's reference library, including on malformed
// input ("example.com/a" gives "/a").
func PathOf(url string) string {
	p, slash := pathOf(url)
	if slash {
		return "/" + p
	}
	return p
}

// pathOf is PathOf without allocating: when slash is true the path is p with
// a "/" in front of it.
func pathOf(url string) (p string, slash bool) {
	start, proto := 0, 0
	switch {
	case strings.HasPrefix(url, "https://"):
		proto = len("https://") // the common cases, without searching
	case strings.HasPrefix(url, "http://"):
		proto = len("http://")
	default:
		if len(url) >= 2 && url[0] == '/' && url[1] == '/' {
			start = 2 // scheme-relative: the authority follows
		}
		early := indexPathStart(url, start)
		proto = index(url, "://", start)
		if early >= 0 && (proto < 0 || early < proto) {
			proto = -1 // "://" inside the path or query is not a scheme separator
		}
		if proto < 0 {
			proto = start
		} else {
			proto += 3
		}
	}
	begin := indexPathStart(url, proto)
	if begin < 0 {
		return "/", false
	}
	end := len(url)
	if hash := strings.IndexByte(url[start:], '#'); hash >= 0 {
		if hash += start; hash < begin {
			return "/", false
		}
		end = hash
	}
	if url[begin] != '/' {
		return url[begin:end], true // e.g. "example.com?a" gives "/?a"
	}
	return url[begin:end], false
}

// canonicalPathOf returns pathOf(url) when that is a path that starts
// with "/" of one of the forms match.PathStart reads (ok), and whether it is
// already in the RFC 9309 canonical form (see canonicalize), as most are.
// It reads url once, eight and sixteen bytes at a time, when it is.
func canonicalPathOf(url string) (path string, canonical, ok bool) {
	// match.PathStart, without calling it.
	var begin int
	if n := match.SchemeLen(url); n > 0 {
		begin, ok = match.AuthorityEnd(url, n)
	} else {
		ok = match.IsPath(url)
	}
	switch {
	case !ok:
		return "", false, false
	case begin < 0:
		return "/", true, true
	}
	path = url[begin:]
	end, canonical := canonicalEnd(path)
	if !canonical {
		// The path ends at the first '#', which canonicalEnd did not
		// look for.
		end = len(path)
		if hash := strings.IndexByte(path, '#'); hash >= 0 {
			end = hash
		}
	}
	return path[:end], canonical, true
}

// load64 returns the eight bytes of s from i on, which s holds.
func load64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))[:])
}

// load32 returns the four bytes of s from i on, which s holds.
func load32(s string, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))[:])
}

// canonicalEnd returns the length of the path with its query that starts
// s, which ends at the first '#', and whether it is canonical
// (!needsCanonical(s[:end], false)). When it is not, end is undefined.
//
// Most paths hold no byte to look at but '?', which alone changes
// nothing: notQuery of all their bytes is or-ed together, sixteen at a
// time with one branch, the last eight or sixteen overlapping those seen
// before, and when it is 0, s is canonical to its end. Otherwise
// canonicalScan finds the bytes to look at.
func canonicalEnd(s string) (end int, ok bool) {
	n := len(s)
	var acc uint8
	switch {
	case n >= 16:
		i := 0
		for ; i+16 <= n; i += 16 {
			t := s[i : i+16]
			acc |= notQuery[t[0]] | notQuery[t[1]] | notQuery[t[2]] | notQuery[t[3]] |
				notQuery[t[4]] | notQuery[t[5]] | notQuery[t[6]] | notQuery[t[7]] |
				notQuery[t[8]] | notQuery[t[9]] | notQuery[t[10]] | notQuery[t[11]] |
				notQuery[t[12]] | notQuery[t[13]] | notQuery[t[14]] | notQuery[t[15]]
		}
		if i < n {
			// The last eight bytes, or sixteen; those before them were
			// seen.
			if n-i > 8 {
				acc |= notQuery8(s[n-16:])
			}
			acc |= notQuery8(s[n-8:])
		}
	case n >= 8:
		acc = notQuery8(s[:8]) | notQuery8(s[n-8:])
	default:
		for i := 0; i < n; i++ {
			acc |= notQuery[s[i]]
		}
	}
	if acc == 0 {
		return n, true
	}
	return canonicalScan(s)
}

// notQuery8 returns the or of notQuery of the first eight bytes of t.
func notQuery8(t string) uint8 {
	t = t[:8]
	return notQuery[t[0]] | notQuery[t[1]] | notQuery[t[2]] | notQuery[t[3]] |
		notQuery[t[4]] | notQuery[t[5]] | notQuery[t[6]] | notQuery[t[7]]
}

// notQuery is special without '?': 1 for the bytes that are not plain, but
// '?', 0 for the others.
var notQuery = func() (t [256]uint8) {
	t = special
	t['?'] = 0
	return t
}()

// canonicalScan is canonicalEnd for a path with bytes to look at: it
// finds them, eight and sixteen bytes at a time.
func canonicalScan(s string) (end int, ok bool) {
	inQuery := false
	n := len(s)
	for i := 0; i < n; i++ {
		if i = plainUntil(s, i); i == n {
			break
		}
		c := s[i]
		switch byteClass(classOf[c]) {
		case question:
			inQuery = true
		case escape:
			if c == '#' {
				return i, true
			}
			return 0, false
		case star, dollar:
			return 0, false
		case percent:
			if i+2 >= n || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
				return 0, false
			}
			a, b := s[i+1], s[i+2]
			if a >= 'a' || b >= 'a' || decodes(ascii.Unhex(a)<<4|ascii.Unhex(b), inQuery) {
				return 0, false
			}
			i += 2
		}
	}
	return n, true
}

// plainUntil returns the index of the first byte of s from i on that is
// not plain, or len(s). It skips plain bytes sixteen, then eight at a
// time, with one branch each (the last eight overlap those seen before),
// then one at a time.
func plainUntil[T ~string | ~[]byte](s T, i int) int {
	n := len(s)
	for n >= 8 {
		for ; i+16 <= n; i += 16 {
			t := s[i : i+16]
			if special[t[0]]|special[t[1]]|special[t[2]]|special[t[3]]|
				special[t[4]]|special[t[5]]|special[t[6]]|special[t[7]]|
				special[t[8]]|special[t[9]]|special[t[10]]|special[t[11]]|
				special[t[12]]|special[t[13]]|special[t[14]]|special[t[15]] != 0 {
				break
			}
		}
		j := min(i, n-8)
		t := s[j : j+8]
		if special[t[0]]|special[t[1]]|special[t[2]]|special[t[3]]|
			special[t[4]]|special[t[5]]|special[t[6]]|special[t[7]] != 0 {
			break
		}
		if i = j + 8; i >= n {
			return n
		}
	}
	for i < n && special[s[i]] == 0 {
		i++
	}
	return i
}

// special is 1 for the bytes that are not plain, 0 for the others.
var special = func() (t [256]uint8) {
	for c := range t {
		if !plain[c] {
			t[c] = 1
		}
	}
	return t
}()

// isPathStart marks '/', '?' and ';', which start the path, params or query
// of a URL.
var isPathStart = [256]bool{'/': true, '?': true, ';': true}

// indexPathStart returns the index of the first '/', '?' or ';' in s at or
// after from, or -1.
func indexPathStart(s string, from int) int {
	for i := from; i < len(s); i++ {
		if isPathStart[s[i]] {
			return i
		}
	}
	return -1
}

func index(s, sub string, from int) int {
	if i := strings.Index(s[from:], sub); i >= 0 {
		return i + from
	}
	return -1
}

const upperHex = "0123456789ABCDEF"

// byteClass tells how the RFC 9309 canonicalisation treats a byte.
type byteClass uint8

const (
	keep     byteClass = iota // copied as is
	escape                    // must be percent-encoded: non-ASCII, controls, space, "#<>\^`{|}
	percent                   // '%': an escape sequence, normalised
	star                      // '*': wildcard in patterns, %2A in URLs
	dollar                    // '$': end anchor at the end of a pattern, %24 elsewhere
	question                  // '?': starts the query
)

var classOf = func() (t [256]byte) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80 || c < 0x20 || c == 0x7f:
			t[c] = byte(escape)
		case strings.IndexByte(" \"#<>\\^`{|}", byte(c)) >= 0:
			t[c] = byte(escape)
		case c == '%':
			t[c] = byte(percent)
		case c == '*':
			t[c] = byte(star)
		case c == '$':
			t[c] = byte(dollar)
		case c == '?':
			t[c] = byte(question)
		}
	}
	return t
}()

// decodes reports whether the percent-encoded octet v is written unencoded in
// the canonical form. RFC 9309 §2.2.2 unencodes the unreserved characters of
// RFC 3986. We also unencode ':' and '@' (never delimiters inside a path or
// query) and, inside the query, '/' and '?' (which RFC 3986 §3.4 lets stand
// for themselves there): Figure 4 of RFC 9309 shows these written encoded
// and unencoded as the same URL. Every other reserved character keeps its
// encoded form, so "/a%2Fb" and "/a/b" stay different paths.
func decodes(v byte, inQuery bool) bool {
	switch {
	case 'a' <= v && v <= 'z', 'A' <= v && v <= 'Z', '0' <= v && v <= '9':
		return true
	case v == '-', v == '.', v == '_', v == '~', v == ':', v == '@':
		return true
	case v == '/', v == '?':
		return inQuery
	}
	return false
}

// plain marks the bytes that canonicalize copies unchanged in any context.
var plain = func() (t [256]bool) {
	for c := range t {
		t[c] = byteClass(classOf[c]) == keep
	}
	return t
}()

// needsCanonical reports whether canonicalize would change s. Most URLs and
// patterns are already canonical; the check lets them through untouched.
func needsCanonical[T ~string | ~[]byte](s T, pattern bool) bool {
	inQuery := false
	n := len(s)
	for i := 0; i < n; i++ {
		// Most URLs and patterns are all plain.
		if i = plainUntil(s, i); i == n {
			break
		}
		switch byteClass(classOf[s[i]]) {
		case question:
			inQuery = true
		case escape:
			return true
		case star:
			if !pattern {
				return true
			}
		case dollar:
			if !pattern || i != len(s)-1 {
				return true
			}
		case percent:
			if i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
				return true
			}
			a, b := s[i+1], s[i+2]
			if a >= 'a' || b >= 'a' || decodes(ascii.Unhex(a)<<4|ascii.Unhex(b), inQuery) {
				return true
			}
			i += 2
		}
	}
	return false
}

// canonicalize appends to dst the canonical form of the URL path s, or of
// the rule pattern s when pattern is true, as defined by RFC 9309 §2.2.2:
//   - octets outside printable ASCII, and ASCII characters that may not
//     appear unencoded in a URI, are percent-encoded;
//   - percent-encoded octets that decodes accepts are unencoded; the others
//     keep their encoding, with upper-case hex digits;
//   - a '%' that does not start an escape sequence becomes "%25";
//   - in a URL, '*' and '$' become "%2A" and "%24", so that a pattern
//     matches them only through those encodings (RFC 9309 §2.2.3, Figure 6).
//     In a pattern, '*' is the wildcard and a final '$' the end anchor; a
//     '$' anywhere else is the character itself, "%24".
func canonicalize[T ~string | ~[]byte](dst []byte, s T, pattern bool) []byte {
	inQuery := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch byteClass(classOf[c]) {
		case keep:
			dst = append(dst, c)
		case question:
			inQuery = true
			dst = append(dst, c)
		case escape:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		case star:
			if pattern {
				dst = append(dst, '*')
			} else {
				dst = append(dst, "%2A"...)
			}
		case dollar:
			if pattern && i == len(s)-1 {
				dst = append(dst, '$')
			} else {
				dst = append(dst, "%24"...)
			}
		case percent:
			if i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
				dst = append(dst, "%25"...)
				continue
			}
			if v := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2]); decodes(v, inQuery) {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', ascii.Upper(s[i+1]), ascii.Upper(s[i+2]))
			}
			i += 2
		}
	}
	return dst
}

// CanonicalPath returns the form of a URL path (with its query) that the
// RFC9309 dialect compares with rules; see the package documentation,
// section "Percent-encoding". A path that is already canonical is returned
// as is.
func CanonicalPath(path string) string {
	if !needsCanonical(path, false) {
		return path
	}
	return string(canonicalize(make([]byte, 0, len(path)+8), path, false))
}

// needsGoogleEscape reports whether googleEscape would change s.
func needsGoogleEscape(s []byte) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]) {
			if s[i+1] >= 'a' || s[i+2] >= 'a' {
				return true
			}
			i += 2
		} else if c >= 0x80 {
			return true
		}
	}
	return false
}

// googleEscape appends to dst the pattern s as Google's library normalises
// it (MaybeEscapePattern): octets with the high bit set are percent-encoded
// and the hex digits of existing escapes are upper-cased. Nothing is
// unencoded.
func googleEscape(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]):
			dst = append(dst, '%', ascii.Upper(s[i+1]), ascii.Upper(s[i+2]))
			i += 2
		case c >= 0x80:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// kosterCanonical appends to dst the form in which the 1996 draft compares
// paths and rule values (section 3.2.2): %xx escapes are decoded, except
// "%2F", which keeps its special meaning in a path, and "%25", so that a
// decoded '%' cannot make a new escape; hex digits are upper-cased, and a
// '%' that starts no escape becomes "%25".
func kosterCanonical[T ~string | ~[]byte](dst []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			dst = append(dst, c)
			continue
		}
		if i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
			dst = append(dst, "%25"...)
			continue
		}
		if v := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2]); v != '/' && v != '%' {
			dst = append(dst, v)
		} else {
			dst = append(dst, '%', ascii.Upper(s[i+1]), ascii.Upper(s[i+2]))
		}
		i += 2
	}
	return dst
}

// needsKoster reports whether kosterCanonical would change s.
func needsKoster[T ~string | ~[]byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
			return true
		}
		if v := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2]); v != '/' && v != '%' || s[i+1] >= 'a' || s[i+2] >= 'a' {
			return true
		}
		i += 2
	}
	return false
}

// CanonicalPattern returns the form in which the RFC9309 dialect compares a
// rule's pattern: CanonicalPath's, except that '*' stays a wildcard and a
// final '$' an end anchor.
func CanonicalPattern(pattern string) string {
	if !needsCanonical(pattern, true) {
		return pattern
	}
	return string(canonicalize(make([]byte, 0, len(pattern)+8), pattern, true))
}
