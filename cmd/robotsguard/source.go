package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
)

// isURL reports whether s names a live origin rather than a file.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// hop is one response received while fetching a robots.txt.
type hop struct {
	Method   string
	URL      string
	Status   int
	Header   http.Header
	Location string
	// SignatureInput and SignatureAgent are the request's fields, when
	// it was signed (-key).
	SignatureInput, SignatureAgent string
	body                           *bytes.Buffer // what the Transport read of the body
}

// recorder is the Base of the Transports the command builds: it sends
// through a clone of http.DefaultTransport and keeps every response it passes on,
// with the part of the body the Transport read, so that the command can
// show redirects, validators and the bytes the Transport parsed. A
// request that names no agent is sent with the command's own
// User-Agent, not Go's default.
type recorder struct {
	base      http.RoundTripper
	userAgent string
	mu        sync.Mutex
	hops      []*hop
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") == "" {
		// A RoundTripper changes nothing of the request it is given.
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", r.userAgent)
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	h := &hop{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode,
		Header: resp.Header.Clone(), Location: resp.Header.Get("Location"), body: new(bytes.Buffer),
		SignatureInput: req.Header.Get("Signature-Input"), SignatureAgent: req.Header.Get("Signature-Agent")}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, lockedWriter{&r.mu, h.body}), resp.Body}
	r.mu.Lock()
	r.hops = append(r.hops, h)
	r.mu.Unlock()
	return resp, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// chain returns the responses received for robotsURL: the redirects
// followed from it and the final response, of the last attempt.
func (r *recorder) chain(robotsURL string) []*hop {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*hop
	for _, h := range r.hops {
		if h.URL == robotsURL {
			out = out[:0] // a retry starts the chain again
		}
		if h.URL == robotsURL || len(out) > 0 && out[len(out)-1].Status/100 == 3 {
			out = append(out, h)
		}
	}
	return out
}

// live fetches robots.txt files with a robotsguard.Transport, as a
// crawler using it would, and keeps what its Observer reports.
type live struct {
	t   *robotsguard.Transport
	rec *recorder

	mu     sync.Mutex
	events []robotsguard.FetchEvent
}

// newLive returns a live fetcher for agent, which it sends. For "*", no
// crawler in particular, the Transport has no UserAgent: it follows the
// "*" group, and its fetches carry the command's own User-Agent
// (robotsguard-cli/VERSION), which the recorder adds; the requests the
// command decides carry an empty User-Agent (see request), so that they
// select the same group and file, not those of Go's default User-Agent.
func newLive(agent string, p policy.Parser, acapOn bool) *live {
	// The recorder hides the *http.Transport from the robotsguard
	// Transport, which would bound the response header of its fetches:
	// bound it here.
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxResponseHeaderBytes = robotsguard.MaxFetchHeaderBytes
	l := &live{rec: &recorder{base: base, userAgent: readBuildInfo().userAgent()}}
	if agent == "*" {
		agent = ""
	}
	l.t = &robotsguard.Transport{
		Base:      l.rec,
		UserAgent: agent,
		Parser:    p,
		Observer: &robotsguard.Observer{Fetched: func(ev robotsguard.FetchEvent) {
			l.mu.Lock()
			l.events = append(l.events, ev)
			l.mu.Unlock()
		}},
	}
	if acapOn {
		l.t.ACAP = &robotsguard.ACAPOptions{}
	}
	return l
}

// request returns a request for u to ask the Transport about, as the
// agent of l: the Transport's UserAgent, or, for "*", an empty
// User-Agent, which follows the "*" group (without one, the Transport
// would decide for Go's default User-Agent, Go-http-client/1.1, and fetch
// the robots.txt again as that agent).
func (l *live) request(ctx context.Context, u *url.URL) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header["User-Agent"] = []string{l.t.UserAgent}
	return req, nil
}

// event returns the last fetch event of robotsURL.
func (l *live) event(robotsURL string) (robotsguard.FetchEvent, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.events) - 1; i >= 0; i-- {
		if l.events[i].URL == robotsURL {
			return l.events[i], true
		}
	}
	return robotsguard.FetchEvent{}, false
}

// snapshot fetches the robots.txt of rawURL's origin.
func (l *live) snapshot(ctx context.Context, rawURL string) (*robotsguard.Snapshot, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, usagef("%v", err)
	}
	snap, err := l.t.Snapshot(ctx, u)
	if err != nil {
		return nil, &failure{err}
	}
	return snap, nil
}

// body returns the bytes of the robots.txt that the Transport read.
func (l *live) body(robotsURL string) []byte {
	ch := l.rec.chain(robotsURL)
	if len(ch) == 0 {
		return nil
	}
	l.rec.mu.Lock()
	defer l.rec.mu.Unlock()
	return bytes.Clone(ch[len(ch)-1].body.Bytes())
}

// source is a robots.txt read from a file, stdin or a live origin.
type source struct {
	Name   string // the file, "-" for stdin, or the robots.txt URL
	body   []byte
	robots *policy.Robots
	snap   *robotsguard.Snapshot // a live origin's
	live   *live
	report []policy.LineReport // of body, read when needed
}

