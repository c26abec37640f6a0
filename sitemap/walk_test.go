package sitemap_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/sitemap"
)

// site is a local site whose files are given by path; it counts the
// requests for each path.
type site struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string]string
	hits  map[string]int
	uas   map[string]bool // the User-Agents of the requests
}

func newSite(t *testing.T, files map[string]string) *site {
	s := &site{files: files, hits: map[string]int{}, uas: map[string]bool{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.uas[r.UserAgent()] = true
		body, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, strings.ReplaceAll(body, "$SITE", "http://"+r.Host))
	}))
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *site) hit(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func client() *http.Client {
	return &http.Client{Transport: &robotsguard.Transport{UserAgent: "TestBot/1.0", NoPacing: true}}
}

// walked returns the pages of a walk, and its errors.
func walked(seq func(func(sitemap.Entry, error) bool)) (pages []string, errs []error) {
	for e, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pages = append(pages, strings.TrimPrefix(e.Loc, "http://"+hostOf(e.Sitemap)))
	}
	return pages, errs
}

func hostOf(u string) string {
	u = strings.TrimPrefix(u, "http://")
	if i := strings.IndexByte(u, '/'); i >= 0 {
		return u[:i]
	}
	return u
}

// hasErr reports whether one of errs matches target and names loc.
func hasErr(errs []error, target error, loc string) bool {
	for _, err := range errs {
		if errors.Is(err, target) && strings.Contains(err.Error(), loc) {
			return true
		}
	}
	return false
}

func TestSite(t *testing.T) {
	s := newSite(t, map[string]string{
		"/robots.txt": "User-agent: *\nDisallow: /private/\n\nSitemap: $SITE/index.xml\nSitemap: $SITE/private/sitemap.xml\nSitemap: $SITE/index.xml\n",
		"/index.xml": `<sitemapindex>
			<sitemap><loc>$SITE/news/sitemap.xml</loc></sitemap>
			<sitemap><loc>$SITE/pages.txt</loc></sitemap>
			<sitemap><loc>$SITE/index.xml</loc></sitemap>
			<sitemap><loc>$SITE/nested.xml</loc></sitemap>
			<sitemap><loc>$SITE/missing.xml</loc></sitemap>
		</sitemapindex>`,
		"/news/sitemap.xml":    `<urlset><url><loc>$SITE/news/1</loc><lastmod>2024-05-06</lastmod></url><url><loc>$SITE/about</loc></url><url><loc>https://elsewhere.example/x</loc></url></urlset>`,
		"/pages.txt":           "$SITE/a\n$SITE/b\n",
		"/nested.xml":          `<sitemapindex><sitemap><loc>$SITE/deep.xml</loc></sitemap></sitemapindex>`,
		"/deep.xml":            "$SITE/deep\n",
		"/private/sitemap.xml": "$SITE/private/1\n",
	})
	pages, errs := walked(sitemap.Site(context.Background(), client(), s.URL+"/any/page"))
	// /about is out of the news sitemap's directory, but robots.txt
	// lists the index that lists it: the grant covers the origin.
	if want := []string{"/news/1", "/about", "/a", "/b"}; !slices.Equal(pages, want) {
		t.Errorf("pages %q, want %q", pages, want)
	}
	for _, c := range []struct {
		err error
		loc string
	}{
		{robotsguard.ErrDisallowed, "/private/sitemap.xml"}, // the Transport refuses it
		{sitemap.ErrOutOfScope, "elsewhere.example"},        // another host
		{sitemap.ErrLoop, s.URL + "/index.xml"},             // the index lists itself
		{sitemap.ErrDepth, "/deep.xml"},                     // an index listed by an index
		{sitemap.ErrStatus, "/missing.xml"},
	} {
		if !hasErr(errs, c.err, c.loc) {
			t.Errorf("no %v naming %s in %v", c.err, c.loc, errs)
		}
	}
	if len(errs) != 5 {
		t.Errorf("%d errors, want 5: %v", len(errs), errs)
	}
	if n := s.hit("/index.xml"); n != 1 {
		t.Errorf("index fetched %d times, want once", n)
	}
	if n := s.hit("/private/sitemap.xml") + s.hit("/deep.xml"); n != 0 {
		t.Errorf("a disallowed or too deep sitemap was fetched")
	}
	// Every fetch went through the Transport, as its agent.
	if len(s.uas) != 1 || !s.uas["TestBot/1.0"] {
		t.Errorf("User-Agents %v, want the Transport's alone", s.uas)
	}
}

