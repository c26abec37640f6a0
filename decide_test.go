package robotsguard_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

// TestCollyDefaultUserAgent: colly's default User-Agent names colly (RFC
// 9110: products separated by whitespace), so a site's colly group
// applies, not "*".
func TestCollyDefaultUserAgent(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "colly - https://github.com/gocolly/colly" })
	s := h.origin("User-agent: colly\nDisallow: /b\n\nUser-agent: *\nDisallow: /a\n")
	if d := h.refused(s.URL+"/b", robotsguard.ReasonRule); d.Agent != "colly" || d.Decision.GroupAgent != "colly" {
		t.Errorf("refused for agent %q by group %q, want colly's", d.Agent, d.Decision.GroupAgent)
	}
	h.allowed(s.URL + "/a")
}

// TestRefuseAboveMaxDelay: a Crawl-delay or Request-rate above MaxDelay is
// capped by default; with RefuseAboveMaxDelay the origin is refused, with
// a reason of its own.
func TestRefuseAboveMaxDelay(t *testing.T) {
	for _, tc := range []struct {
		robots string
		want   time.Duration
	}{
		{"User-agent: *\nCrawl-delay: 3600\n", time.Hour},
		{"User-agent: *\nRequest-rate: 1/2h\n", 2 * time.Hour},
	} {
		h := newHarness(t, func(tr *robotsguard.Transport) { tr.RefuseAboveMaxDelay = true })
		s := h.origin(tc.robots)
		d := h.refused(s.URL+"/page", robotsguard.ReasonDelay)
		if d.Delay != tc.want {
			t.Errorf("%q: Delay %v, want %v", tc.robots, d.Delay, tc.want)
		}
		if want := fmt.Sprintf("asks for %v between requests, more than MaxDelay allows", tc.want); !strings.Contains(d.Error(), want) {
			t.Errorf("message %q, want it to say %q", d.Error(), want)
		}
	}
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.RefuseAboveMaxDelay = true })
	s := h.origin("User-agent: *\nCrawl-delay: 20\n")
	h.allowed(s.URL + "/page") // within the default MaxDelay of 30 s
}

// TestQueryMatchedAndNotReordered: the query is part of the match, and the
// request goes out with its query exactly as given.
func TestQueryMatchedAndNotReordered(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /search?q=\nDisallow: /*&sort=\nDisallow: /*b=2&a=1\n")
	h.refused(s.URL+"/search?q=robots", robotsguard.ReasonRule)
	h.refused(s.URL+"/list?page=2&sort=asc", robotsguard.ReasonRule)
	h.refused(s.URL+"/x?b=2&a=1", robotsguard.ReasonRule)
	h.allowed(s.URL + "/search?lang=en&q=robots")
	h.allowed(s.URL + "/x?a=1&b=2")
	h.allowed(s.URL + "/x?z=%2F&y=1")
	want := []string{"/robots.txt", "/search?lang=en&q=robots", "/x?a=1&b=2", "/x?z=%2F&y=1"}
	if got := seen(s); !slices.Equal(got, want) {
		t.Errorf("origin saw %q, want %q", got, want)
	}
}

// TestAgentFromRequestHeader: without UserAgent, each request's
// User-Agent header selects the group, and is sent for the robots.txt.
func TestAgentFromRequestHeader(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "" })
	s := h.origin(rules)
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/secret", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; TestBot/2.0)")
	_, err := h.client.Do(req)
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.Agent != "TestBot" {
		t.Fatalf("TestBot on /secret: %v", err)
	}
	if ua := lastRobots(t, s).Header.Get("User-Agent"); ua != "Mozilla/5.0 (compatible; TestBot/2.0)" {
		t.Errorf("robots.txt fetched with User-Agent %q", ua)
	}
	req.Header.Set("User-Agent", "OtherBot/1.0")
	if resp, err := h.client.Do(req); err != nil {
		t.Errorf("OtherBot on /secret: %v", err)
	} else {
		resp.Body.Close()
	}
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want once for each agent", n)
	}
}

// TestAgentsGetTheirOwnFile: without UserAgent, a site that answers each
// agent with its own robots.txt is obeyed for each: the file fetched for
// one agent does not decide for another.
func TestAgentsGetTheirOwnFile(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "" })
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("User-Agent"), "colly") {
			io.WriteString(w, "User-agent: *\nDisallow: /b\n")
			return
		}
		io.WriteString(w, "User-agent: *\nDisallow: /a\n")
	}))
	get := func(ua, path string) error {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("User-Agent", ua)
		resp, err := h.client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for range 2 { // the second time from the cache
		if err := get("OtherBot/1.0", "/b"); err != nil {
			t.Errorf("OtherBot on /b: %v, want allowed by its file", err)
		}
		if err := get("colly - https://github.com/gocolly/colly", "/b"); !errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("colly on /b: %v, want refused by its file", err)
		}
		if err := get("colly/2.1", "/a"); err != nil {
			t.Errorf("colly/2.1 on /a: %v, want allowed by colly's file", err)
		}
	}
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want once for each agent", n)
	}
}

// TestAgentWithoutUserAgentHeader: without UserAgent, a request that
// carries no User-Agent is decided for the one net/http sends for it.
func TestAgentWithoutUserAgentHeader(t *testing.T) {
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.UserAgent = "" })
	s := h.origin("User-agent: Go-http-client\nDisallow: /go\n\nUser-agent: *\nDisallow: /other\n")
	if d := h.refused(s.URL+"/go", robotsguard.ReasonRule); d.Agent != "Go-http-client" {
		t.Errorf("refused for %q, want Go-http-client", d.Agent)
	}
	h.allowed(s.URL + "/other")
	if ua := lastRobots(t, s).Header.Get("User-Agent"); ua != "Go-http-client/1.1" {
		t.Errorf("robots.txt fetched as %q", ua)
	}
}

// TestRefusalRedactsPassword: a refusal's URL, and so its message, never
// holds the password of the request's URL.
func TestRefusalRedactsPassword(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /\n")
	u := strings.Replace(s.URL, "http://", "http://user:hunter2@", 1) + "/x"
	_, err := h.get(u)
	if !errors.Is(err, robotsguard.ErrDisallowed) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("refusal %v leaks the password or is not a refusal", err)
	}
}