// load reads src for agent: "-" (stdin), a file, or an http(s) URL whose origin's
// robots.txt is fetched as the Transport fetches it. A live robots.txt
// that cannot be fetched is a failure; one that is unavailable (a 4xx)
// is an empty file, which allows everything, as the Transport reads it.
func (e *env) load(src, agent string, p policy.Parser) (*source, error) {
	return e.loadSource(src, agent, p, true)
}

// loadSource is load; when strict is false, a live robots.txt that
// disallows everything or is unreachable is not a failure: the source
// holds its snapshot, for verdicts as the Transport gives them.
func (e *env) loadSource(src, agent string, p policy.Parser, strict bool) (*source, error) {
	s := &source{Name: src}
	switch {
	case src == "-":
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return nil, fail("reading stdin: %v", err)
		}
		s.body = b
	case isURL(src):
		s.live = newLive(agent, p, false)
		snap, err := s.live.snapshot(e.ctx, src)
		if err != nil {
			return nil, err
		}
		s.snap, s.Name = snap, snap.URL
		switch snap.Access {
		case robotsguard.AccessUnreachable:
			if strict {
				return nil, fail("%s is unreachable: %s", snap.URL, unprefixed(snap.Err))
			}
		case robotsguard.AccessDisallowAll:
			if strict {
				return nil, fail("%s: status %d disallows everything", snap.URL, snap.Status)
			}
		case robotsguard.AccessRules:
			s.body = s.live.body(snap.URL)
		}
		s.robots = snap.Rules
		return s, nil
	default:
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, &failure{err}
		}
		s.body = b
	}
	s.robots = p.Parse(s.body)
	return s, nil
}

// parseDialect reads a -dialect value.
func parseDialect(s string) (policy.Dialect, error) {
	switch strings.ToLower(s) {
	case "rfc9309", "":
		return policy.RFC9309, nil
	case "google":
		return policy.Google, nil
	case "koster1996":
		return policy.Koster1996, nil
	}
	return 0, usagef("unknown dialect %q: rfc9309, google or koster1996", s)
}

// dialectName is the -dialect spelling of d.
func dialectName(d policy.Dialect) string {
	switch d {
	case policy.Google:
		return "google"
	case policy.Koster1996:
		return "koster1996"
	}
	return "rfc9309"
}

// requestLine matches the request of a common or combined access-log
// line: "GET /a?b HTTP/1.1".
var requestLine = regexp.MustCompile(`"[A-Z]+ (\S+) HTTP/[0-9.]+"`)

// readURLs reads a URL list or a crawl log. Of each line it takes the
// request target of an access-log line ("GET /a HTTP/1.1"), else the
// first http(s) URL (the scheme in any case, trailing punctuation
// trimmed), else the line's first field when it is a path ("/a?b").
// Blank lines and lines starting with '#' are skipped; dropped counts
// the other lines that yield no URL.
func readURLs(r io.Reader) (urls []string, dropped int, err error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if m := requestLine.FindStringSubmatch(line); m != nil {
			urls = append(urls, m[1])
			continue
		}
		if i := indexURL(line); i >= 0 {
			end := strings.IndexAny(line[i:], " \t\"'<>")
			if end < 0 {
				end = len(line) - i
			}
			u := strings.TrimRight(line[i:i+end], ")]},;.:!\"'")
			if len(u) > len("https://") {
				urls = append(urls, u)
				continue
			}
		}
		if line[0] == '/' {
			urls = append(urls, strings.Fields(line)[0])
			continue
		}
		dropped++
	}
	return urls, dropped, nil
}

// indexURL returns the index of the first "http://" or "https://" in s,
// in any case.
func indexURL(s string) int {
	l := strings.ToLower(s)
	i, j := strings.Index(l, "http://"), strings.Index(l, "https://")
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

// checkURLArgs rejects URL arguments that are neither a path nor an
// http(s) URL, and flags given after the arguments.
func checkURLArgs(args []string) error {
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
			return usagef("flag %q after the arguments: flags go before arguments", a)
		case strings.HasPrefix(a, "/"), isURL(strings.ToLower(a)):
		default:
			return usagef("%q is neither a path (starting with /) nor an http(s) URL", a)
		}
	}
	return nil
}

// urlsFrom reads the -urls file ("-" for stdin) and appends args.
func (e *env) urlsFrom(file string, args []string) ([]string, error) {
	if err := checkURLArgs(args); err != nil {
		return nil, err
	}
	var urls []string
	if file != "" {
		var r io.Reader = e.stdin
		if file != "-" {
			f, err := os.Open(file)
			if err != nil {
				return nil, &failure{err}
			}
			defer f.Close()
			r = f
		}
		u, dropped, err := readURLs(r)
		if err != nil {
			return nil, fail("reading %s: %v", file, err)
		}
		if dropped > 0 {
			fmt.Fprintf(e.stderr, "robotsguard: %s: %d lines with no URL or path skipped\n", file, dropped)
		}
		if len(u) == 0 {
			return nil, fail("%s: no URL or path found", file)
		}
		urls = u
	}
	return append(urls, args...), nil
}

// progress shows "checked n/total" on a terminal for long lists.
type progress struct {
	e     *env
	total int
	shown bool
}

func (p *progress) step(n int) {
	if !p.e.tty || p.total < 200 || n%100 != 0 && n != p.total {
		return
	}
	fmt.Fprintf(p.e.stderr, "\rchecked %d/%d", n, p.total)
	p.shown = true
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
	}
}
