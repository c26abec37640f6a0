package policy

import (
	"net/url"
	"testing"
)

// escapedPath is URL.EscapedPath: for every byte, alone and among others,
// with and without a RawPath.
func TestEscapedPath(t *testing.T) {
	var paths []string
	for c := 0; c < 256; c++ {
		b := string([]byte{byte(c)})
		paths = append(paths, "/"+b, "/abcdefgh/"+b, "/abcdefg"+b+"/x", "/abcdefghijklmnop"+b, b)
	}
	paths = append(paths, "", "*", "/", "/a b", "/caf\u00e9", "/%41", "/a?b", "/a#b")
	for _, p := range paths {
		for _, u := range []*url.URL{{Path: p}, {Path: p, RawPath: "/x%2Fy"}} {
			if got, want := escapedPath(u), u.EscapedPath(); got != want {
				t.Errorf("escapedPath(%+v) = %q, want %q", u, got, want)
			}
		}
		if u, err := url.Parse("http://example.com" + p); err == nil {
			if got, want := escapedPath(u), u.EscapedPath(); got != want {
				t.Errorf("escapedPath(%q) = %q, want %q", u, got, want)
			}
		}
	}
}
