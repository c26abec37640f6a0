package match

import (
	"slices"
	"strings"
)

// queryVariants returns the patterns that stand for the canonical RFC9309
// pattern p (without its end anchor) when a "%2F" or "%3F" in it falls in
// the query of a URL.
//
// A canonical URL decodes %2F and %3F in its query only (see policy's decodes). A
// pattern knows where it stands only before its first '*' (the path) and
// after its first '?' (the query); between the two, an encoded '/' or '?'
// may meet a path, where it stays encoded, or a query, where the URL has it
// decoded. The pattern as written covers the first case; each variant
// covers the second, with the URL's query starting before one of the
// literals up to the first that holds such an escape ("?" is inserted
// there), and those escapes decoded from there on.
//
// A pattern that would need more than maxQueryVariants variants (each as
// long as the pattern, so their size grows with the square of its length)
// gets none, and ok is false: the caller then reads it in the way that
// prohibits more (see Compile).
func queryVariants(p string) (variants []string, ok bool) {
	star := strings.IndexByte(p, '*')
	if star < 0 {
		return nil, true
	}
	q := strings.IndexByte(p, '?')
	if q < 0 {
		q = len(p)
	}
	if q < star {
		return nil, true
	}
	if !hasQueryDelimEscape(p[star+1 : q]) {
		return nil, true // the common case, without splitting
	}
	segs := strings.Split(p[star+1:q], "*")
	first := slices.IndexFunc(segs, hasQueryDelimEscape)
	if first < 0 {
		return nil, true
	}
	if first+1 > maxQueryVariants {
		return nil, false
	}
	var out []string
	for j := 0; j <= first; j++ {
		var b strings.Builder
		b.WriteString(p[:star+1])
		for i, seg := range segs {
			if i == j {
				b.WriteString("?*")
			}
			if i >= j {
				seg = decodeQueryDelims.Replace(seg)
			}
			b.WriteString(seg)
			if i < len(segs)-1 {
				b.WriteByte('*')
			}
		}
		b.WriteString(p[q:])
		out = append(out, b.String())
	}
	return out, true
}

// widenQueryDelims returns p with each "%2F" and "%3F" between its first
// '*' and its first '?' replaced by '*': a pattern that matches whatever p
// or any of its query variants matches.
func widenQueryDelims(p string) string {
	star := strings.IndexByte(p, '*')
	q := strings.IndexByte(p, '?')
	if star < 0 || q >= 0 && q < star {
		return p
	}
	if q < 0 {
		q = len(p)
	}
	return p[:star+1] + widen.Replace(p[star+1:q]) + p[q:]
}

var widen = strings.NewReplacer("%2F", "*", "%3F", "*")

// maxQueryVariants bounds the variants of one pattern (queryVariants).
const maxQueryVariants = 8

var decodeQueryDelims = strings.NewReplacer("%2F", "/", "%3F", "?")

func hasQueryDelimEscape(s string) bool {
	return strings.Contains(s, "%2F") || strings.Contains(s, "%3F")
}
