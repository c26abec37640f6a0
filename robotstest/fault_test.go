package robotstest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

func TestFaultStatus(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "")
	o.Fault("/busy", robotstest.Status(503, "Retry-After: 1"), robotstest.Status(429, "Retry-After: 2"), robotstest.Pass())
	c := &http.Client{}
	for i, want := range []struct {
		status     int
		retryAfter string
		body       string
	}{
		{503, "1", "503 Service Unavailable\n"},
		{429, "2", "429 Too Many Requests\n"},
		{200, "", "robotstest page /busy"},
		{200, "", "robotstest page /busy"}, // the last fault repeats
	} {
		resp, body, err := get(t, c, o.URL+"/busy", "")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != want.status || resp.Header.Get("Retry-After") != want.retryAfter || !strings.Contains(body, want.body) {
			t.Errorf("request %d: %d Retry-After %q %q, want %d %q %q", i, resp.StatusCode, resp.Header.Get("Retry-After"), body, want.status, want.retryAfter, want.body)
		}
	}
	var faults []string
	for _, r := range o.Requests() {
		faults = append(faults, r.Fault)
	}
	if got, want := strings.Join(faults, "; "), "status 503 (Retry-After: 1); status 429 (Retry-After: 2); pass; pass"; got != want {
		t.Errorf("recorded faults %q, want %q", got, want)
	}

	o.Fault("/busy", robotstest.Status(500))
	o.Fault("/busy") // removed
	if resp, _, _ := get(t, c, o.URL+"/busy", ""); resp.StatusCode != 200 {
		t.Errorf("after Fault(path): status %d, want 200", resp.StatusCode)
	}
}

func TestFaultStatus2xxKeepsBody(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /x\n")
	o.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=120", "ETag: \"v1\""))
	resp, body, err := get(t, &http.Client{}, o.URL+"/robots.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if body != "User-agent: *\nDisallow: /x\n" || resp.Header.Get("Cache-Control") != "max-age=120" ||
		resp.Header.Get("ETag") != `"v1"` || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("robots.txt: %v %q", resp.Header, body)
	}
}

func TestFaultStatusBadHeaderPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "robotstest: ") {
			t.Errorf("recovered %v, want a robotstest panic", r)
		}
	}()
	robotstest.Status(503, "Retry-After 1")
}

func TestFaultRobotsUnreachable(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "")
	o.Fault("/robots.txt", robotstest.Status(503, "Retry-After: 1"))
	_, _, err := get(t, o.Client("FooBot/1.0"), o.URL+"/page", "")
	var d *robotsguard.DisallowedError
	if !errors.As(err, &d) || d.Reason != robotsguard.ReasonUnreachable {
		t.Fatalf("err = %v, want a refusal: robots.txt unreachable", err)
	}
	if n := o.RobotsFetches(); n != 1 {
		t.Errorf("RobotsFetches() = %d, want 1 (no retries)", n)
	}
	if got, want := paths(o.Requests()), "GET /robots.txt"; got != want {
		t.Errorf("requests = %s, want %s", got, want)
	}
	if ftb.Failed() {
		t.Errorf("failed by %v", o.Disallowed())
	}
}

// The preset does not back off after a 429: the next request leaves at
// once. With pacing on, the 429's Retry-After moves the Origin's
// auto-advancing clock instead of waiting: the next request leaves two
// minutes later, at once.
func TestFault429Backoff(t *testing.T) {
	for _, pacing := range []bool{false, true} {
		t.Run(map[bool]string{false: "NoPacing", true: "pacing"}[pacing], func(t *testing.T) {
			o := robotstest.NewOrigin(t, "")
			o.Fault("/a", robotstest.Status(429, "Retry-After: 120"))
			tr := o.Transport("FooBot/1.0")
			if pacing {
				tr.NoPacing, tr.Delay = false, -1
			}
			c := &http.Client{Transport: tr}
			start := o.Clock.Now()
			if resp, _, err := get(t, c, o.URL+"/a", ""); err != nil || resp.StatusCode != 429 {
				t.Fatalf("GET /a: %v %v", resp, err)
			}
			if resp, _, err := get(t, c, o.URL+"/b", ""); err != nil || resp.StatusCode != 200 {
				t.Fatalf("GET /b: %v %v", resp, err)
			}
			rs := o.Requests()
			want := time.Duration(0)
			if pacing {
				want = 2 * time.Minute
			}
			if got := rs[len(rs)-1].Time.Sub(start); got != want {
				t.Errorf("/b received %v after the start, want %v", got, want)
			}
		})
	}
}

