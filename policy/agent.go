package policy

import (
	"strings"

	"github.com/robotsguard/robotsguard/internal/ascii"
)

// isTokenChar reports whether c may appear in a product token: RFC 9309
// §2.2.1 allows letters, '_' and '-'.
func isTokenChar(c byte) bool { return tokenChars[c] }

var tokenChars = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
	}
	return t
}()

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
//	colly - https://github.com/gocolly/colly           colly
//	Mozilla/5.0 (compatible; FooBot/2.1; +https://…)   FooBot
//
// A User-Agent value is a list of products separated by whitespace, each a
// name with an optional "/version", and comments in parentheses (RFC 9110
// §10.1.5): the first product names the crawler. When it is "Mozilla", the
// product after "compatible;" is used instead, where there is one (RFC
// 9309 §2.2.1, Figure 1). ProductToken returns "" when the first product's
// name is not a product token as RFC 9309 §2.2.1 defines it (letters, '_'
// and '-'): for example "Foo2", "Foo*" or "". Such an agent follows the
// "*" group only.
func ProductToken(userAgent string) string {
	s := strings.TrimSpace(userAgent)
	name := s[:productNameLen(s)]
	if rest := s[len(name):]; rest != "" && rest[0] != '/' && !ascii.IsSpace(rest[0]) {
		return "" // not a product: "Foo;bar", "Foo(bar)"
	}
	if !ValidProductToken(name) {
		return ""
	}
	return crawlerOf(name, s)
}

// crawlerOf returns the crawler that the value s, whose first product is
// named name, names: name, or the product after "compatible;" of a
// Mozilla value, where there is one.
func crawlerOf(name, s string) string {
	if strings.EqualFold(name, "Mozilla") {
		if c := compatibleToken(s); c != "" {
			return c
		}
	}
	return name
}

// agentToken returns the product token of userAgent as Group reads it, as
// Google's library does: userAgent is a product token, or starts with a
// "token/version" product ("Foo Bar" holds none, and follows "*").
func agentToken(userAgent string) string {
	s := userAgent
	if n := len(s); n == 0 || !isTokenChar(s[0]) || s[n-1] <= ' ' || s[n-1] >= 0x80 {
		s = strings.TrimSpace(s) // else there is no space to trim at either end
	}
	tok := leadingToken(s)
	if len(tok) == len(s) {
		return tok
	}
	if tok == "" || s[len(tok)] != '/' {
		return ""
	}
	return crawlerOf(tok, s)
}

// productNameLen returns the length of the token (RFC 9110 §5.6.2) that
// starts s: the name of its first product.
func productNameLen(s string) int {
	i := 0
	for i < len(s) && (isTokenChar(s[i]) || '0' <= s[i] && s[i] <= '9' || strings.IndexByte("!#$%&'*+.^`|~", s[i]) >= 0) {
		i++
	}
	return i
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
