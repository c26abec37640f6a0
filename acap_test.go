package robotsguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

func acapOn(t *robotsguard.Transport) { t.ACAP = &robotsguard.ACAPOptions{} }

// serve makes s answer each path of files with its body, and 404 for
// others than /robots.txt.
func serve(s *site, files map[string]http.HandlerFunc) {
	s.pages = func(w http.ResponseWriter, r *http.Request) {
		if h, ok := files[r.URL.Path]; ok {
			h(w, r)
			return
		}
		io.WriteString(w, "ok")
	}
}

const acapRules = `User-agent: *
Disallow: /private/

ACAP-crawler: *
ACAP-disallow-crawl: /drafts/
ACAP-allow-crawl: /private/press/
ACAP-crawler: testbot
ACAP-disallow-crawl: /testbot-only/
ACAP-disallow-crawl: //secret
ACAP-crawler: otherbot
ACAP-disallow-crawl: /
`

func TestACAPEnforced(t *testing.T) {
	s := newSite(t, robotsTxt(acapRules))
	h := newHarness(t, acapOn)
	h.allowed(s.URL + "/")
	d := h.refused(s.URL+"/DRAFTS/1", robotsguard.ReasonACAP) // ACAP patterns ignore case
	var refusal *acap.Refusal
	if !errors.As(d, &refusal) || refusal.Decision.Field.Line != 5 || refusal.Decision.Permitted {
		t.Errorf("ACAP refusal %v", refusal)
	}
	want := fmt.Sprintf(`robotsguard: disallowed for "TestBot" by the ACAP records of %s/robots.txt: prohibited by "ACAP-disallow-crawl: /drafts/" (line 5)`, s.URL)
	if d.Error() != want {
		t.Errorf("message %q\n\twant %q", d.Error(), want)
	}
	// The conventional Disallow is pooled with the ACAP fields: the
	// narrower ACAP permission wins inside it.
	h.refused(s.URL+"/private/x", robotsguard.ReasonACAP)
	h.allowed(s.URL + "/private/press/release")
	// A record names the crawler when its name is in the User-Agent.
	h.refused(s.URL+"/testbot-only/a", robotsguard.ReasonACAP)
	// A path that starts with "//" is a path, not a host.
	h.refused(s.URL+"//secret/x", robotsguard.ReasonACAP)
	if got := s.seen(); !slices.Equal(got, []string{"/robots.txt", "/", "/private/press/release"}) {
		t.Errorf("origin saw %v", got)
	}

	// Off, the ACAP records are not read.
	h = newHarness(t)
	h.allowed(s.URL + "/drafts/1")
	h.refused(s.URL+"/private/press/release", robotsguard.ReasonRule)
}

func TestACAPWithoutRecordsKeepsDialect(t *testing.T) {
	// The 1996 draft's first match, with ACAP on: a file without ACAP
	// records is read as without ACAP.
	s := newSite(t, robotsTxt("User-agent: *\nAllow: /a\nDisallow: /a/b\n"))
	h := newHarness(t, acapOn, func(t *robotsguard.Transport) { t.Parser.Dialect = policy.Koster1996 })
	h.allowed(s.URL + "/a/b")
}

func TestACAPPurpose(t *testing.T) {
	s := newSite(t, robotsTxt("ACAP-crawler: *\nACAP-disallow-crawl: /news/\nACAP-usage-purpose: archive\nACAP-allow-crawl: /news/\n"))
	h := newHarness(t, acapOn)
	h.refused(s.URL+"/news/1", robotsguard.ReasonACAP)
	h = newHarness(t, acapOn, func(t *robotsguard.Transport) { t.ACAP = &robotsguard.ACAPOptions{Purpose: "archive"} })
	h.allowed(s.URL + "/news/1")
}

