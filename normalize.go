package robotsguard

import (
	"net/url"
	"strings"
)

// Paths as servers resolve them: with Transport.NormalizePaths, a request
// is decided by its path with dot segments removed and slashes merged too.

// normalizedURL returns u with its path normalised as servers commonly do
// before they look a resource up, and whether that changed it: dot
// segments removed (RFC 3986 §5.2.4; "%2e" is a dot, as servers that
// decode before they resolve read it) and runs of slashes merged into
// one. u is not changed.
func normalizedURL(u *url.URL) (*url.URL, bool) {
	p := u.EscapedPath()
	n := normalizePath(p)
	if n == p {
		return u, false
	}
	c := *u
	c.Path, c.RawPath = n, n
	if dec, err := url.PathUnescape(n); err == nil {
		c.Path = dec // RawPath is used as long as it encodes Path
	}
	return &c, true
}

// normalizePath normalises the escaped path p (see normalizedURL). A path
// that needs nothing done is returned as it is, without allocating.
func normalizePath(p string) string {
	if !needsNormalizing(p) {
		return p
	}
	var out []string // the segments kept
	segs := strings.Split(p, "/")
	for i, s := range segs {
		last := i == len(segs)-1
		switch {
		case i == 0 && s == "":
			continue // the root
		case isDot(s, 1):
			if last {
				out = append(out, "")
			}
		case isDot(s, 2):
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		case s == "" && !last:
			// a repeated slash
		default:
			out = append(out, s)
		}
	}
	n := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") || p == "" {
		n = "/" + n
	}
	return n
}

// needsNormalizing reports whether the escaped path p holds an empty
// segment or a dot segment.
func needsNormalizing(p string) bool {
	if strings.Contains(p, "//") {
		return true
	}
	for s := range strings.SplitSeq(p, "/") {
		if isDot(s, 1) || isDot(s, 2) {
			return true
		}
	}
	return false
}

// isDot reports whether the path segment s is n dots, each written "." or
// "%2e" in either case.
func isDot(s string, n int) bool {
	for range n {
		switch {
		case strings.HasPrefix(s, "."):
			s = s[1:]
		case len(s) >= 3 && s[0] == '%' && s[1] == '2' && (s[2] == 'e' || s[2] == 'E'):
			s = s[3:]
		default:
			return false
		}
	}
	return s == ""
}
