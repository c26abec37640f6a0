package robotsguard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// An origin is what a robots.txt applies to: scheme, host and port (RFC
// 9309 §2.3; Google's spec, "File location and range of validity"). Hosts
// are lower-case, internationalised names are in punycode, and the default
// port of the scheme is left out, so that http://Example.COM:80/ and
// http://example.com/ are one origin; http and https are two.
type origin struct {
	https bool
	host  string // lower-case "host" or "host:port"; IPv6 hosts in brackets
}

func (o origin) String() string {
	if o.https {
		return "https://" + o.host
	}
	return "http://" + o.host
}

// robotsURL returns the URL of the origin's robots.txt.
func (o origin) robotsURL() string { return o.String() + "/robots.txt" }

var (
	errNoHost = unsupportedURL("it has no host")
	errScheme = unsupportedURL("only http and https URLs have a robots.txt")
	errOpaque = unsupportedURL("its Opaque names a host (an absolute-form request target)")
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
	case scheme == "https" || strings.EqualFold(scheme, "https"):
		o.https = true
	case scheme == "http" || strings.EqualFold(scheme, "http"):
	default:
		return o, errScheme
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
	if host == "" {
		return o, errNoHost
	}
	switch {
	case strings.Contains(host, ":"): // IPv6 literal
		host = "[" + strings.ToLower(host) + "]"
	case isASCII(host):
		// ASCII names are only lower-cased: IDNA's rules (STD3) would
		// refuse names that HTTP clients accept, such as "my_host".
		host = strings.ToLower(host)
	default:
		h, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return o, fmt.Errorf("%w: host %q: %v", ErrUnsupportedURL, hostport, err)
		}
		host = h
	}
	port = strings.TrimLeft(port, "0")
	if port != "" && !(o.https && port == "443") && !(!o.https && port == "80") {
		host += ":" + port
	}
	o.host = host
	return o, nil
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
		return h != ""
	case colon == 0, colon == len(h)-1:
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