func TestFaultRedirectChain(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /admin/\n")
	o.Fault("/a", robotstest.Redirect("/b"))
	o.Fault("/b", robotstest.Redirect(o.URL+"/c")) // absolute
	resp, body, err := get(t, &http.Client{}, o.URL+"/a", "")
	if err != nil || resp.StatusCode != 200 || !strings.Contains(body, "page /c") {
		t.Fatalf("GET /a: %v %v %q", resp, err, body)
	}
	if got, want := paths(o.Requests()), "GET /a, GET /b, GET /c"; got != want {
		t.Errorf("requests = %s, want %s", got, want)
	}
	if rs := o.Requests(); rs[0].Status != 302 || rs[0].Fault != "status 302 (Location: /b)" {
		t.Errorf("first hop recorded as %+v", rs[0])
	}
	if ftb.Failed() {
		t.Errorf("failed by %v", o.Disallowed())
	}
}

func TestFaultRedirectIntoDisallowed(t *testing.T) {
	const robots = "User-agent: *\nDisallow: /admin/\n"

	t.Run("plain client", func(t *testing.T) {
		ftb := &fakeTB{TB: t}
		o := robotstest.NewOrigin(ftb, robots)
		o.Fault("/login", robotstest.Redirect("/admin/"))
		get(t, &http.Client{}, o.URL+"/login", "FooBot/1.0")
		ftb.End()
		errs := ftb.Errors()
		if len(errs) != 1 || !strings.Contains(errs[0], `GET /admin/ from "FooBot/1.0": disallowed by "Disallow: /admin/" (line 2`) {
			t.Errorf("failures = %q, want the redirect target flagged", errs)
		}
	})

	t.Run("robotsguard", func(t *testing.T) {
		ftb := &fakeTB{TB: t}
		o := robotstest.NewOrigin(ftb, robots)
		o.Fault("/login", robotstest.Redirect("/admin/"))
		_, _, err := get(t, o.Client("FooBot/1.0"), o.URL+"/login", "")
		if !errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("err = %v, want a refusal of the redirect", err)
		}
		if got, want := paths(o.Requests()), "GET /robots.txt, GET /login"; got != want {
			t.Errorf("requests = %s, want %s", got, want)
		}
		if ftb.Failed() {
			t.Errorf("failed by %v", o.Disallowed())
		}
	})
}

func TestFaultRedirectLoop(t *testing.T) {
	o := robotstest.NewOrigin(t, "")
	o.Fault("/a", robotstest.Redirect("/b"))
	o.Fault("/b", robotstest.Redirect("/a"))
	_, _, err := get(t, o.Client("FooBot/1.0"), o.URL+"/a", "")
	if err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Fatalf("err = %v, want the client to give up", err)
	}
	if n := len(o.Requests()); n != 11 { // robots.txt, then /a, /b, … ten times
		t.Errorf("%d requests, want 11", n)
	}
}

func TestFaultSlowBody(t *testing.T) {
	o := robotstest.NewUnstartedOrigin(t, "")
	o.Handler = robotstest.Pages(map[string]string{"/slow": "0123456789"})
	o.Start()
	gate := make(chan struct{})
	o.Fault("/slow", robotstest.SlowBody(gate))

	resp, err := o.Client("FooBot/1.0").Get(o.URL + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	half := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, half); err != nil || string(half) != "01234" {
		t.Fatalf("first half %q, %v", half, err)
	}
	rs := o.Requests()
	if last := rs[len(rs)-1]; last.URL != "/slow" || last.Status != 0 || last.Fault != "slow body" {
		t.Errorf("while held: %+v, want status 0 (under way)", last)
	}
	close(gate)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "56789" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}

// A held answer ends when the client goes away, and when the Origin is
// closed, gate or no gate: neither hangs.
func TestFaultSlowBodyEnds(t *testing.T) {
	t.Run("client gone", func(t *testing.T) {
		o := robotstest.NewOrigin(t, "")
		o.Fault("/slow", robotstest.SlowBody(make(chan struct{})))
		ctx, cancel := context.WithCancel(t.Context())
		req, _ := http.NewRequestWithContext(ctx, "GET", o.URL+"/slow", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.Canceled) {
			t.Errorf("reading after cancel: %v", err)
		}
		resp.Body.Close()
		o.Close() // waits for the handler
	})
	t.Run("origin closed", func(t *testing.T) {
		o := robotstest.NewOrigin(t, "")
		o.Fault("/slow", robotstest.SlowBody(make(chan struct{})))
		resp, err := http.Get(o.URL + "/slow")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		o.Close()
		if _, err := io.ReadAll(resp.Body); err != nil {
			t.Logf("body after Close: %v", err)
		}
	})
}

