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
	"github.com/robotsguard/robotsguard/robotstest"
)

func acapOn(t *robotsguard.Transport) { t.ACAP = &robotsguard.ACAPOptions{} }

// files answers each path of m with its handler, and any other with "ok".
func files(m map[string]http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h, ok := m[r.URL.Path]; ok {
			h(w, r)
			return
		}
		io.WriteString(w, "ok")
	}
}

// file serves body with the given header fields ("Key: value").
func file(body string, fields ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, f := range fields {
			k, v, _ := strings.Cut(f, ": ")
			w.Header().Add(k, v)
		}
		io.WriteString(w, body)
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
	h := newHarness(t, acapOn)
	s := newOrigin(overruled{t}, h.clock, acapRules, nil) // it judges by the conventional rules alone
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
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/", "/private/press/release"}) {
		t.Errorf("origin saw %v", got)
	}
	if got := uris(s.Disallowed()); !slices.Equal(got, []string{"/private/press/release"}) {
		t.Errorf("the Origin's conventional rules disallow %q of what it got, want only what the ACAP records permit inside them", got)
	}

	// Off, the ACAP records are not read.
	h = newHarness(t)
	h.allowed(s.URL + "/drafts/1")
	h.refused(s.URL+"/private/press/release", robotsguard.ReasonRule)
}

func TestACAPWithoutRecordsKeepsDialect(t *testing.T) {
	// The 1996 draft's first match, with ACAP on: a file without ACAP
	// records is read as without ACAP.
	h := newHarness(t, acapOn, func(t *robotsguard.Transport) { t.Parser.Dialect = policy.Koster1996 })
	s := robotstest.NewUnstartedOrigin(t, "User-agent: *\nAllow: /a\nDisallow: /a/b\n")
	s.Parser.Dialect = policy.Koster1996 // the Origin judges as the Transport reads
	s.Clock = h.clock
	s.Start()
	h.allowed(s.URL + "/a/b")
}

func TestACAPPurpose(t *testing.T) {
	h := newHarness(t, acapOn)
	s := h.origin("ACAP-crawler: *\nACAP-disallow-crawl: /news/\nACAP-usage-purpose: archive\nACAP-allow-crawl: /news/\n")
	h.refused(s.URL+"/news/1", robotsguard.ReasonACAP)
	h = newHarness(t, acapOn, func(t *robotsguard.Transport) { t.ACAP = &robotsguard.ACAPOptions{Purpose: "archive"} })
	h.allowed(s.URL + "/news/1")
}

func TestACAPReference(t *testing.T) {
	h := newHarness(t, acapOn)
	other := newOrigin(t, h.clock, "", files(map[string]http.HandlerFunc{
		"/shared.txt": file("ACAP-crawler: *\nACAP-disallow-crawl: /shared/\n"),
	}))
	s := newOrigin(t, h.clock, fmt.Sprintf(`ACAP-crawler: testbot
ACAP-permissions-reference: /testbot.txt
ACAP-crawler: *
ACAP-permissions-reference: %s/shared.txt
`, other.URL), files(map[string]http.HandlerFunc{
		"/testbot.txt": file("ACAP-crawler: *\nACAP-disallow-crawl: /mine/\nACAP-crawler: x\nACAP-permissions-reference: /chain.txt\n", "Cache-Control: max-age=3600"),
	}))
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
		s    *robotstest.Origin
		path string
		n    int
	}{{s, "/robots.txt", 2}, {s, "/testbot.txt", 2}, {s, "/chain.txt", 0}, {other, "/shared.txt", 2}} {
		if got := count(c.s, c.path); got != c.n {
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
	var failing atomic.Bool
	failing.Store(true)
	h := newHarness(t, acapOn)
	s := newOrigin(t, h.clock, "ACAP-crawler: testbot\nACAP-permissions-reference: /testbot.txt\nACAP-crawler: *\nACAP-permissions-reference: /gone.txt\n", files(map[string]http.HandlerFunc{
		"/testbot.txt": func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "ACAP-crawler: *\nACAP-disallow-crawl: /mine/\n")
		},
		"/gone.txt": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) },
	}))
	d := h.refused(s.URL+"/a", robotsguard.ReasonACAPReference)
	var re *acap.ReferenceError
	var fe *robotsguard.FetchError
	if !errors.As(d, &re) || re.Reference.Locator != "/testbot.txt" || re.Reference.Line != 2 || re.RobotsURL != s.URL+"/robots.txt" {
		t.Errorf("reference %+v", re)
	}
	if !errors.As(d, &fe) || fe.Status != http.StatusServiceUnavailable {
		t.Errorf("fetch error %+v", fe)
	}
	wantMsg := fmt.Sprintf(`robotsguard: disallowed for "TestBot": the ACAP-permissions-reference /testbot.txt (line 2 of %s/robots.txt) cannot be read: fetching %s/testbot.txt: status 503; it is fetched again in 1m0s`, s.URL, s.URL)
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
	last := fmt.Sprintf("Bot%d/1.0", robotsguard.DefaultMaxACAPReferences)
	h := newHarness(t, acapOn, func(t *robotsguard.Transport) { t.UserAgent = last })
	s := newOrigin(t, h.clock, b.String(), files(map[string]http.HandlerFunc{}))
	d := h.refused(s.URL+"/a", robotsguard.ReasonACAPReference)
	if !strings.Contains(d.Error(), "more than 8 permissions references") {
		t.Errorf("message %q", d.Error())
	}
	if n := len(seen(s)); n != 1+robotsguard.DefaultMaxACAPReferences {
		t.Errorf("origin saw %d requests: %v", n, seen(s))
	}
}

// TestACAPStateCached: a file with ACAP records is read once while
// fresh, with or without permissions references.
func TestACAPStateCached(t *testing.T) {
	h := newHarness(t, acapOn)
	s := h.origin(acapRules)
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=600"))
	for i := range 5 {
		h.allowed(fmt.Sprintf("%s/p%d", s.URL, i))
	}
	if st := h.tr.Stats(); st.CacheMisses != 1 {
		t.Errorf("%d cache misses for 5 requests to a fresh origin, want 1", st.CacheMisses)
	}
}
