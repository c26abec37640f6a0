package robotstest_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/robotstest"
)

const robotsTxt = `User-agent: *
Allow: /admin/help
Disallow: /admin/

User-agent: FooBot
Disallow: /foo-only
`

func TestOriginFlagsDisallowedRequest(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, robotsTxt)
	c := &http.Client{}

	if _, _, err := get(t, c, o.URL+"/admin/users?page=2", "OtherBot/2.0 (+https://example.com)"); err != nil {
		t.Fatal(err)
	}
	// The test is failed at once, and told why when it ends.
	if !ftb.Failed() {
		t.Error("not failed after a disallowed request")
	}
	if errs := ftb.Errors(); len(errs) != 0 {
		t.Errorf("failures = %q before the test ended, want them at its end", errs)
	}
	ftb.End()
	errs := ftb.Errors()
	want := `robotstest: GET /admin/users?page=2 from "OtherBot/2.0 (+https://example.com)": disallowed by "Disallow: /admin/" (line 3, group "*" at line 1)`
	if len(errs) != 1 || errs[0] != want {
		t.Fatalf("failures = %q, want [%q]", errs, want)
	}
	rs := o.Requests()
	if len(rs) != 1 {
		t.Fatalf("requests = %v", rs)
	}
	r := rs[0]
	if r.Method != "GET" || r.URL != "/admin/users?page=2" || r.UserAgent != "OtherBot/2.0 (+https://example.com)" ||
		r.Status != 200 || r.Fault != "pass" || r.Robots != 1 || r.Decision.Allowed || r.Decision.Rule.Line != 3 {
		t.Errorf("request = %+v", r)
	}
	if bad := o.Disallowed(); len(bad) != 1 || bad[0].URL != "/admin/users?page=2" {
		t.Errorf("Disallowed() = %v", bad)
	}
}

// A test whose requests are all allowed is neither failed nor told
// anything.
func TestOriginAllowedRequestsPass(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, robotsTxt)
	for _, path := range []string{"/robots.txt", "/", "/admin/help"} {
		if _, _, err := get(t, &http.Client{}, o.URL+path, "OtherBot/2.0"); err != nil {
			t.Fatal(err)
		}
	}
	ftb.End()
	if ftb.Failed() || len(ftb.Errors()) != 0 || len(ftb.Logs()) != 0 {
		t.Errorf("failed %v, failures %q, logs %q; want none", ftb.Failed(), ftb.Errors(), ftb.Logs())
	}
}

func TestOriginJudgesByAgentGroup(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, robotsTxt)
	c := &http.Client{}
	for _, ua := range []string{"OtherBot/1.0", "Mozilla/5.0 (compatible; OtherBot/1.0)"} {
		if _, _, err := get(t, c, o.URL+"/foo-only", ua); err != nil {
			t.Fatal(err)
		}
	}
	// Allowed by a longer Allow; /robots.txt is never flagged.
	for _, path := range []string{"/admin/help", "/robots.txt", "/"} {
		if _, _, err := get(t, c, o.URL+path, "FooBot/1.0"); err != nil {
			t.Fatal(err)
		}
	}
	if ftb.Failed() {
		t.Fatalf("failed by %v, want no failure", o.Disallowed())
	}
	if _, _, err := get(t, c, o.URL+"/foo-only", "Mozilla/5.0 (compatible; FooBot/1.0)"); err != nil {
		t.Fatal(err)
	}
	ftb.End()
	errs := ftb.Errors()
	if len(errs) != 1 || !strings.Contains(errs[0], `"Disallow: /foo-only" (line 6, group "foobot" at line 5)`) {
		t.Fatalf("failures = %q, want the FooBot group's rule", errs)
	}
	if n := o.RobotsFetches(); n != 1 {
		t.Errorf("RobotsFetches() = %d, want 1", n)
	}
}

