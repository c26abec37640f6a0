package robotstest

import (
	"crypto/ed25519"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/policy"
)

// An Origin is a local web site (an httptest.Server) that serves a
// robots.txt and pages, records every request it receives, and fails the
// test on each request its robots.txt disallows for the agent that sent it.
//
// The agent is the product token of the request's User-Agent header
// (policy.ProductToken, which reads it by RFC 9110, as the Transport does):
// a request from "FooBot/1.0 (+https://…)" is judged by the rules for
// FooBot, one from "colly - https://…" by those for colly, and the failure names the rule and its
// line:
//
//	robotstest: GET /admin/ from "FooBot/1.0": disallowed by "Disallow: /admin/" (line 3, group "*" at line 1)
//
// A request is judged by the robots.txt its agent last fetched from the
// Origin (a crawler may use a cached copy; see SetRobots), or by the
// current one when the agent has fetched none. When that fetch got a 4xx
// (429 aside), everything is allowed; a 5xx or 429 allows nothing, unless
// an earlier copy stands in (RFC 9309 §2.3.1.3-4), or the fetches have
// failed for UnreachableLimit. GET and HEAD requests for
// /robots.txt are never flagged. Disallowed requests are answered as any
// other: the Origin fails the test, it does not hide the page.
//
// A disallowed request fails the test as it arrives (testing.TB's Fail:
// t.Failed reports it at once), and the test goes on. The failures are
// told when the test ends: the Origin is closed (waiting for the requests
// under way, so that none comes after the test), then each disallowed
// request is reported with Errorf, and the whole record is logged, at the
// line of the test that called NewOrigin or NewUnstartedOrigin (or that
// called a helper of its own, marked with t.Helper, that called them).
// They are not reported as they happen because the request is served on
// the server's goroutine, where the testing package would name a line
// inside robotstest.
//
// Set the exported fields before Start (NewOrigin starts at once). The
// methods are safe for concurrent use.
type Origin struct {
	// URL is the base URL of the Origin, "http://127.0.0.1:port", with no
	// trailing slash. Start sets it.
	URL string

	// Parser reads the robots.txt that judges requests. The zero value is
	// the RFC9309 dialect; set Dialect to policy.Google or
	// policy.Koster1996 to judge as those do.
	Parser policy.Parser

	// Handler serves every path but /robots.txt, with the answer recorded
	// as a whole before it is sent (see Pages). Nil means a small HTML
	// page with status 200 for any path.
	Handler http.Handler

	// Clock stamps the Date header of every answer and the Time of every
	// Request. Nil means a Clock reading 2025-01-01 00:00:00 UTC with
	// auto-advance on; Transport and Client share it.
	Clock *Clock

	// UnreachableLimit, when positive, is how long an agent's robots.txt
	// fetches may fail (5xx or 429) before it may take the file for
	// unavailable, as RFC 9309 §2.3.1.4 permits once it has been
	// unreachable for "a reasonably long period of time (for example, 30
	// days)": its requests are then all allowed, as after a 4xx. The time
	// counts, by Clock, from the first failed fetch since the agent's last
	// answer of another kind. Zero means never: however long its fetches
	// fail, an agent may fetch only what an earlier copy allows.
	UnreachableLimit time.Duration

	tb        testing.TB
	srv       *httptest.Server
	closing   chan struct{} // closed when Close begins: slow answers stop
	closeOnce sync.Once

	mu      sync.Mutex          // guards the fields below
	sigKeys []ed25519.PublicKey // RequireSignature's keys; nil: none required
	robots  *version            // the current robots.txt
	fetched map[string]*fetched // by agentKey
	faults  map[string]*faultList
	reqs    []Request
	fetches int // GET and HEAD requests for /robots.txt
}

// A version is one robots.txt the Origin has served, parsed.
type version struct {
	n     int // 1 for the first, then one more for each SetRobots
	text  string
	rules *policy.Robots
}

// A faultList is the faults given for a path, and how many requests were
// answered with them; the last fault answers the requests past the end.
type faultList struct {
	faults []Fault
	used   int
}

