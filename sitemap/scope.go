package sitemap

import (
	"net"
	"net/url"
	"strings"
)

// Dir returns the scope of a sitemap at u (Sitemaps 0.9, "Sitemap file
// location"): its scheme, host and port, and its directory. A sitemap at
// http://example.com/catalog/sitemap.xml may list URLs that start with
// http://example.com/catalog/.
func Dir(u *url.URL) *url.URL {
	p := u.EscapedPath()
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[:i+1]
	} else {
		p = "/"
	}
	d := &url.URL{Scheme: u.Scheme, Host: u.Host}
	if up, err := url.PathUnescape(p); err == nil {
		d.Path, d.RawPath = up, p
	} else {
		d.Path = p
	}
	return d
}

// Root returns the scope a robots.txt grants the sitemaps it lists
// (Sitemaps 0.9, "Sitemaps & Cross Submits"): every URL of its origin.
func Root(u *url.URL) *url.URL { return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"} }

// prefix is a scope, compared as URLs are: scheme and host in lower case,
// the scheme's default port dropped, the path as escaped.
type prefix struct{ scheme, host, path string }

func prefixOf(u *url.URL) prefix {
	scheme := strings.ToLower(u.Scheme)
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return prefix{scheme, canonicalHost(scheme, u.Host), p}
}

// canonicalHost lower-cases host and drops the scheme's default port.
func canonicalHost(scheme, host string) string {
	host = strings.ToLower(host)
	if h, port, err := net.SplitHostPort(host); err == nil &&
		(port == "" || scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// inScope reports whether u starts with one of the prefixes, or there
// are none.
func inScope(scope []prefix, u *url.URL) bool {
	if len(scope) == 0 {
		return true
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	scheme := strings.ToLower(u.Scheme)
	host := canonicalHost(scheme, u.Host)
	for _, s := range scope {
		if s.scheme == scheme && s.host == host && strings.HasPrefix(p, s.path) {
			return true
		}
	}
	return false
}
