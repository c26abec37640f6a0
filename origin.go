package robotsguard

import (
	"errors"
	"net"
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
	errNoHost = errors.New("robotsguard: URL has no host")
	errScheme = errors.New("robotsguard: only http and https URLs can be checked against robots.txt")
)

// originOf returns the origin of u. It allocates only when the host is not
// already in canonical form.
func originOf(u *url.URL) (origin, error) {
	var o origin
	switch {
	case u.Scheme == "https" || strings.EqualFold(u.Scheme, "https"):
		o.https = true
	case u.Scheme == "http" || strings.EqualFold(u.Scheme, "http"):
	default:
		return o, errScheme
	}
	if u.Host == "" {
		return o, errNoHost
	}
	if canonicalHost(u.Host, o.https) {
		o.host = u.Host
		return o, nil
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return o, errNoHost
	}
	if strings.Contains(host, ":") { // IPv6 literal
		host = "[" + strings.ToLower(host) + "]"
	} else {
		h, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return o, &url.Error{Op: "robotsguard: host", URL: u.Host, Err: err}
		}
		host = h
	}
	port = strings.TrimLeft(port, "0")
	if port != "" && !(o.https && port == "443") && !(!o.https && port == "80") {
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	o.host = host
	return o, nil
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
