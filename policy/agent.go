package policy

import (
	"strings"

	"github.com/robotsguard/robotsguard/internal/ascii"
)

// isTokenChar reports whether c may appear in a product token: RFC 9309
// §2.2.1 allows letters, '_' and '-'.
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
}

// leadingToken returns the longest prefix of s made of product-token
// characters.
func leadingToken[T ~string | ~[]byte](s T) T {
	i := 0
	for i < len(s) && isTokenChar(s[i]) {
		i++
	}
	return s[:i]
}

// ValidProductToken reports whether s is a product token a crawler may
// identify itself with: one or more letters, '_' or '-' (RFC 9309 §2.2.1).
// It agrees with IsValidUserAgentToObey of Google's library.
func ValidProductToken(s string) bool {
	return s != "" && leadingToken(s) == s
}

// ProductToken returns the product token that selects a crawler's group in
// a robots.txt, taken from userAgent, which is either a product token
// ("FooBot") or a full User-Agent header value:
//
//	FooBot                                             FooBot
//	FooBot/2.1 (+https://example.com/bot)              FooBot
//	Mozilla/5.0 (compatible; FooBot/2.1; +https://…)   FooBot
//
// The token is the first product of the header; when that is "Mozilla", the
// product after "compatible;" is used instead, where there is one (RFC 9309
// §2.2.1, Figure 1). ProductToken returns "" when userAgent is neither a
// token nor starts with a "token/version" product: for example "Foo Bar",
// "Foo*" or "". Such an agent follows the "*" group only.
func ProductToken(userAgent string) string {
	s := strings.TrimSpace(userAgent)
	tok := leadingToken(s)
	if len(tok) == len(s) {
		return tok
	}
	if tok == "" || s[len(tok)] != '/' {
		return ""
	}
	if strings.EqualFold(tok, "Mozilla") {
		if c := compatibleToken(s); c != "" {
			return c
		}
	}
	return tok
}

// compatibleToken returns the product token that follows "compatible;" in a
// Mozilla-style User-Agent, or "".
func compatibleToken(s string) string {
	const marker = "compatible;"
	for i := 0; i+len(marker) <= len(s); i++ {
		if !strings.EqualFold(s[i:i+len(marker)], marker) {
			continue
		}
		rest := strings.TrimLeft(s[i+len(marker):], " \t")
		tok := leadingToken(rest)
		if tok == "" {
			return ""
		}
		if len(tok) == len(rest) || strings.IndexByte("/;) \t", rest[len(tok)]) >= 0 {
			return tok
		}
		return ""
	}
	return ""
}

// groupToken returns what a user-agent line's value names: star is true
// for the "*" group (also "* anything", as Google reads it), otherwise token
// is the leading product token of the value ("FooBot/1.2" names FooBot), and
// may be empty when the value does not start with one.
func groupToken(value []byte) (token []byte, star bool) {
	if len(value) >= 1 && value[0] == '*' && (len(value) == 1 || ascii.IsSpace(value[1])) {
		return nil, true
	}
	return leadingToken(value), false
}
