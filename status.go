package robotsguard

import (
	"fmt"
	"net/http"
	"strconv"
)

// What a robots.txt response's status means: the rules, no restrictions,
// no access, or a failure that a cached copy stands in for (RFC 9309
// §2.3.1), and the answers that cannot be the file whatever the status.

// Access is what a robots.txt response allows.
type Access uint8

const (
	// AccessRules: the rules of the file decide (a 2xx response).
	AccessRules Access = iota
	// AccessAllowAll: the file is unavailable, so there are no restrictions
	// (RFC 9309 §2.3.1.3). Cached like any response.
	AccessAllowAll
	// AccessDisallowAll: nothing may be fetched. Cached like any response.
	AccessDisallowAll
	// AccessUnreachable: a server error; nothing may be fetched for now, but a
	// cached copy of the file stands in for it, and the fetch is tried
	// again later (RFC 9309 §2.3.1.4).
	AccessUnreachable
)

var accessNames = [...]string{
	AccessRules:       "use rules",
	AccessAllowAll:    "allow all",
	AccessDisallowAll: "disallow all",
	AccessUnreachable: "unreachable",
}

// String returns the access's name: "use rules", "allow all", …
func (a Access) String() string {
	if int(a) < len(accessNames) {
		return accessNames[a]
	}
	return "Access(" + strconv.Itoa(int(a)) + ")"
}

// A StatusPolicy tells what the status code of a robots.txt response means,
// after redirects. Transport.StatusPolicy plugs one in.
type StatusPolicy func(status int) Access

// DefaultStatusPolicy reads statuses as RFC 9309 §2.3.1 and Google do: 2xx
// is AccessRules; 3xx (the end of a redirect chain that is too long or
// leaves HTTP) and 4xx are AccessAllowAll, except 429 Too Many Requests,
// which like 5xx and anything else is AccessUnreachable.
//
// Some answers cannot be the file whatever a StatusPolicy says, and the
// fetch fails (AccessUnreachable, retried later, a cached copy standing in) before
// the policy is asked: an answer that cannot be the file is not the file
// (RFC 9110), and read as one it would allow everything. They are a 206
// Partial Content (a robots.txt request has no Range, so a part of the file
// is no file, RFC 9110 §15.3.7), a 304 Not Modified to a request that was
// not conditional (§15.4.5), and a 3xx that ends the chain although no
// redirect limit or scheme stopped it: a redirect without a Location, or
// one that cannot be followed (§15.4), says nothing about the file.
func DefaultStatusPolicy(status int) Access {
	switch {
	case status >= 200 && status < 300:
		return AccessRules
	case status == http.StatusTooManyRequests:
		return AccessUnreachable
	case status >= 300 && status < 500:
		return AccessAllowAll
	}
	return AccessUnreachable
}

// Koster1996StatusPolicy is DefaultStatusPolicy, except that 401
// Unauthorized and 403 Forbidden disallow everything, as the 1996 draft of
// the protocol says (section 3.1).
func Koster1996StatusPolicy(status int) Access {
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return AccessDisallowAll
	}
	return DefaultStatusPolicy(status)
}

// notTheFile says why resp, the final answer to a robots.txt request
// whose redirects checkRedirect stopped or not, and which is not a 304
// revalidating the response held, cannot be the file (see
// DefaultStatusPolicy), or "" when it can. The FetchError it goes in
// says the status first.
func notTheFile(resp *http.Response, stopped bool) string {
	switch s := resp.StatusCode; {
	case s == http.StatusPartialContent:
		return "Partial Content to a request without Range: a part of a file is not the file"
	case s == http.StatusNotModified:
		return "Not Modified to a request that was not conditional"
	case s >= 300 && s < 400 && s != http.StatusNotModified && !stopped:
		if field(resp.Header, "Location") == "" {
			return "a redirect without a Location"
		}
		return fmt.Sprintf("a redirect that cannot be followed (Location %q)", resp.Header.Get("Location"))
	}
	return ""
}