func TestOriginNoFailureThroughTransport(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, robotsTxt)
	c := o.Client("OtherBot/1.0 (+https://example.com/bot)")

	_, _, err := get(t, c, o.URL+"/admin/users", "")
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.Decision.Rule.Line != 3 {
		t.Fatalf("GET /admin/users: err = %v, want a refusal by line 3", err)
	}
	if _, _, err := get(t, c, o.URL+"/admin/", ""); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatalf("GET /admin/: err = %v, want a refusal", err)
	}
	resp, body, err := get(t, c, o.URL+"/public", "")
	if err != nil || resp.StatusCode != 200 || !strings.Contains(body, "robotstest page /public") {
		t.Fatalf("GET /public: %v, %v, %q", resp, err, body)
	}
	if ftb.Failed() {
		t.Errorf("failed by %v, want no failure", o.Disallowed())
	}
	if got, want := paths(o.Requests()), "GET /robots.txt, GET /public"; got != want {
		t.Errorf("requests = %s, want %s", got, want)
	}
	for _, r := range o.Requests() {
		if r.UserAgent != "OtherBot/1.0 (+https://example.com/bot)" {
			t.Errorf("%s sent as %q, want the Transport's agent", r.URL, r.UserAgent)
		}
	}
	if n := o.RobotsFetches(); n != 1 {
		t.Errorf("RobotsFetches() = %d, want 1", n)
	}
}

// When the test ends, a record of every request follows the failures,
// under a line that counts them.
func TestOriginLogsRecordAtCleanup(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		head  string // with the Origin's URL for %s; "" for no record
	}{
		{[]string{"/a"}, ""},
		{[]string{"/a", "/admin/"}, "robotstest: 1 of the 2 requests to %s was disallowed; the Origin received, in order:"},
		{[]string{"/admin/", "/a", "/admin/x"}, "robotstest: 2 of the 3 requests to %s were disallowed; the Origin received, in order:"},
		{[]string{"/admin/"}, "robotstest: the only request to %s was disallowed:"},
		{[]string{"/admin/", "/admin/x"}, "robotstest: all 2 requests to %s were disallowed, in order:"},
	} {
		ftb := &fakeTB{TB: t}
		o := robotstest.NewOrigin(ftb, robotsTxt)
		for _, path := range tc.paths {
			get(t, &http.Client{}, o.URL+path, "OtherBot")
		}
		ftb.End()
		logs := ftb.Logs()
		if tc.head == "" {
			if len(logs) != 0 {
				t.Errorf("%v: logs = %q, want none when nothing was disallowed", tc.paths, logs)
			}
			continue
		}
		want := fmt.Sprintf(tc.head, o.URL)
		for _, r := range o.Requests() {
			want += "\n\t" + r.String()
		}
		if len(logs) != 1 || logs[0] != want {
			t.Errorf("%v: logs = %q, want [%q]", tc.paths, logs, want)
		}
	}
}

func TestOriginDialect(t *testing.T) {
	const typo = "User-agent: *\nDisalow: /x\n" // Google accepts the typo
	for _, tc := range []struct {
		dialect policy.Dialect
		flagged int
	}{{policy.RFC9309, 0}, {policy.Google, 1}} {
		t.Run(tc.dialect.String(), func(t *testing.T) {
			ftb := &fakeTB{TB: t}
			o := robotstest.NewUnstartedOrigin(ftb, typo)
			o.Parser.Dialect = tc.dialect
			o.Start()
			get(t, &http.Client{}, o.URL+"/x", "FooBot")
			ftb.End()
			if errs := ftb.Errors(); len(errs) != tc.flagged {
				t.Errorf("failures = %q, want %d", errs, tc.flagged)
			}
		})
	}
}

