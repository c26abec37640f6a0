package robotsguard_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// A bot challenge served for robots.txt is no file, whatever its status:
// the origin is unreachable (RFC 9309 §2.3.1.4) rather than open to a crawl
// of every path, and the Observer is told why. An HTML page that is no
// challenge is read as RFC 9309 and Google read it (no rules), with a
// warning.
func TestBotChallengeRobotsTxt(t *testing.T) {
	anubis := `<!doctype html><html><head><title>Making sure you're not a bot!</title>
<script async type="module" src="/.within.website/x/cmd/anubis/static/js/main.mjs"></script></head><body></body></html>`
	html := func(status int, body string, fields ...string) robotstest.Fault {
		return robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			for i := 0; i+1 < len(fields); i += 2 {
				w.Header().Set(fields[i], fields[i+1])
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		})
	}
	for _, tc := range []struct {
		name      string
		robots    robotstest.Fault
		challenge string // "" when the page is no challenge
		allowed   bool
	}{
		{"Anubis, 200", html(200, anubis), "Anubis (/.within.website/)", false},
		{"Cloudflare, 403", html(403, "<title>Just a moment...</title>", "Cf-Mitigated", "challenge"), "Cloudflare (cf-mitigated: challenge)", false},
		{"Cloudflare, 200", html(200, `<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script>`), "Cloudflare (/cdn-cgi/challenge-platform/)", false},
		{"Anubis, 403", html(403, anubis), "Anubis (/.within.website/)", false},
		{"AWS WAF, 202", html(202, "", "X-Amzn-Waf-Action", "challenge"), "AWS WAF (x-amzn-waf-action: challenge)", false},
		// No challenge: a site's page, and its 403 page.
		{"a page, 200", html(200, "<html><body>Welcome</body></html>"), "", true},
		{"a page, 403", html(403, "<html><body>Forbidden</body></html>"), "", true},
		// A robots.txt served as text/html is a robots.txt.
		{"rules as text/html", html(200, "User-agent: *\nDisallow: /page\n<!-- /.within.website/ -->"), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec recorder
			h := hostileHarness(t, readTimeout, func(tr *robotsguard.Transport) { tr.Observer = rec.observer() })
			s := h.origin("")
			s.Fault("/robots.txt", tc.robots)
			var err error
			if tc.allowed {
				h.allowed(s.URL + "/page")
			} else {
				_, err = h.get(s.URL + "/page")
				if !errors.Is(err, robotsguard.ErrDisallowed) {
					t.Fatalf("GET /page: %v, want it refused", err)
				}
			}
			if len(rec.fetches) != 1 {
				t.Fatalf("%d fetches observed", len(rec.fetches))
			}
			ev := rec.fetches[0]
			var nr *robotsguard.NotRobotsTxtError
			switch {
			case tc.challenge != "":
				if ev.Outcome != robotsguard.OutcomeFailed || !errors.As(ev.Err, &nr) || nr.Challenge != tc.challenge ||
					!errors.Is(ev.Err, robotsguard.ErrNotRobotsTxt) || !strings.Contains(err.Error(), "bot challenge, "+tc.challenge) {
					t.Errorf("event %+v, refusal %v: want a failure naming %s", ev, err, tc.challenge)
				}
				if n := count(s, "/page"); n != 0 {
					t.Errorf("the origin got /page %d times", n)
				}
			case tc.name == "a page, 200":
				if ev.Err != nil || !errors.As(ev.Warning, &nr) || nr.Challenge != "" || nr.Status != 200 {
					t.Errorf("event %+v: want a warning that the answer was not a robots.txt", ev)
				}
			default:
				if ev.Err != nil || ev.Warning != nil {
					t.Errorf("event %+v: want neither error nor warning", ev)
				}
			}
		})
	}
}