// A Request is what an Origin received, and what it made of it.
type Request struct {
	Method    string
	URL       string      // the path and query, as sent (RequestURI)
	UserAgent string      // the User-Agent header, as sent
	Header    http.Header // the header fields, as received
	Time      time.Time   // the Origin's Clock when the request arrived
	// Status is the status the Origin answered with, or 0 while the
	// answer is under way.
	Status int
	// Fault is the fault that answered ("pass" when none did).
	Fault string
	// Robots is the version of robots.txt that judged the request: 1 for
	// the text the Origin was made with, one more after each SetRobots;
	// 0 when no file did (see RobotsStatus), or when the file that did
	// was one a Handler served (see Handler).
	Robots int
	// Decision is robots.txt's verdict on the request for its agent:
	// BasisRobotsTxt for a request for /robots.txt itself. When the
	// agent's last robots.txt fetch got no file (RobotsStatus), the
	// verdict is the status's, with Basis zero.
	Decision policy.Decision
	// RobotsStatus is the status of the agent's last robots.txt fetch
	// before the request, or 0 when it made none.
	RobotsStatus int
	// SignedBy is the valid Web Bot Auth signature of the request, when
	// the Origin requires one (RequireSignature) and it has one.
	SignedBy SignedBy
	// SignatureErr is why the request has no valid signature, when the
	// Origin requires one (a *SignatureError); nil otherwise.
	SignatureErr error
}

// String gives the request and its verdict in one line:
//
//	GET /admin/ "FooBot/1.0" 200: disallowed by "Disallow: /admin/" (line 3, group "*" at line 1)
func (r Request) String() string {
	return fmt.Sprintf("%s %s %q %d: %s", r.Method, r.URL, r.UserAgent, r.Status, r.verdict())
}

// failure is the test failure a disallowed request is reported with.
func (r Request) failure() string {
	msg := fmt.Sprintf("robotstest: %s %s from %q: %s", r.Method, r.URL, r.UserAgent, r.verdict())
	switch {
	case r.Robots > 1:
		msg += " in robots.txt version " + strconv.Itoa(r.Robots)
	case r.Robots == 0 && r.Decision.Basis != 0:
		msg += " in the robots.txt a Handler served"
	}
	return msg
}

// verdict says why the request was allowed or not.
func (r Request) verdict() string {
	if r.Decision.Basis != 0 {
		return r.Decision.String()
	}
	switch s := r.RobotsStatus; {
	case s >= 400 && s < 500 && s != http.StatusTooManyRequests:
		return fmt.Sprintf("allowed: robots.txt answered %d, which allows everything (RFC 9309 §2.3.1.3)", s)
	case r.Decision.Allowed:
		return fmt.Sprintf("allowed: robots.txt answered %d, and has failed for UnreachableLimit or longer: it may be taken for unavailable (RFC 9309 §2.3.1.4)", s)
	default:
		return fmt.Sprintf("disallowed: robots.txt answered %d, which allows nothing, and no earlier copy stands in (RFC 9309 §2.3.1.4)", s)
	}
}

// NewOrigin starts an Origin that serves robots as its robots.txt, and a
// page for any other path. When the test ends, it closes the Origin and
// reports the requests robots.txt disallowed, at the line that called
// NewOrigin. To change its fields first, use NewUnstartedOrigin and Start.
func NewOrigin(tb testing.TB, robots string) *Origin {
	tb.Helper()
	o := NewUnstartedOrigin(tb, robots)
	o.Start()
	return o
}

// NewUnstartedOrigin returns an Origin that serves robots as its
// robots.txt, to be started with Start once its fields are set. When the
// test ends, it is closed, and its failures are reported at the line that
// called NewUnstartedOrigin.
func NewUnstartedOrigin(tb testing.TB, robots string) *Origin {
	tb.Helper()
	o := &Origin{tb: tb, closing: make(chan struct{})}
	o.robots = &version{n: 1, text: robots}
	tb.Cleanup(func() {
		tb.Helper()
		o.cleanup()
	})
	return o
}

// Start starts the Origin's server and sets URL. It panics if the Origin
// was started already.
func (o *Origin) Start() {
	if o.srv != nil {
		panic("robotstest: Origin started twice")
	}
	if o.Clock == nil {
		o.Clock = NewClock(defaultStart)
		o.Clock.SetAutoAdvance(true)
	}
	o.mu.Lock()
	o.robots.rules = o.Parser.Parse([]byte(o.robots.text))
	o.mu.Unlock()
	o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
	o.URL = o.srv.URL
}

