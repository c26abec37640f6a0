package main

import (
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/robotstest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"robotsguard": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

const siteRobots = `User-agent: *
Disallow: /private/
Allow: /private/press/
Crawl-delay: 2

User-agent: FooBot
Disallow: /
Request-rate: 1/10s

Sitemap: %s/sitemap.xml

ACAP-crawler: *
ACAP-disallow-crawl: /drafts/
ACAP-allow-present-snippet: /news/ max-length=250-chars
ACAP-request-take-down: /news/retracted.html
`

// servers starts the local origins the scripts talk to, and returns
// their URLs by environment variable.
func servers(t *testing.T) map[string]string {
	// The handler is set before the server starts: a handler set after
	// is a data race with the goroutines serving it.
	site := httptest.NewUnstartedServer(nil)
	site.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Cache-Control", "max-age=3600")
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, siteRobots, site.URL)
		case "/moved/robots.txt":
			http.Redirect(w, r, "/robots.txt", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	})
	site.Start()
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, site.URL+"/robots.txt", http.StatusMovedPermanently)
	}))
	missing := httptest.NewServer(http.NotFoundHandler())
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!DOCTYPE html>\n<html><head><title>Not found</title></head><body>Sorry</body></html>\n")
	}))
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	// challenge answers every request with a bot challenge page.
	challenge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><script type="module" src="/.within.website/x/cmd/anubis/static/js/main.mjs"></script></head></html>`)
	}))
	// uaCheck is down for a crawler that sends "User-Agent: *".
	uaCheck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") == "*" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	}))
	// loop redirects without end: /robots.txt to /r1, /r1 to /r2, …
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		fmt.Sscanf(r.URL.Path, "/r%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/r%d", n+1), http.StatusFound)
	}))
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\n")
		for i := 0; i < 20000; i++ {
			fmt.Fprintf(w, "Disallow: /%08d/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", i)
		}
	}))
	// long asks to be cached a week and crawled slowly; noCache not to
	// be cached.
	long := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=604800")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: 120\n\nUser-agent: FooBot\nRequest-rate: 10/1m\n")
	}))
	noCache := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	}))
	// signed serves its robots.txt only to requests signed with the key
	// of RFC 9421 Appendix B.1.4 (testdata/script/sign.txtar); others
	// get a 401, which allows everything.
	rfcKey, _ := base64.RawURLEncoding.DecodeString("JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs")
	signed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := robotstest.VerifySignature(r, time.Now(), rfcKey); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	}))
	sitemaps := sitemapSite()
	for _, s := range []*httptest.Server{site, moved, missing, down, page, forbidden, uaCheck, loop, big, long, noCache, signed, sitemaps, challenge} {
		t.Cleanup(s.Close)
	}
	return map[string]string{"SITE": site.URL, "MOVED": moved.URL, "MISSING": missing.URL, "DOWN": down.URL, "PAGE": page.URL, "FORBIDDEN": forbidden.URL, "UACHECK": uaCheck.URL, "LOOP": loop.URL, "BIG": big.URL,
		"LONG": long.URL, "NOCACHE": noCache.URL, "SIGNED": signed.URL, "SITEMAPS": sitemaps.URL, "CHALLENGE": challenge.URL}
}

// sitemapSite serves a robots.txt that lists a sitemap index, which
// lists a gzipped sitemap and one the robots.txt disallows.
func sitemapSite() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site := "http://" + r.Host
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\n\nSitemap: %s/sitemap_index.xml\n", site)
		case "/sitemap_index.xml":
			fmt.Fprintf(w, "<sitemapindex><sitemap><loc>%s/pages.xml.gz</loc></sitemap><sitemap><loc>%s/private/sitemap.xml</loc></sitemap></sitemapindex>", site, site)
		case "/pages.xml.gz":
			zw := gzip.NewWriter(w)
			fmt.Fprintf(zw, `<urlset><url><loc>%s/</loc><lastmod>2024-05-06</lastmod><priority>1.0</priority></url>
<url><loc>%s/about</loc></url><url><loc>https://elsewhere.example/</loc></url></urlset>`, site, site)
			zw.Close()
		default:
			http.NotFound(w, r)
		}
	}))
}

// agentsRobots is the robots.txt of the $AGENTS origin: each agent
// that follows a group of its own is disallowed a directory of its own,
// so that a verdict shows the group followed.
const agentsRobots = `User-agent: *
Disallow: /private/

User-agent: Go-http-client
Disallow: /go/

User-agent: robotsguard-cli
Disallow: /cli/

User-agent: FooBot
Disallow: /foo/

ACAP-crawler: *
ACAP-disallow-crawl: /drafts/
`

// agentLog records the requests an origin receives: "GET /robots.txt
// User-Agent", one a line, in order.
type agentLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *agentLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ua := "(none)"
	if v := r.Header.Values("User-Agent"); len(v) > 0 {
		ua = strings.Join(v, ", ")
	}
	l.mu.Lock()
	l.lines = append(l.lines, r.Method+" "+r.URL.RequestURI()+" "+ua)
	l.mu.Unlock()
	switch r.URL.Path {
	case "/robots.txt":
		fmt.Fprint(w, agentsRobots)
	case "/.well-known/tdmrep.json":
		fmt.Fprint(w, `[{"location": "/", "tdm-reservation": 1}]`)
	default:
		fmt.Fprint(w, "a page")
	}
}

// take returns the requests recorded, and forgets them.
func (l *agentLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

// agentLogKey holds a script's agentLog in its Values.
type agentLogKey struct{}

func TestScripts(t *testing.T) {
	urls := servers(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		// UPDATE_SCRIPTS=1 go test rewrites the files that cmp compares.
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			for k, v := range urls {
				env.Setenv(k, v)
			}
			// $AGENTS records the requests of this script alone.
			log := new(agentLog)
			s := httptest.NewServer(log)
			env.Defer(s.Close)
			env.Values[agentLogKey{}] = log
			env.Setenv("AGENTS", s.URL)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits N PROG ARGS... runs PROG as exec does, and fails
			// unless it exits with status N; its output is the script's
			// stdout and stderr, as exec's.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits N prog args...")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: %v", err)
				}
				got := 0
				var exit *exec.ExitError
				if err := ts.Exec(args[1], args[2:]...); errors.As(err, &exit) {
					got = exit.ExitCode()
				} else if err != nil {
					ts.Fatalf("exits: %v", err)
				}
				if got != want {
					ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
				}
			},
			// requests prints the requests $AGENTS received since the
			// last call, "GET /robots.txt User-Agent" one a line.
			"requests": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 0 {
					ts.Fatalf("usage: requests")
				}
				for _, l := range ts.Value(agentLogKey{}).(*agentLog).take() {
					fmt.Fprintln(ts.Stdout(), l)
				}
			},
		},
	})
}