// A sitemap listed by robots.txt on another host may list the URLs of
// the robots.txt's origin (cross-submission), and not those of a third.
func TestSiteCrossSubmit(t *testing.T) {
	host := newSite(t, map[string]string{"/robots.txt": "User-agent: *\nAllow: /\n"})
	other := newSite(t, map[string]string{})
	s := newSite(t, map[string]string{})
	host.files["/sitemaps/s.xml"] = "$SITE/sitemaps/own\n" + s.URL + "/page\n" + other.URL + "/page\n"
	s.files["/robots.txt"] = "Sitemap: " + host.URL + "/sitemaps/s.xml\n"
	pages, errs := walked(sitemap.Site(context.Background(), client(), s.URL))
	if want := []string{"/sitemaps/own", s.URL + "/page"}; !slices.Equal(pages, want) {
		t.Errorf("pages %q, want %q", pages, want)
	}
	if len(errs) != 1 || !hasErr(errs, sitemap.ErrOutOfScope, other.URL) {
		t.Errorf("errors %v, want the third host's URL out of scope", errs)
	}
	// Given directly, the sitemap keeps to its directory.
	pages, errs = walked((&sitemap.Walker{Client: client()}).Walk(context.Background(), host.URL+"/sitemaps/s.xml"))
	if len(pages) != 1 || len(errs) != 2 {
		t.Errorf("Walk: pages %q, errors %v", pages, errs)
	}
}

func TestSiteNoSitemaps(t *testing.T) {
	for name, robots := range map[string]map[string]string{
		"none listed": {"/robots.txt": "User-agent: *\nDisallow:\n"},
		"404":         {},
	} {
		s := newSite(t, robots)
		_, errs := walked(sitemap.Site(context.Background(), client(), s.URL))
		if len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrNoSitemaps) {
			t.Errorf("%s: %v, want ErrNoSitemaps", name, errs)
		}
		// Through a Client whose Transport is no robotsguard.Transport.
		_, errs = walked(sitemap.Site(context.Background(), s.Client(), s.URL))
		if len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrNoSitemaps) {
			t.Errorf("%s, plain client: %v, want ErrNoSitemaps", name, errs)
		}
	}
}

func TestWalkBudgets(t *testing.T) {
	files := map[string]string{"/index.xml": "<sitemapindex>"}
	for i := range 5 {
		p := fmt.Sprintf("/s%d.txt", i)
		files["/index.xml"] += "<sitemap><loc>$SITE" + p + "</loc></sitemap>"
		files[p] = fmt.Sprintf("$SITE/%d/a\n$SITE/%d/b\n$SITE/%d/c\n", i, i, i)
	}
	files["/index.xml"] += "</sitemapindex>"
	s := newSite(t, files)
	w := &sitemap.Walker{Client: s.Client(), MaxFiles: 3}
	pages, errs := walked(w.Walk(context.Background(), s.URL+"/index.xml"))
	if len(pages) != 6 || len(errs) != 3 || !errors.Is(errs[0], sitemap.ErrBudget) {
		t.Errorf("MaxFiles 3: pages %q, errors %v", pages, errs)
	}
	w = &sitemap.Walker{Client: s.Client(), MaxURLs: 4}
	pages, errs = walked(w.Walk(context.Background(), s.URL+"/index.xml"))
	if len(pages) != 4 || len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrBudget) {
		t.Errorf("MaxURLs 4: pages %q, errors %v", pages, errs)
	}
	if n := s.hit("/s2.txt") + s.hit("/s3.txt"); n != 0 {
		t.Errorf("files fetched past the URL budget: %d", n)
	}
	w = &sitemap.Walker{Client: s.Client(), MaxDepth: -1}
	pages, errs = walked(w.Walk(context.Background(), s.URL+"/index.xml"))
	if len(pages) != 0 || len(errs) != 5 || !errors.Is(errs[0], sitemap.ErrDepth) {
		t.Errorf("MaxDepth -1: pages %q, errors %v", pages, errs)
	}
}

// A walk stops when ctx ends, and when the caller stops ranging.
func TestWalkStops(t *testing.T) {
	s := newSite(t, map[string]string{"/a.txt": "$SITE/1\n$SITE/2\n", "/b.txt": "$SITE/3\n"})
	n := 0
	for range (&sitemap.Walker{Client: s.Client()}).Walk(context.Background(), s.URL+"/a.txt", s.URL+"/b.txt") {
		n++
		break
	}
	if n != 1 || s.hit("/b.txt") != 0 {
		t.Errorf("ranged %d times, b fetched %d times", n, s.hit("/b.txt"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errs := walked((&sitemap.Walker{Client: s.Client()}).Walk(ctx, s.URL+"/a.txt"))
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("cancelled: %v", errs)
	}
}