// Close shuts the Origin down, ending slow answers, and waits for the
// requests under way. The test's cleanup calls it; calling it again does
// nothing.
func (o *Origin) Close() {
	o.closeOnce.Do(func() {
		close(o.closing)
		if o.srv != nil {
			o.srv.Close()
		}
	})
}

// cleanup closes the Origin and reports the disallowed requests. It runs
// as the test's cleanup, which NewUnstartedOrigin registered: marked a
// helper, it is reported at the line of the test that made the Origin
// (testing attributes a cleanup's failures to where Cleanup was called,
// past the helpers above it).
func (o *Origin) cleanup() {
	o.tb.Helper()
	o.Close()
	for _, r := range o.Requests() {
		if r.SignatureErr != nil {
			o.tb.Errorf("robotstest: %s %s from %q: %v", r.Method, r.URL, r.UserAgent, r.SignatureErr)
		}
	}
	bad := o.Disallowed()
	if len(bad) == 0 {
		return
	}
	for _, r := range bad {
		o.tb.Errorf("%s", r.failure())
	}
	all := o.Requests()
	var b strings.Builder
	b.WriteString("robotstest: ")
	switch {
	case len(all) == 1:
		fmt.Fprintf(&b, "the only request to %s was disallowed:", o.URL)
	case len(bad) == len(all):
		fmt.Fprintf(&b, "all %d requests to %s were disallowed, in order:", len(all), o.URL)
	case len(bad) == 1:
		fmt.Fprintf(&b, "1 of the %d requests to %s was disallowed; the Origin received, in order:", len(all), o.URL)
	default:
		fmt.Fprintf(&b, "%d of the %d requests to %s were disallowed; the Origin received, in order:", len(bad), len(all), o.URL)
	}
	for _, r := range all {
		fmt.Fprintf(&b, "\n\t%s", r)
	}
	o.tb.Logf("%s", b.String())
}

// SetRobots replaces the robots.txt the Origin serves. Requests are judged
// by the new text once their agent has fetched it (until then, by the copy
// it fetched before, which a crawler may keep: RFC 9309 §2.4), or at once
// for agents that have fetched no robots.txt.
func (o *Origin) SetRobots(robots string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.robots = &version{n: o.robots.n + 1, text: robots, rules: o.Parser.Parse([]byte(robots))}
}

// RequireSignature makes the Origin fail the test on every request that
// carries no valid Web Bot Auth signature by one of keys (see
// VerifySignature, at the Origin's Clock): robots.txt fetches, pages and
// redirects alike, each with the reason, reported when the test ends as
// disallowed requests are. The requests are answered all the same; each
// Request tells its SignedBy or SignatureErr. No key (or never calling it)
// requires none.
func (o *Origin) RequireSignature(keys ...ed25519.PublicKey) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sigKeys = append([]ed25519.PublicKey(nil), keys...)
}

// Fault makes the Origin answer requests for path (compared with the
// URL's path, without its query; "/robots.txt" for robots.txt) with the
// faults given: the first request with the first, the next with the
// second, and every request past the end of the list with the last one.
// So
//
//	o.Fault("/robots.txt", robotstest.Status(503, "Retry-After: 1"))
//
// fails every fetch of robots.txt until the next call of Fault for that
// path, while Fault(path, Status(429), Pass()) fails only the first request.
// Fault with no fault removes those of path.
func (o *Origin) Fault(path string, faults ...Fault) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(faults) == 0 {
		delete(o.faults, path)
		return
	}
	if o.faults == nil {
		o.faults = map[string]*faultList{}
	}
	o.faults[path] = &faultList{faults: append([]Fault(nil), faults...)}
}

// Requests returns what the Origin has received, in the order it arrived,
// requests for robots.txt included.
func (o *Origin) Requests() []Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Request(nil), o.reqs...)
}

// Disallowed returns the requests that robots.txt disallowed for their
// agent: those the Origin failed the test for.
func (o *Origin) Disallowed() []Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	var bad []Request
	for _, r := range o.reqs {
		if !r.Decision.Allowed {
			bad = append(bad, r)
		}
	}
	return bad
}

// RobotsFetches returns the number of GET and HEAD requests for
// /robots.txt the Origin has received, answered with a fault or not.
func (o *Origin) RobotsFetches() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.fetches
}

// fetched is what an agent got from its robots.txt fetches: the last file
// (a 2xx), the status of the last fetch, and since when its fetches have
// failed (5xx or 429), if they have.
type fetched struct {
	copy         *version
	status       int
	failingSince time.Time
}

