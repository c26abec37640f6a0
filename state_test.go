package robotsguard_test

import (
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotstest"
)

// TestRobotsTxtAfterPages: a request for /robots.txt of an origin whose
// file the Transport holds only as parsed rules (pages were requested
// first) gets the file all the same, from the site; the rules still decide.
func TestRobotsTxtAfterPages(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /private\n"
	h := newHarness(t)
	s := h.origin(rules)
	h.allowed(s.URL + "/")
	body, err := h.get(s.URL + "/robots.txt")
	if err != nil || body != rules {
		t.Fatalf("GET /robots.txt: %q, %v; want the file", body, err)
	}
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
	if got := seen(s); !slices.Equal(got, []string{"/robots.txt", "/", "/robots.txt"}) {
		t.Errorf("origin saw %q, want the client's own robots.txt request sent", got)
	}
}

// TestStoreRevalidatedEntryWhole: an entry revalidated with a 304 goes back
// to the Store with its body: another Transport that takes it from there
// obeys its rules without fetching the file.
func TestStoreRevalidatedEntryWhole(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h1.origin("") // on h1's clock: h1 fetches
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Cache-Control", "max-age=600")
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))
	h1.refused(s.URL+"/private", robotsguard.ReasonRule)
	h1.clock.Advance(11 * time.Minute)
	h1.refused(s.URL+"/private", robotsguard.ReasonRule) // revalidated: 304
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	h2.clock.Advance(12 * time.Minute)
	h2.refused(s.URL+"/private", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2 (a fetch and a revalidation)", n)
	}
}