func TestACAPReference(t *testing.T) {
	other := newSite(t, nil)
	serve(other, map[string]http.HandlerFunc{
		"/shared.txt": robotsTxt("ACAP-crawler: *\nACAP-disallow-crawl: /shared/\n"),
	})
	s := newSite(t, robotsTxt(fmt.Sprintf(`ACAP-crawler: testbot
ACAP-permissions-reference: /testbot.txt
ACAP-crawler: *
ACAP-permissions-reference: %s/shared.txt
`, other.URL)))
	serve(s, map[string]http.HandlerFunc{
		"/testbot.txt": robotsTxt("ACAP-crawler: *\nACAP-disallow-crawl: /mine/\nACAP-crawler: x\nACAP-permissions-reference: /chain.txt\n", "Cache-Control: max-age=3600"),
	})
	h := newHarness(t, acapOn)
	h.allowed(s.URL + "/")
	d := h.refused(s.URL+"/mine/1", robotsguard.ReasonACAP)
	var refusal *acap.Refusal
	if !errors.As(d, &refusal) || refusal.Decision.Field.Source != "/testbot.txt" || refusal.Decision.Field.Line != 2 {
		t.Errorf("ACAP refusal %+v", refusal)
	}
	h.refused(s.URL+"/shared/1", robotsguard.ReasonACAP) // another host's resource
	// The resource's records apply only to the referring record's crawlers.
	other2 := newHarness(t, acapOn, func(t *robotsguard.Transport) { t.UserAgent = "OtherBot/1.0" })
	other2.allowed(s.URL + "/mine/1")
	// One fetch each, no chain, and the resources stay cached.
	h.allowed(s.URL + "/ok")
	for _, c := range []struct {
		s    *site
		path string
		n    int
	}{{s, "/robots.txt", 2}, {s, "/testbot.txt", 2}, {s, "/chain.txt", 0}, {other, "/shared.txt", 2}} {
		if got := c.s.count(c.path); got != c.n {
			t.Errorf("%s fetched %d times, want %d (one per Transport)", c.path, got, c.n)
		}
	}

	// ACAPPolicy gives the same records, for other usages.
	u, _ := url.Parse(s.URL + "/mine/1")
	p, err := h.tr.ACAPPolicy(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if p.Permitted("TestBot/1.0", "/mine/1", acap.Crawl) || !p.Permitted("TestBot/1.0", "/mine/1", acap.Index) {
		t.Error("ACAPPolicy does not hold the reference's records")
	}
}

func TestACAPReferenceUnreadable(t *testing.T) {
	s := newSite(t, robotsTxt("ACAP-crawler: testbot\nACAP-permissions-reference: /testbot.txt\nACAP-crawler: *\nACAP-permissions-reference: /gone.txt\n"))
	var failing atomic.Bool
	failing.Store(true)
	serve(s, map[string]http.HandlerFunc{
		"/testbot.txt": func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "ACAP-crawler: *\nACAP-disallow-crawl: /mine/\n")
		},
		"/gone.txt": status(http.StatusNotFound),
	})
	h := newHarness(t, acapOn)
	d := h.refused(s.URL+"/a", robotsguard.ReasonACAPReference)
	var re *acap.ReferenceError
	var fe *robotsguard.FetchError
	if !errors.As(d, &re) || re.Reference.Locator != "/testbot.txt" || re.Reference.Line != 2 || re.RobotsURL != s.URL+"/robots.txt" {
		t.Errorf("reference %+v", re)
	}
	if !errors.As(d, &fe) || fe.Status != http.StatusServiceUnavailable {
		t.Errorf("fetch error %+v", fe)
	}
	wantMsg := fmt.Sprintf(`robotsguard: disallowed for "TestBot": the ACAP-permissions-reference /testbot.txt (line 2 of %s/robots.txt) cannot be read: fetching %s/testbot.txt: status 503`, s.URL, s.URL)
	if d.Error() != wantMsg {
		t.Errorf("message %q\n\twant %q", d.Error(), wantMsg)
	}
	// Other crawlers are not concerned, and a 404 adds nothing.
	h2 := newHarness(t, acapOn, func(t *robotsguard.Transport) { t.UserAgent = "OtherBot" })
	h2.allowed(s.URL + "/a")

	// After the back-off, the resource is read again.
	failing.Store(false)
	h.clock.Advance(2 * time.Minute)
	h.allowed(s.URL + "/a")
	h.refused(s.URL+"/mine/1", robotsguard.ReasonACAP)
	if _, err := h.tr.ACAPPolicy(context.Background(), &url.URL{Scheme: "http", Host: strings.TrimPrefix(s.URL, "http://"), Path: "/"}); err != nil {
		t.Errorf("ACAPPolicy: %v", err)
	}
}

func TestACAPTooManyReferences(t *testing.T) {
	var b strings.Builder
	for i := range robotsguard.DefaultMaxACAPReferences + 1 {
		fmt.Fprintf(&b, "ACAP-crawler: bot%d\nACAP-permissions-reference: /r%d.txt\n", i, i)
	}
	s := newSite(t, robotsTxt(b.String()))
	serve(s, map[string]http.HandlerFunc{})
	last := fmt.Sprintf("Bot%d/1.0", robotsguard.DefaultMaxACAPReferences)
	h := newHarness(t, acapOn, func(t *robotsguard.Transport) { t.UserAgent = last })
	d := h.refused(s.URL+"/a", robotsguard.ReasonACAPReference)
	if !strings.Contains(d.Error(), "more than 8 permissions references") {
		t.Errorf("message %q", d.Error())
	}
	if n := len(s.seen()); n != 1+robotsguard.DefaultMaxACAPReferences {
		t.Errorf("origin saw %d requests: %v", n, s.seen())
	}
}