// agentKey is the key of an agent in Origin.fetched.
func agentKey(userAgent string) string { return strings.ToLower(groupAgent(userAgent)) }

// groupAgent returns what selects the group of the agent whose User-Agent
// is ua: its product token, read by RFC 9110 as the Transport reads it, or
// ua itself when it has none.
func groupAgent(ua string) string {
	if tok := policy.ProductToken(ua); tok != "" {
		return tok
	}
	return ua
}

// serve records r, judges it, and answers it.
func (o *Origin) serve(w http.ResponseWriter, r *http.Request) {
	now := o.Clock.Now()
	ua := r.Header.Get("User-Agent")
	isRobots := r.URL.Path == "/robots.txt" && (r.Method == http.MethodGet || r.Method == http.MethodHead)

	o.mu.Lock()
	f := Pass()
	if l := o.faults[r.URL.Path]; l != nil {
		f = l.faults[min(l.used, len(l.faults)-1)]
		l.used++
	}
	v := o.robots
	var d policy.Decision
	if isRobots {
		o.fetches++
		d = policy.Decision{Allowed: true, Basis: policy.BasisRobotsTxt}
	}
	req := Request{Method: r.Method, URL: r.RequestURI, UserAgent: ua, Header: r.Header.Clone(), Time: now, Fault: f.String()}
	if len(o.sigKeys) > 0 {
		req.SignedBy, req.SignatureErr = VerifySignature(r, now, o.sigKeys...)
	}
	if !isRobots {
		// The file the agent holds, or the status it got instead.
		held := o.fetched[agentKey(ua)]
		switch {
		case held == nil:
		case held.status >= 200 && held.status < 300:
			v = held.copy
		case held.status >= 400 && held.status < 500 && held.status != http.StatusTooManyRequests:
			v = nil
			d = policy.Decision{Allowed: true}
		case o.UnreachableLimit > 0 && now.Sub(held.failingSince) >= o.UnreachableLimit:
			v = nil
			d = policy.Decision{Allowed: true}
		case held.copy != nil: // unreachable, but a copy stands in
			v = held.copy
		default:
			v = nil
			d = policy.Decision{Allowed: false}
		}
		if held != nil {
			req.RobotsStatus = held.status
		}
		if v != nil {
			d = v.rules.Group(groupAgent(ua)).DecideURL(r.URL)
		}
	}
	req.Decision = d
	if v != nil {
		req.Robots = v.n
	} else {
		v = o.robots
	}
	i := len(o.reqs)
	o.reqs = append(o.reqs, req)
	o.mu.Unlock()

	if !d.Allowed || req.SignatureErr != nil {
		// Marked at once, reported at the test's line by cleanup: this
		// goroutine is the server's, where testing would name a line of
		// this file.
		o.tb.Fail()
	}

	w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	var status int
	if f.kind == faultHandler {
		// The test's own answer, and for robots.txt the file it served.
		c := &capture{ResponseWriter: w}
		if isRobots && r.Method == http.MethodGet {
			c.keep = min(max(o.Parser.MaxSize, policy.DefaultMaxSize), 1<<30) + 1 // as far as the Parser reads, and a byte to tell a cut
		}
		f.handler(c, r)
		status = c.done()
		if c.keep > 0 && !c.coded && status >= 200 && status < 300 {
			v = &version{text: string(c.body), rules: o.Parser.Parse(c.body)}
		}
	} else {
		// The answer the path has without a fault.
		rec := httptest.NewRecorder()
		if isRobots {
			rec.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(rec, v.text)
		} else {
			h := o.Handler
			if h == nil {
				h = http.HandlerFunc(defaultPage)
			}
			h.ServeHTTP(rec, r)
		}
		status = o.answer(w, r, f, rec)
	}

	o.mu.Lock()
	o.reqs[i].Status = status
	if isRobots && r.Method == http.MethodGet && (status < 300 || status >= 400) {
		if o.fetched == nil {
			o.fetched = map[string]*fetched{}
		}
		held := o.fetched[agentKey(ua)]
		if held == nil {
			held = &fetched{}
			o.fetched[agentKey(ua)] = held
		}
		held.status = status
		switch {
		case status >= 200 && status < 300:
			held.copy = v
			held.failingSince = time.Time{}
		case status < 500 && status != http.StatusTooManyRequests:
			held.failingSince = time.Time{}
		case held.failingSince.IsZero():
			held.failingSince = now
		}
	}
	o.mu.Unlock()
}

