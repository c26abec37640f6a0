package robotsguard

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// An origin is what a robots.txt applies to: scheme, host and port (RFC
// 9309 §2.3; Google's spec, "File location and range of validity"). Hosts
// are lower-case, internationalised names are in punycode, IPv6 addresses
// are in their RFC 5952 form ([0:0:0:0:0:0:0:1] is [::1]), trailing dots
// are dropped (example.com. is example.com, the same name in DNS), and the
// default port of the scheme is left out, so that http://Example.COM.:80/
// and http://example.com/ are one origin, with one fetch, one cache entry
// and one pacer; http and https are two. The robots.txt of an origin is
// fetched from its canonical spelling (http://example.com/robots.txt for
// both names above).
type origin struct {
	https bool
	host  string // lower-case "host" or "host:port"; IPv6 hosts in brackets
}

func (o origin) String() string {
	host := o.host
	if strings.IndexByte(host, '%') >= 0 { // an IPv6 zone, escaped in a URL
		host = strings.ReplaceAll(host, "%", "%25")
	}
	if o.https {
		return "https://" + host
	}
	return "http://" + host
}

// robotsURL returns the URL of the origin's robots.txt.
func (o origin) robotsURL() string { return o.String() + "/robots.txt" }

var (
	errNoHost   = unsupportedURL("it has no host")
	errRelative = unsupportedURL("it is relative (no scheme, no host): only absolute http and https URLs have a robots.txt")
	errOpaque   = unsupportedURL("its Opaque names a host (an absolute-form request target)")
)

// originOf returns the origin of u. It allocates only when the host is not
// already in canonical form.
func originOf(u *url.URL) (origin, error) {
	return originAt(u.Scheme, u.Host)
}

// requestOrigin returns the origin a request is for, and the host to
// connect to for its robots.txt. The origin is that of the Host header
// when the request sets one (req.Host) that differs from the URL's host:
// the server answers as that host, whichever address is dialled.
func requestOrigin(req *http.Request) (o origin, dial string, err error) {
	u := req.URL
	if strings.HasPrefix(u.Opaque, "//") {
		return o, "", errOpaque
	}
	if req.Host == "" || req.Host == u.Host {
		o, err = originAt(u.Scheme, u.Host)
		return o, "", err
	}
	if _, err := originAt(u.Scheme, u.Host); err != nil {
		return o, "", err
	}
	o, err = originAt(u.Scheme, req.Host)
	return o, u.Host, err
}

// originAt returns the origin of a URL with the given scheme and host
// ("host" or "host:port").
func originAt(scheme, hostport string) (origin, error) {
	var o origin
	switch {
	case scheme == "https":
		o.https = true
	case scheme == "http":
	case strings.EqualFold(scheme, "https"):
		o.https = true
	case strings.EqualFold(scheme, "http"):
	case scheme == "" && hostport == "":
		return o, errRelative
	default:
		return o, unsupportedURL(fmt.Sprintf("its scheme is %q: only http and https URLs have a robots.txt", scheme))
	}
	if hostport == "" {
		return o, errNoHost
	}
	if canonicalHost(hostport, o.https) {
		o.host = hostport
		return o, nil
	}
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if !strings.Contains(host, ":") {
		host = strings.TrimRight(host, ".") // the FQDN spelling of the name
	}
	if host == "" {
		return o, errNoHost
	}
	switch {
	case strings.Contains(host, ":"): // IPv6 literal
		h, ok := canonicalIPv6(host)
		if !ok {
			return o, fmt.Errorf("%w: host %q is not an IPv6 address", ErrUnsupportedURL, hostport)
		}
		host = "[" + h + "]"
	case isASCII(host):
		// ASCII names are only lower-cased: IDNA's rules (STD3) would
		// refuse names that HTTP clients accept, such as "my_host".
		if !isRegName(host) {
			return o, fmt.Errorf("%w: host %q is not a host name", ErrUnsupportedURL, hostport)
		}
		host = strings.ToLower(host)
	default:
		h, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return o, fmt.Errorf("%w: host %q: %v", ErrUnsupportedURL, hostport, err)
		}
		// IDNA maps some characters to nothing (U+034F) and others to
		// dots (U+3002): what is left may be no name, or end in a dot.
		host = strings.TrimRight(h, ".")
		if host == "" {
			return o, errNoHost
		}
		if !isRegName(host) {
			return o, fmt.Errorf("%w: host %q is not a host name", ErrUnsupportedURL, hostport)
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return o, fmt.Errorf("%w: port of %q is not a number", ErrUnsupportedURL, hostport)
		}
	}
	port = strings.TrimLeft(port, "0")
	if port != "" && !(o.https && port == "443") && !(!o.https && port == "80") {
		host += ":" + port
	}
	o.host = host
	return o, nil
}

// canonicalIPv6 returns the RFC 5952 form of the IPv6 literal h (without
// brackets; a zone, if any, after a '%' as in url.URL.Host), and whether h
// is one.
func canonicalIPv6(h string) (string, bool) {
	addr, zone, hasZone := strings.Cut(h, "%")
	a, err := netip.ParseAddr(addr)
	if err != nil || !a.Is6() || hasZone && (zone == "" || !isRegName(zone)) {
		return "", false
	}
	if hasZone {
		return a.String() + "%" + zone, true // zones are interface names: as written
	}
	return a.String(), true
}

// isRegName reports whether s holds only the characters of a reg-name
// (RFC 3986 §3.2.2), which url.Parse accepts in a host; a Host header may
// hold anything.
func isRegName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=%", c) >= 0) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// canonicalHost reports whether h ("host" or "host:port") is already an
// origin's host: lower-case ASCII letters, digits, '-' and '.', and a port
// that is not the scheme's default.
func canonicalHost(h string, https bool) bool {
	colon := -1
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '.':
		case c == ':' && colon < 0:
			colon = i
		default:
			return false
		}
	}
	switch {
	case colon < 0:
		return h != "" && h[len(h)-1] != '.'
	case colon == 0, colon == len(h)-1, h[colon-1] == '.':
		return false
	}
	port := h[colon+1:]
	if port[0] == '0' {
		return false
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return !(https && port == "443") && !(!https && port == "80")
}
