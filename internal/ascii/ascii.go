// Package ascii holds the byte and string helpers that the policy and acap
// packages share: ASCII case folding, whitespace and hex digits. They
// ignore non-ASCII bytes, which compare as themselves, and are small
// enough to inline where it matters.
package ascii

// IsSpace reports whether c is ASCII whitespace, as C's isspace: space,
// tab, LF, VT, FF or CR.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// TrimSpace returns b without its leading and trailing IsSpace bytes.
func TrimSpace[T ~string | ~[]byte](b T) T {
	for len(b) > 0 && IsSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && IsSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// Lower returns c in lower case if it is an ASCII upper-case letter, else
// c.
func Lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// Upper returns c in upper case if it is an ASCII lower-case letter, else
// c.
func Upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// EqualFold reports whether b equals lower, a string in lower case,
// ignoring the case of b's ASCII letters.
func EqualFold[T ~string | ~[]byte](b T, lower string) bool {
	return len(b) == len(lower) && HasPrefixFold(b, lower)
}

// HasPrefixFold reports whether b starts with lower, a string in lower
// case, ignoring the case of b's ASCII letters.
func HasPrefixFold[T ~string | ~[]byte](b T, lower string) bool {
	if len(b) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if Lower(b[i]) != lower[i] {
			return false
		}
	}
	return true
}

// CutPrefixFold returns s without the prefix lower, a string in lower
// case, and true when s starts with it, ignoring the case of s's ASCII
// letters; else s and false.
func CutPrefixFold(s, lower string) (string, bool) {
	if HasPrefixFold(s, lower) {
		return s[len(lower):], true
	}
	return s, false
}

// ContainsFold reports whether sub is within s, ignoring the case of the
// ASCII letters of both.
func ContainsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && Lower(s[i+j]) == Lower(sub[j]) {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// IsASCII reports whether s holds only ASCII bytes.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Unhex returns the value of the hexadecimal digit c.
func Unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