// capture passes what a Handler fault writes on to the client, and keeps
// its status, and up to keep bytes of its body unless it is coded.
type capture struct {
	http.ResponseWriter
	status int
	keep   int // bytes of the body to keep; 0 for none
	coded  bool
	body   []byte
}

// header notes the status of the answer, once its header goes out.
func (c *capture) header(code int) {
	if c.status != 0 {
		return
	}
	c.status = code
	if ce := c.Header().Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		c.coded = true
	}
}

func (c *capture) WriteHeader(code int) {
	if code >= 200 { // not an informational answer, which another follows
		c.header(code)
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(p []byte) (int, error) {
	c.header(http.StatusOK)
	if n := min(len(p), c.keep-len(c.body)); n > 0 && !c.coded {
		c.body = append(c.body, p[:n]...)
	}
	return c.ResponseWriter.Write(p)
}

// Flush sends what was written so far, the header at least.
func (c *capture) Flush() {
	c.header(http.StatusOK)
	http.NewResponseController(c.ResponseWriter).Flush()
}

// Unwrap gives http.NewResponseController the connection's writer.
func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// done returns the status the answer went out with: 200 when the handler
// wrote nothing, as net/http sends then.
func (c *capture) done() int {
	c.header(http.StatusOK)
	return c.status
}

// answer writes the answer to r that f makes of rec, and returns its
// status.
func (o *Origin) answer(w http.ResponseWriter, r *http.Request, f Fault, rec *httptest.ResponseRecorder) int {
	status, body := rec.Code, rec.Body.Bytes()
	if f.kind == faultStatus && (f.status < 200 || f.status > 299) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		status = f.status
		body = []byte(strconv.Itoa(status) + " " + http.StatusText(status) + "\n")
	} else {
		copyHeader(w.Header(), rec.Header())
	}
	switch f.kind {
	case faultStatus:
		copyHeader(w.Header(), f.header)
		if f.status >= 200 && f.status <= 299 {
			status = f.status
		}
	case faultHuge:
		w.Header().Set("Content-Length", strconv.FormatInt(max(f.size, int64(len(body))), 10))
		w.WriteHeader(status)
		writeHuge(w, r, body, f.size, o.closing)
		return status
	case faultSlow:
		w.Header().Del("Content-Length")
		w.WriteHeader(status)
		half := len(body) / 2
		w.Write(body[:half])
		http.NewResponseController(w).Flush()
		select {
		case <-f.gate:
		case <-r.Context().Done():
			return status
		case <-o.closing:
			return status
		}
		w.Write(body[half:])
		return status
	}
	w.WriteHeader(status)
	w.Write(body)
	return status
}

// writeHuge writes body, then filler lines of '#' to size bytes in all;
// it stops when the client goes away or closing is closed.
func writeHuge(w io.Writer, r *http.Request, body []byte, size int64, closing <-chan struct{}) {
	if _, err := w.Write(body); err != nil {
		return
	}
	line := []byte(strings.Repeat("#", 63) + "\n")
	chunk := []byte(strings.Repeat(string(line), 512)) // 32 KiB
	for left := size - int64(len(body)); left > 0; {
		select {
		case <-r.Context().Done():
			return
		case <-closing:
			return
		default:
		}
		n := min(left, int64(len(chunk)))
		if _, err := w.Write(chunk[:n]); err != nil {
			return
		}
		left -= n
	}
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
}

// defaultPage answers any path with a small HTML page that names it.
func defaultPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	p := html.EscapeString(r.URL.Path)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<title>%s</title>\n<p>robotstest page %s</p>\n", p, p)
}

// Pages returns a handler, for Origin.Handler, that answers with the body
// pages maps the request's path and query to ("/search?q=a"), or else its
// path ("/about"), with status 200; and with 404 Not Found for any other
// path. The Content-Type is sniffed from the body (an HTML page begins
// with a tag).
func Pages(pages map[string]string) http.Handler {
	m := make(map[string]string, len(pages))
	for k, v := range pages {
		m[k] = v
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.RequestURI()]
		if !ok {
			body, ok = m[r.URL.Path]
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, body)
	})
}