func TestFaultSlowRobots(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /x\n")
	gate := make(chan struct{})
	o.Fault("/robots.txt", robotstest.SlowBody(gate))
	c := o.Client("FooBot/1.0")
	done := make(chan error, 1)
	go func() {
		_, _, err := getNoFatal(c, o.URL+"/x")
		done <- err
	}()
	// A send on the unbuffered gate is received once the fetch is held
	// there: it releases that one answer.
	gate <- struct{}{}
	if n := o.RobotsFetches(); n != 1 {
		t.Errorf("RobotsFetches() = %d, want 1", n)
	}
	if err := <-done; !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("err = %v, want a refusal by the slow file's rules", err)
	}
}

func getNoFatal(c *http.Client, url string) (*http.Response, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func TestFaultHugeBody(t *testing.T) {
	o := robotstest.NewOrigin(t, "")
	o.Fault("/huge", robotstest.HugeBody(1<<20))
	resp, body, err := get(t, o.Client("FooBot/1.0"), o.URL+"/huge", "")
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength != 1<<20 || len(body) != 1<<20 || !strings.HasPrefix(body, "<!DOCTYPE html>\n<title>/huge</title>") {
		t.Errorf("Content-Length %d, %d bytes, starting %q", resp.ContentLength, len(body), body[:min(40, len(body))])
	}
}

// A robots.txt past the Transport's 500 KiB limit is read up to it: the
// rules at its top apply.
func TestFaultHugeRobots(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /x\n")
	o.Fault("/robots.txt", robotstest.HugeBody(4<<20))
	c := o.Client("FooBot/1.0")
	if _, _, err := get(t, c, o.URL+"/x", ""); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("GET /x: %v, want a refusal", err)
	}
	if resp, _, err := get(t, c, o.URL+"/y", ""); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /y: %v %v", resp, err)
	}
	if ftb.Failed() {
		t.Errorf("failed by %v", o.Disallowed())
	}
}

// A client that stops reading a huge body does not keep the Origin busy.
func TestFaultHugeBodyClientGone(t *testing.T) {
	o := robotstest.NewOrigin(t, "")
	o.Fault("/huge", robotstest.HugeBody(1<<40))
	resp, err := http.Get(o.URL + "/huge")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 1<<16)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	o.Close() // waits for the handler
}

func TestFaultString(t *testing.T) {
	for _, tc := range []struct {
		f    robotstest.Fault
		want string
	}{
		{robotstest.Pass(), "pass"},
		{robotstest.Status(503), "status 503"},
		{robotstest.Status(429, "Retry-After: 5", "X-B: 2"), "status 429 (Retry-After: 5, X-B: 2)"},
		{robotstest.Redirect("/x"), "status 302 (Location: /x)"},
		{robotstest.SlowBody(nil), "slow body"},
		{robotstest.HugeBody(10), "huge body (10 bytes)"},
		{robotstest.Handler(nil), "handler"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

// A Handler answers with the test's own handler, streamed: the client has
// the header and the first part while the handler still holds the rest.
// The Origin records the request before the handler runs, and the status
// it answered with; the Date is the Clock's unless the handler sets one.
func TestFaultHandler(t *testing.T) {
	o := robotstest.NewOrigin(t, "")
	held := make(chan struct{})
	o.Fault("/stream", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if n := len(o.Requests()); n != 1 {
			t.Errorf("%d requests recorded when the handler runs, want it recorded", n)
		}
		w.Header().Set("X-Own", "yes")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "first,")
		w.(http.Flusher).Flush()
		<-held
		io.WriteString(w, "rest")
	}))
	o.Fault("/dated", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
	}))
	resp, err := http.Get(o.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, len("first,"))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "first," {
		t.Fatalf("first part %q, %v", first, err)
	}
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("X-Own") != "yes" || resp.Header.Get("Date") != o.Clock.Now().Format(http.TimeFormat) {
		t.Errorf("%d %v, want the handler's status and header, and the Clock's Date", resp.StatusCode, resp.Header)
	}
	if r := o.Requests()[0]; r.Status != 0 || r.Fault != "handler" {
		t.Errorf("while held: %+v, want status 0 (under way), fault handler", r)
	}
	close(held)
	if rest, err := io.ReadAll(resp.Body); err != nil || string(rest) != "rest" {
		t.Fatalf("rest %q, %v", rest, err)
	}
	resp, _, err = get(t, &http.Client{}, o.URL+"/dated", "")
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Date") != "Mon, 02 Jan 2006 15:04:05 GMT" {
		t.Errorf("GET /dated: %v %v, want 200 with the handler's Date", resp, err)
	}
	o.Close() // the answers are over: their statuses are recorded
	if rs := o.Requests(); rs[0].Status != http.StatusAccepted || rs[1].Status != http.StatusOK {
		t.Errorf("recorded %d and %d, want 202 and 200 (nothing written)", rs[0].Status, rs[1].Status)
	}
}