func TestSetRobotsJudgesByFetchedCopy(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /old\n")
	c := &http.Client{}
	get(t, c, o.URL+"/robots.txt", "FooBot/1.0")
	o.SetRobots("User-agent: *\nDisallow: /new\n")

	// FooBot holds the first version: /new is allowed to it.
	get(t, c, o.URL+"/new", "FooBot/1.0")
	if ftb.Failed() {
		t.Fatalf("failed by %v, want no failure for a cached copy", o.Disallowed())
	}
	// BarBot fetched nothing: the current version judges it.
	get(t, c, o.URL+"/new", "BarBot/1.0")
	// FooBot fetches the new version, and is then judged by it.
	_, body, _ := get(t, c, o.URL+"/robots.txt", "FooBot/1.0")
	if body != "User-agent: *\nDisallow: /new\n" {
		t.Errorf("robots.txt = %q", body)
	}
	get(t, c, o.URL+"/new", "FooBot/1.0")
	ftb.End()
	errs := ftb.Errors()
	want := `robotstest: GET /new from "BarBot/1.0": disallowed by "Disallow: /new" (line 2, group "*" at line 1) in robots.txt version 2`
	if len(errs) != 2 || errs[0] != want || !strings.Contains(errs[1], `"FooBot/1.0"`) {
		t.Fatalf("failures = %q, want BarBot's then FooBot's, as %q", errs, want)
	}
	var versions []int
	for _, r := range o.Requests() {
		versions = append(versions, r.Robots)
	}
	if got, want := versions, []int{1, 1, 2, 2, 2}; !equal(got, want) {
		t.Errorf("versions = %v, want %v", got, want)
	}
	if n := o.RobotsFetches(); n != 2 {
		t.Errorf("RobotsFetches() = %d, want 2", n)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPages(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewUnstartedOrigin(ftb, "")
	o.Handler = robotstest.Pages(map[string]string{
		"/":           "<html><a href=/a>a</a></html>",
		"/search?q=a": "results for a",
		"/search":     "search page",
	})
	o.Start()
	c := &http.Client{}
	for _, tc := range []struct {
		path, body, ctype string
		status            int
	}{
		{"/", "<html><a href=/a>a</a></html>", "text/html; charset=utf-8", 200},
		{"/search?q=a", "results for a", "text/plain; charset=utf-8", 200},
		{"/search?q=b", "search page", "text/plain; charset=utf-8", 200},
		{"/missing", "404 page not found\n", "text/plain; charset=utf-8", 404},
	} {
		resp, body, err := get(t, c, o.URL+tc.path, "")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tc.status || body != tc.body || resp.Header.Get("Content-Type") != tc.ctype {
			t.Errorf("%s: %d %q %q, want %d %q %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status, tc.ctype, tc.body)
		}
	}
	if got := o.Requests()[3].Status; got != 404 {
		t.Errorf("recorded status %d, want 404", got)
	}
}

// TestOriginReadsUserAgentAsTheTransport: colly's default User-Agent
// names colly (RFC 9110 products), so the colly group judges it.
func TestOriginReadsUserAgentAsTheTransport(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: colly\nDisallow: /admin\n\nUser-agent: *\nDisallow: /other\n")
	c := &http.Client{}
	if _, _, err := get(t, c, o.URL+"/admin", "colly - https://github.com/gocolly/colly"); err != nil {
		t.Fatal(err)
	}
	ftb.End()
	errs := ftb.Errors()
	if len(errs) != 1 || !strings.Contains(errs[0], `group "colly"`) {
		t.Errorf("failures = %q, want /admin flagged by the colly group", errs)
	}
}

// TestOriginJudgesByRobotsStatus: an agent whose robots.txt fetch got a
// 4xx may fetch anything; one that got a 5xx may fetch nothing, unless
// it holds an earlier copy.
func TestOriginJudgesByRobotsStatus(t *testing.T) {
	t.Run("404", func(t *testing.T) {
		ftb := &fakeTB{TB: t}
		o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /admin\n")
		o.Fault("/robots.txt", robotstest.Status(404))
		if _, _, err := get(t, o.Client("FooBot/1.0"), o.URL+"/admin", ""); err != nil {
			t.Fatal(err)
		}
		if ftb.Failed() {
			t.Errorf("failed by %v, want no failure: a 404 allows everything", o.Disallowed())
		}
	})
	t.Run("503", func(t *testing.T) {
		ftb := &fakeTB{TB: t}
		o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /admin\n")
		o.Fault("/robots.txt", robotstest.Status(503))
		c := &http.Client{}
		if _, _, err := get(t, c, o.URL+"/robots.txt", "FooBot/1.0"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := get(t, c, o.URL+"/page", "FooBot/1.0"); err != nil {
			t.Fatal(err)
		}
		ftb.End()
		errs := ftb.Errors()
		want := `robotstest: GET /page from "FooBot/1.0": disallowed: robots.txt answered 503, which allows nothing, and no earlier copy stands in (RFC 9309 §2.3.1.4)`
		if len(errs) != 1 || errs[0] != want {
			t.Errorf("failures = %q, want [%q]", errs, want)
		}
		if r := o.Requests()[1]; r.Robots != 0 || r.RobotsStatus != 503 {
			t.Errorf("/page judged by version %d, after a %d; want 0 (no file), after a 503", r.Robots, r.RobotsStatus)
		}
	})
	t.Run("503 after a copy", func(t *testing.T) {
		ftb := &fakeTB{TB: t}
		o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /admin\n")
		c := &http.Client{}
		o.Fault("/robots.txt", robotstest.Pass(), robotstest.Status(503))
		for _, path := range []string{"/robots.txt", "/robots.txt", "/page", "/admin"} {
			if _, _, err := get(t, c, o.URL+path, "FooBot/1.0"); err != nil {
				t.Fatal(err)
			}
		}
		ftb.End()
		errs := ftb.Errors()
		if len(errs) != 1 || !strings.Contains(errs[0], "GET /admin") {
			t.Errorf("failures = %q, want /admin flagged by the copy", errs)
		}
	})
}

// TestOriginUnreachableLimit: with UnreachableLimit, an agent whose
// robots.txt fetches have failed that long may take the file for
// unavailable, and fetch anything; the time counts from the first failure
// since its last good fetch.
func TestOriginUnreachableLimit(t *testing.T) {
	const day = 24 * time.Hour
	ftb := &fakeTB{TB: t}
	o := robotstest.NewUnstartedOrigin(ftb, "User-agent: *\nDisallow: /admin\n")
	o.UnreachableLimit = 30 * day
	o.Start()
	c := &http.Client{}
	fetch := func(advance time.Duration, path string) {
		o.Clock.Advance(advance)
		get(t, c, o.URL+"/robots.txt", "FooBot/1.0")
		get(t, c, o.URL+path, "FooBot/1.0")
	}
	o.Fault("/robots.txt", robotstest.Status(503))
	fetch(0, "/page")      // flagged: a 503, and no copy
	fetch(29*day, "/page") // flagged: 29 days of 503s
	fetch(day, "/admin")   // allowed: 30 days of 503s
	o.Fault("/robots.txt") // a good fetch
	fetch(0, "/page")      // allowed by the file
	o.Fault("/robots.txt", robotstest.Status(500))
	fetch(day, "/admin")               // the copy stands in: flagged
	fetch(30*day-time.Second, "/page") // allowed by the copy
	fetch(time.Second, "/admin")       // 30 days since the first failure: allowed
	ftb.End()
	var flagged []string
	for _, r := range o.Disallowed() {
		flagged = append(flagged, r.URL)
	}
	if got, want := strings.Join(flagged, " "), "/page /page /admin"; got != want {
		t.Errorf("flagged %s, want %s", got, want)
	}
	rs := o.Requests()
	if s := rs[5].String(); !strings.Contains(s, "allowed: robots.txt answered 503, and has failed for UnreachableLimit or longer") {
		t.Errorf("record %s, want the limit named", s)
	}

	// Without the limit, an agent whose fetches fail gets nothing.
	ftb = &fakeTB{TB: t}
	o = robotstest.NewOrigin(ftb, "")
	o.Fault("/robots.txt", robotstest.Status(503))
	fetch(365*day, "/page")
	ftb.End()
	if n := len(o.Disallowed()); n != 1 {
		t.Errorf("without UnreachableLimit, %d requests flagged, want 1", n)
	}
}
