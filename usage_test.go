package robotsguard_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
	"github.com/robotsguard/robotsguard/usage"
)

// usageOf asks h's Transport about url's use for c.
func (h *harness) usageOf(url string, c usage.Category, page *usage.Page) usage.Decision {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	d, err := h.tr.Usage(req, c, page)
	if err != nil {
		h.t.Fatalf("Usage(%s, %s): %v", url, c, err)
	}
	return d
}

func TestUsageCrawlAsTheRobotsTxtSays(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nDisallow: /private/\n")
	if d := h.usageOf(s.URL+"/private/a", usage.Crawl, nil); d.Verdict != usage.Disallowed || d.Decisive.Source.Line != 2 || !strings.Contains(d.String(), "/robots.txt line 2") {
		t.Errorf("crawl /private/a: %v", d)
	}
	if d := h.usageOf(s.URL+"/public", usage.Crawl, nil); d.Verdict != usage.Allowed {
		t.Errorf("crawl /public: %v", d)
	}
	h.allowed(s.URL + "/public")
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times for two Usage calls and a request, want 1", n)
	}
	// The other categories are not the conventional rules' to decide.
	if d := h.usageOf(s.URL+"/private/a", usage.Search, nil); d.Verdict != usage.Unknown {
		t.Errorf("search by Disallow: %v", d)
	}
}

func TestUsageCrawlWhenRobotsTxtUnread(t *testing.T) {
	h := newHarness(t)
	gone := h.origin("")
	gone.Fault("/robots.txt", robotstest.Status(http.StatusNotFound))
	down := h.origin("")
	down.Fault("/robots.txt", robotstest.Status(http.StatusServiceUnavailable))
	if d := h.usageOf(gone.URL+"/a", usage.Crawl, nil); d.Verdict != usage.Allowed {
		t.Errorf("404 robots.txt: %v", d)
	}
	if d := h.usageOf(down.URL+"/a", usage.Crawl, nil); d.Verdict != usage.Disallowed {
		t.Errorf("503 robots.txt: %v", d)
	}
}

func TestUsageRejectsUnknownCategory(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequest(http.MethodGet, "https://example.com/", nil)
	if _, err := h.tr.Usage(req, "index", nil); err == nil || !strings.HasPrefix(err.Error(), "robotsguard: ") {
		t.Errorf("Usage with category index: %v", err)
	}
}

func TestUsageFromRobotsTxtLinesWithoutAnotherFetch(t *testing.T) {
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nContent-Usage: train-ai=n, search=y\nContent-Usage: /open/ train-ai=y\nContent-Signal: ai-input=no\n", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == usage.TDMRepPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Robots-Tag", "noindex")
		w.Write([]byte("ok"))
	})
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=60"))
	resp, err := h.client.Get(s.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	page, err := usage.ReadResponse(resp, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		c    usage.Category
		page *usage.Page
		want usage.Verdict
		line int
	}{
		{"/a", usage.TrainAI, nil, usage.Disallowed, 2},
		{"/open/a", usage.TrainAI, nil, usage.Allowed, 3},
		{"/a", usage.Search, nil, usage.Allowed, 2},
		{"/a", usage.Search, page, usage.Disallowed, 0}, // X-Robots-Tag: noindex
		{"/a", usage.AIInput, nil, usage.Disallowed, 4},
		{"/a", usage.Snippet, nil, usage.Unknown, 0},
	} {
		d := h.usageOf(s.URL+tc.path, tc.c, tc.page)
		if d.Verdict != tc.want || d.Decisive.Source.Line != tc.line {
			t.Errorf("%s %s: %v, want %v at line %d", tc.path, tc.c, d, tc.want, tc.line)
		}
	}
	// Revalidated, the file's lines are still read.
	h.clock.Advance(2 * time.Minute)
	if d := h.usageOf(s.URL+"/a", usage.TrainAI, nil); d.Verdict != usage.Disallowed {
		t.Errorf("after revalidation: %v", d)
	}
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2 (once, then once revalidated)", n)
	}
	snap, err := h.tr.Snapshot(context.Background(), mustParse(t, s.URL))
	if err != nil || snap.Usage.Empty() {
		t.Errorf("Snapshot.Usage of a file with usage lines: %v %v", snap.Usage, err)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A crawler asks about the pages it fetched after closing their bodies:
// with an http.Client Timeout, the context of resp.Request has ended then,
// and Usage still answers, fetching the tdmrep.json all the same.
func TestUsageAfterClientTimeoutBodyClosed(t *testing.T) {
	srv := robotstest.NewUnstartedOrigin(t, "User-agent: *\nAllow: /\n")
	srv.Handler = robotstest.Pages(map[string]string{
		usage.TDMRepPath: `[{"location":"/","tdm-reservation":1}]`,
		"/a":             "page",
	})
	srv.Clock = robotstest.NewClock(time.Now()) // the Transport's clock is the system's: its answers are dated now
	srv.Start()
	tr := &robotsguard.Transport{NoPacing: true}
	client := &http.Client{Timeout: 10 * time.Second, Transport: tr}
	resp, err := client.Get(srv.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	d, err := tr.Usage(resp.Request, usage.TDM, nil)
	if err != nil || d.Verdict != usage.Disallowed {
		t.Errorf("tdm after the body was closed: %v, %v; want disallowed", d, err)
	}
}

// An http.Client with a Timeout ends the context of resp.Request when the
// body is closed; asking about resp.Request once its robots.txt must be
// fetched again still answers.
func TestUsageOfAClosedResponsesRequestAfterExpiry(t *testing.T) {
	h := newHarness(t)
	s := h.origin("User-agent: *\nContent-Signal: ai-train=no\n")
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=60"))
	client := &http.Client{Transport: h.tr, Timeout: time.Minute}
	resp, err := client.Get(s.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.clock.Advance(2 * time.Minute)
	d, err := h.tr.Usage(resp.Request, usage.Search, nil)
	if err != nil || d.Verdict != usage.Unknown {
		t.Fatalf("Usage(resp.Request) once the robots.txt is stale: %v %v", d, err)
	}
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2", n)
	}
}