// A robots.txt a Handler serves judges its agent: here each agent gets a
// file of its own, and each is judged by its own.
func TestFaultHandlerRobotsPerAgent(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /\n")
	o.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("User-Agent"), "FooBot") {
			io.WriteString(w, "User-agent: *\nDisallow: /foo\n")
			return
		}
		io.WriteString(w, "User-agent: *\nDisallow: /bar\n")
	}))
	c := &http.Client{}
	for _, ua := range []string{"FooBot/1.0", "BarBot/1.0"} {
		get(t, c, o.URL+"/robots.txt", ua)
	}
	get(t, c, o.URL+"/bar", "FooBot/1.0")
	get(t, c, o.URL+"/foo", "BarBot/1.0")
	if ftb.Failed() {
		t.Fatalf("failed by %v, want each agent judged by the file it got", o.Disallowed())
	}
	get(t, c, o.URL+"/foo", "FooBot/2.0")
	ftb.End()
	errs := ftb.Errors()
	want := `robotstest: GET /foo from "FooBot/2.0": disallowed by "Disallow: /foo" (line 2, group "*" at line 1) in the robots.txt a Handler served`
	if len(errs) != 1 || errs[0] != want {
		t.Errorf("failures = %q, want [%q]", errs, want)
	}
	if r := o.Requests()[4]; r.Robots != 0 || r.Decision.Allowed {
		t.Errorf("judged by version %d, allowed %v; want 0 (a Handler's file), disallowed", r.Robots, r.Decision.Allowed)
	}
}

// Through a Transport: a 304 to its conditional request keeps the file
// it holds, for the Origin as for the Transport; the request's validators
// are in the record.
func TestFaultHandlerRevalidation(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "")
	o.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, "User-agent: *\nDisallow: /x\n")
	}))
	c := o.Client("FooBot/1.0")
	if _, _, err := get(t, c, o.URL+"/x", ""); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatalf("GET /x: %v, want a refusal", err)
	}
	o.Clock.Advance(2 * time.Minute)
	if _, _, err := get(t, c, o.URL+"/x", ""); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Fatalf("GET /x after the 304: %v, want a refusal", err)
	}
	if _, _, err := get(t, c, o.URL+"/y", ""); err != nil {
		t.Fatal(err)
	}
	rs := o.Requests()
	if got, want := paths(rs), "GET /robots.txt, GET /robots.txt, GET /y"; got != want {
		t.Fatalf("requests = %s, want %s", got, want)
	}
	if rs[0].Header.Get("If-None-Match") != "" || rs[1].Header.Get("If-None-Match") != `"v1"` || rs[1].Status != http.StatusNotModified {
		t.Errorf("robots.txt requests %+v, %+v: want the second conditional, answered 304", rs[0], rs[1])
	}
	if ftb.Failed() {
		t.Errorf("failed by %v", o.Disallowed())
	}
}

// A coded robots.txt is not read: the Origin's own judges its agent.
func TestFaultHandlerCodedRobots(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /own\n")
	o.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "x-unknown")
		io.WriteString(w, "User-agent: *\nDisallow: /served\n")
	}))
	c := &http.Client{}
	get(t, c, o.URL+"/robots.txt", "FooBot/1.0")
	get(t, c, o.URL+"/served", "FooBot/1.0")
	get(t, c, o.URL+"/own", "FooBot/1.0")
	ftb.End()
	if errs := ftb.Errors(); len(errs) != 1 || !strings.Contains(errs[0], "GET /own") {
		t.Errorf("failures = %q, want /own flagged by the Origin's own file", errs)
	}
}
