package robotsguard_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

func TestOriginKey(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://example.com/a", "http://example.com"},
		{"http://Example.COM:80/a", "http://example.com"},
		{"https://example.com:443/", "https://example.com"},
		{"https://example.com:80/", "https://example.com:80"},
		{"http://example.com:8181/", "http://example.com:8181"},
		{"http://example.com:08181/", "http://example.com:8181"},
		{"HTTP://example.com/", "http://example.com"},
		{"http://www.müller.eu/", "http://www.xn--mller-kva.eu"},
		{"http://www.MÜLLER.eu:80/", "http://www.xn--mller-kva.eu"},
		{"http://212.96.82.21/robots.txt", "http://212.96.82.21"},
		{"http://[2001:DB8::1]:8080/", "http://[2001:db8::1]:8080"},
		{"http://[2001:db8::1]:80/", "http://[2001:db8::1]"},
	}
	for _, tc := range tests {
		if got, err := robotsguard.OriginOf(tc.url); err != nil || got != tc.want {
			t.Errorf("origin of %s = %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
}

func TestUnderscoreHost(t *testing.T) {
	if got, err := robotsguard.OriginOf("http://My_Host.Example.com/"); err != nil || got != "http://my_host.example.com" {
		t.Errorf("origin %q, %v", got, err)
	}
}

// TestHostSpellings: spellings of one host are one origin: one fetch, one
// cache entry, one pacer. IPv6 addresses take their RFC 5952 form, and
// trailing dots are dropped (example.com. is the fully qualified spelling
// of example.com); the file is fetched from the canonical spelling.
func TestHostSpellings(t *testing.T) {
	for _, tc := range []struct {
		spellings []string
		origin    string
	}{
		{[]string{"http://[::1]:8080/a", "http://[0:0:0:0:0:0:0:1]:8080/b", "http://[0000::0001]:8080/c"}, "http://[::1]:8080"},
		{[]string{"http://[2001:DB8::1]/a", "http://[2001:db8:0:0:0:0:0:1]:80/b"}, "http://[2001:db8::1]"},
		{[]string{"http://[::ffff:192.0.2.1]/a", "http://[::FFFF:c000:0201]/b"}, "http://[::ffff:192.0.2.1]"},
		{[]string{"http://example.com/a", "http://example.com./b", "http://EXAMPLE.com.:80/c"}, "http://example.com"},
		{[]string{"https://bücher.example./a", "https://xn--bcher-kva.example/b"}, "https://xn--bcher-kva.example"},
	} {
		var mu sync.Mutex
		var fetched []string
		h := newHarness(t, func(tr *robotsguard.Transport) {
			tr.Delay = time.Second
			tr.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if req.URL.Path == "/robots.txt" {
					mu.Lock()
					fetched = append(fetched, req.URL.String())
					mu.Unlock()
				}
				return staticRoundTripper{"User-agent: *\nDisallow: /private\n"}.RoundTrip(req)
			})
		})
		for _, s := range tc.spellings {
			o, err := robotsguard.OriginOf(s)
			if err != nil || o != tc.origin {
				t.Errorf("OriginOf(%q) = %q, %v; want %q", s, o, err, tc.origin)
			}
			h.allowed(s)
			h.refused(strings.Replace(s, "/"+s[strings.LastIndexByte(s, '/')+1:], "/private", 1), robotsguard.ReasonRule)
		}
		if len(fetched) != 1 || fetched[0] != tc.origin+"/robots.txt" {
			t.Errorf("%q: robots.txt fetched as %q, want once from %s/robots.txt", tc.spellings, fetched, tc.origin)
		}
		if n := robotsguard.Pacers(h.tr); n != 1 {
			t.Errorf("%q: %d pacers, want one", tc.spellings, n)
		}
	}
	for _, bad := range []string{"http://[::1%25]/", "http://[1::2::3]/"} {
		if o, err := robotsguard.OriginOf(bad); err == nil {
			t.Errorf("OriginOf(%q) = %q, want an error", bad, o)
		}
	}
}

// TestHostHeaderSpellings: a Host header names the origin; one that could
// not be a URL's host (spaces, a bad port, a broken IPv6 literal) makes
// the request unsupported rather than fetching a robots.txt from an URL
// that does not parse.
func TestHostHeaderSpellings(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = staticRoundTripper{"User-agent: *\nDisallow: /private\n"} })
	for _, host := range []string{" ", "a b", "0:A", ":]", "[::1", "example.com:80x"} {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/page", nil)
		req.Host = host
		if err := h.tr.Check(req); !errorsIsUnsupported(err) {
			t.Errorf("Host %q: Check = %v, want ErrUnsupportedURL", host, err)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/private", nil)
	req.Host = "Example.COM."
	if err := h.tr.Check(req); err == nil {
		t.Error("Host Example.COM.: /private allowed")
	}
}

func errorsIsUnsupported(err error) bool {
	return err != nil && strings.Contains(err.Error(), robotsguard.ErrUnsupportedURL.Error())
}

// TestHostHeaderOrigin: a request that dials one address with another Host
// is checked against the robots.txt of that Host, fetched from the same
// address with the same Host header.
func TestHostHeaderOrigin(t *testing.T) {
	h := newHarness(t)
	s := h.origin("")
	var mu sync.Mutex
	var hosts []string // the Host of each robots.txt request
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		if r.Host == "victim.example" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		io.WriteString(w, "User-agent: *\nAllow: /\n")
	}))
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/private", nil)
	req.Host = "victim.example"
	_, err := h.client.Do(req)
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.RobotsURL != "http://victim.example/robots.txt" {
		t.Fatalf("err %v, want a refusal by victim.example's robots.txt", err)
	}
	mu.Lock()
	if host := hosts[len(hosts)-1]; host != "victim.example" {
		t.Errorf("robots.txt fetched with Host %q", host)
	}
	mu.Unlock()
	h.allowed(s.URL + "/private") // the address's own origin allows it
}
