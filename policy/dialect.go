package policy

import (
	"fmt"

	"github.com/robotsguard/robotsguard/internal/match"
)

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
	if d.valid() {
		return dialects[d].name
	}
	return fmt.Sprintf("Dialect(%d)", uint8(d))
}

// valid reports whether d is one of the dialects this package implements.
func (d Dialect) valid() bool { return int(d) < len(dialects) }

// A behaviour is what a dialect does wherever dialects differ. The parser
// copies a pointer to its dialect's entry of dialects into the Robots it
// builds; nothing else looks at the Dialect value. A new dialect is a new
// constant and a new entry.
type behaviour struct {
	name string

	// Reading lines.

	// lenientKeys: keys match by prefix, ignoring case, and Google's list
	// of misspellings is accepted ("disalow", "useragent", ...).
	// Otherwise keys match whole, ignoring case. "site-map" is accepted
	// either way.
	lenientKeys bool
	// missingColon: a line of two words without a colon reads as
	// "key: value".
	missingColon bool
	// maxLine is the number of bytes of a line that are read, the rest
	// being ignored; 0 for no limit.
	maxLine int
	// nulEndsLine: a NUL byte ends a line, as in a C string.
	nulEndsLine bool
	// encoding is how patterns and paths are normalised before they are
	// compared.
	encoding encoding

	// Records and groups.

	// blankEndsRecord: a blank line ends a record; rules after it and
	// before the next user-agent line belong to none.
	blankEndsRecord bool
	// substringAgents: a user-agent line names its whole value, and a
	// crawler follows the first record with a value that contains its
	// product token, ignoring case, else the first "*" record: one
	// record, never a union. Otherwise a user-agent line names its
	// leading product token, and a crawler follows the union of the
	// groups that name its token exactly, else of the "*" groups.
	substringAgents bool
	// emptyAgentGroup: a userAgent of "" follows the groups whose
	// user-agent value holds no product token, when there are some, as
	// Google's library compares it as given. Otherwise an agent without a
	// token follows the "*" groups.
	emptyAgentGroup bool

	// Rules: how they match (wildcards, the longest or the first match,
	// query variants, index.html, /robots.txt always allowed).
	match match.Options
}

// dialects holds the behaviour of each Dialect, by value.
var dialects = [...]behaviour{
	RFC9309: {
		name:     "RFC9309",
		encoding: encCanonical,
		match:    match.RFC9309(),
	},
	Google: {
		name:            "Google",
		lenientKeys:     true,
		missingColon:    true,
		maxLine:         googleMaxLineLen - 1,
		nulEndsLine:     true,
		encoding:        encGoogle,
		emptyAgentGroup: true,
		match:           match.Options{Wildcards: true, IndexHTML: true},
	},
	Koster1996: {
		name:            "Koster1996",
		encoding:        encKoster,
		blankEndsRecord: true,
		substringAgents: true,
		match:           match.Options{FirstMatch: true, RobotsTxtAllowed: true},
	},
}

// An encoding is how a dialect normalises patterns and paths before it
// compares them (see the package documentation, "Percent-encoding").
type encoding uint8

const (
	// encCanonical: RFC 9309's canonical form (canonicalize), for
	// patterns and paths.
	encCanonical encoding = iota
	// encGoogle: Google's library's; patterns are escaped as
	// googleEscape does, paths compared as given.
	encGoogle
	// encKoster: the 1996 draft's; %xx escapes are decoded but %2F
	// (kosterCanonical), for patterns and paths.
	encKoster
)

// needsPattern reports whether appendPattern would change the rule
// pattern v.
func (e encoding) needsPattern(v []byte) bool {
	switch e {
	case encKoster:
		return needsKoster(v)
	case encGoogle:
		return needsGoogleEscape(v)
	}
	return needsCanonical(v, true)
}

// appendPattern appends the rule pattern v to dst, normalised.
func (e encoding) appendPattern(dst, v []byte) []byte {
	switch e {
	case encKoster:
		return kosterCanonical(dst, v)
	case encGoogle:
		return googleEscape(dst, v)
	}
	return canonicalize(dst, v, true)
}

// needsPath reports whether appendPath would change path.
func (e encoding) needsPath(path string) bool {
	switch e {
	case encKoster:
		return needsKoster(path)
	case encGoogle:
		return false
	}
	return needsCanonical(path, false)
}

// appendPath appends path (with its query) to dst, normalised.
func (e encoding) appendPath(dst []byte, path string) []byte {
	switch e {
	case encKoster:
		return kosterCanonical(dst, path)
	case encGoogle:
		return append(dst, path...)
	}
	return canonicalize(dst, path, false)
}
