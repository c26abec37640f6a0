package robotstest_test

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/robotstest"
)

// scrape is the code under test: it reads the page at base+"/" and every
// page of the site it links to, as ExampleBot, and returns the paths read.
func scrape(client *http.Client, base string) []string {
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	var read []string
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			continue
		}
		req.Header.Set("User-Agent", "ExampleBot/1.0 (+https://example.com/bot)")
		resp, err := client.Do(req)
		if err != nil {
			continue // refused by robots.txt, or failed: skip it
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		read = append(read, path)
		for _, m := range link.FindAllStringSubmatch(string(body), -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				queue = append(queue, m[1])
			}
		}
	}
	return read
}

var link = regexp.MustCompile(`href="(/[^"]*)"`)

var site = robotstest.Pages(map[string]string{
	"/":            `<a href="/blog">Blog</a> <a href="/admin">Admin</a>`,
	"/blog":        `<a href="/blog/first">First post</a> <a href="/admin/edit?post=1">Edit</a>`,
	"/blog/first":  `<a href="/">Home</a>`,
	"/admin":       `<a href="/admin/users">Users</a>`,
	"/admin/edit":  `<form>...</form>`,
	"/admin/users": `<table>...</table>`,
})

// testScraperAvoidsAdmin is the test: the Origin fails it if the scraper,
// given the client, requests anything under /admin.
func testScraperAvoidsAdmin(t testing.TB, client func(*robotstest.Origin) *http.Client) {
	o := robotstest.NewUnstartedOrigin(t, "User-agent: *\nDisallow: /admin\n")
	o.Handler = site
	o.Start()
	read := scrape(client(o), o.URL)
	fmt.Println("read:", strings.Join(read, " "))
	for _, r := range o.Requests() {
		fmt.Println(" ", r.Method, r.URL, r.Status, r.Decision)
	}
}

// Prove that a scraper never touches /admin: run it against an Origin
// whose robots.txt disallows /admin. Through robotsguard, the test passes;
// through a plain http.Client, the Origin fails it on every /admin request,
// reported when the test ends.
func ExampleOrigin() {
	// In a test, pass its *testing.T; here a stand-in prints the failures,
	// and runs the cleanups where a test would end.
	t := &printingT{}

	fmt.Println("through robotsguard:")
	testScraperAvoidsAdmin(t, func(o *robotstest.Origin) *http.Client {
		return o.Client("ExampleBot/1.0 (+https://example.com/bot)")
	})
	t.runCleanups()

	fmt.Println("through a plain http.Client:")
	testScraperAvoidsAdmin(t, func(*robotstest.Origin) *http.Client { return &http.Client{} })
	t.runCleanups()

	// Output:
	// through robotsguard:
	// read: / /blog /blog/first
	//   GET /robots.txt 200 allowed: robots.txt is always allowed
	//   GET / 200 allowed: no rule of group "*" (line 1) matches
	//   GET /blog 200 allowed: no rule of group "*" (line 1) matches
	//   GET /blog/first 200 allowed: no rule of group "*" (line 1) matches
	// through a plain http.Client:
	// read: / /blog /admin /blog/first /admin/edit?post=1 /admin/users
	//   GET / 200 allowed: no rule of group "*" (line 1) matches
	//   GET /blog 200 allowed: no rule of group "*" (line 1) matches
	//   GET /admin 200 disallowed by "Disallow: /admin" (line 2, group "*" at line 1)
	//   GET /blog/first 200 allowed: no rule of group "*" (line 1) matches
	//   GET /admin/edit?post=1 200 disallowed by "Disallow: /admin" (line 2, group "*" at line 1)
	//   GET /admin/users 200 disallowed by "Disallow: /admin" (line 2, group "*" at line 1)
	// FAIL: robotstest: GET /admin from "ExampleBot/1.0 (+https://example.com/bot)": disallowed by "Disallow: /admin" (line 2, group "*" at line 1)
	// FAIL: robotstest: GET /admin/edit?post=1 from "ExampleBot/1.0 (+https://example.com/bot)": disallowed by "Disallow: /admin" (line 2, group "*" at line 1)
	// FAIL: robotstest: GET /admin/users from "ExampleBot/1.0 (+https://example.com/bot)": disallowed by "Disallow: /admin" (line 2, group "*" at line 1)
}

// printingT stands in for a *testing.T outside a test: it prints failures
// and runs cleanups when told.
type printingT struct {
	testing.TB
	cleanups []func()
}

func (p *printingT) Helper()             {}
func (p *printingT) Fail()               {}
func (p *printingT) Logf(string, ...any) {}
func (p *printingT) Cleanup(f func())    { p.cleanups = append(p.cleanups, f) }

func (p *printingT) Errorf(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
}

func (p *printingT) runCleanups() {
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
	p.cleanups = nil
}
