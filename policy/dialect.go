package policy

import "fmt"

// A Dialect selects how a robots.txt body is read and matched. The zero value
// is RFC9309.
type Dialect uint8

const (
	// RFC9309 follows RFC 9309 to the letter where the RFC speaks, and reads
	// leniently only where leniency cannot let a disallowed URL through. It is
	// the default. See the package documentation for the few places where it
	// differs from Google.
	RFC9309 Dialect = iota

	// Google reproduces Google's open-source robots.txt library
	// (github.com/google/robotstxt): typos such as "disalow" and
	// "useragent" are accepted, a missing colon is tolerated, lines are cut at
	// 16,664 bytes, URLs are compared as given (the caller percent-encodes
	// them), and an allow rule for "/dir/index.html" also allows "/dir/".
	Google

	// Koster1996 follows the 1996 Internet-Draft "A Method for Web Robots
	// Control" (draft-koster-robots-00): records end at blank lines; a
	// robot obeys only the first record whose user-agent value contains its
	// name, else the first "*" record; the first matching rule of that
	// record decides; patterns are plain prefixes ('*' and '$' have no
	// special meaning); %xx escapes are decoded before comparing, except
	// %2F. Fetching under this dialect, the Transport reads 401 and 403 as
	// disallowing everything and keeps a response without cache directives
	// for 7 days.
	Koster1996
)

// String returns the dialect's name, as used in the package documentation.
func (d Dialect) String() string {
	switch d {
	case RFC9309:
		return "RFC9309"
	case Google:
		return "Google"
	case Koster1996:
		return "Koster1996"
	}
	return fmt.Sprintf("Dialect(%d)", uint8(d))
}

// valid reports whether d is one of the dialects this package implements.
func (d Dialect) valid() bool { return d <= Koster1996 }
