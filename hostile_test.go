package robotsguard_test

// The hostile-origin campaign: origins that stall, flood, reset, loop,
// lie about their content or their status. Each test asserts what the
// origin received (no request its robots.txt forbids, robots.txt requests
// within the retry budget), that the decision came within FetchTimeout,
// and the memory a fetch allocated. No test sleeps: servers stall on
// channels, and their loops end when the connection or the test does.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/robotstest"
)

const (
	// The FetchTimeout of origins that stall: every fetch from them
	// times out. Origins whose file is read get a longer one, which a
	// slow machine under -race needs to read and parse 500 KiB; they
	// answer at once.
	stallTimeout = 250 * time.Millisecond
	readTimeout  = 5 * time.Second
	// The memory a robots.txt fetch may allocate: the 500 KiB it may read,
	// grown into a buffer, parsed and held, with room to spare. An endless
	// header allocated about 140 MiB before the header was bounded.
	fetchAllocBound = 16 << 20
	retryBudget     = 1 + robotsguard.DefaultRetryMax
)

// rawServer is a TCP listener on loopback that reads one HTTP request per
// connection and lets a handler answer /robots.txt byte by byte; other
// paths get a short 200. It records the paths it was asked for.
type rawServer struct {
	ln   net.Listener
	URL  string
	quit chan struct{} // closed when the test ends: handlers return

	mu    sync.Mutex
	paths []string
	conns []net.Conn
	wg    sync.WaitGroup
}

func newRawServer(t *testing.T, robots func(c net.Conn, quit <-chan struct{})) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, URL: "http://" + ln.Addr().String(), quit: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				s.mu.Lock()
				s.paths = append(s.paths, req.URL.RequestURI())
				s.mu.Unlock()
				if req.URL.Path != "/robots.txt" {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
					return
				}
				robots(c, s.quit)
			}()
		}
	}()
	t.Cleanup(func() {
		close(s.quit)
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// count returns how many requests for uri the server got.
func (s *rawServer) count(uri string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.paths {
		if p == uri {
			n++
		}
	}
	return n
}

// flood writes chunk to c until the write fails or the test ends.
func flood(c net.Conn, quit <-chan struct{}, chunk []byte) {
	for {
		select {
		case <-quit:
			return
		default:
		}
		if _, err := c.Write(chunk); err != nil {
			return
		}
	}
}

// trickle writes s to c a byte per tick, then stalls, until the write
// fails or the test ends.
func trickle(c net.Conn, quit <-chan struct{}, s string) {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-quit:
			return
		case <-tick.C:
		}
		if i >= len(s) {
			continue // a stall that keeps the connection open
		}
		if _, err := c.Write([]byte{s[i]}); err != nil {
			return
		}
	}
}

// hostileHarness is a harness whose FetchTimeout is timeout.
func hostileHarness(t *testing.T, timeout time.Duration, configure ...func(*robotsguard.Transport)) *harness {
	return newHarness(t, append([]func(*robotsguard.Transport){func(tr *robotsguard.Transport) {
		tr.FetchTimeout = timeout
	}}, configure...)...)
}

// measured runs f, and fails the test when it took longer than h's
// FetchTimeout allows, or allocated more than allocBound bytes. Requests
// stop waiting a quarter of FetchTimeout after it, should Base not honour
// its context; a little more is left for a loaded test machine.
func measured(t *testing.T, h *harness, allocBound uint64, f func()) {
	t.Helper()
	timeout := h.tr.FetchTimeout
	budget := timeout + timeout/4 + 750*time.Millisecond
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if elapsed > budget {
		t.Errorf("decided in %v, more than FetchTimeout (%v) allows", elapsed, timeout)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > allocBound {
		t.Errorf("allocated %d MiB, more than %d MiB", d>>20, allocBound>>20)
	}
}

// TestHostileStalls: origins that answer too slowly or not at all. The
// decision comes within FetchTimeout, and it is a refusal: nothing was
// read, so nothing is allowed.
func TestHostileStalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		robots func(c net.Conn, quit <-chan struct{})
	}{
		{"accept and never answer", func(c net.Conn, quit <-chan struct{}) { <-quit }},
		{"slowloris status line", func(c net.Conn, quit <-chan struct{}) {
			trickle(c, quit, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
		}},
		{"slowloris header", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\n")
			trickle(c, quit, strings.Repeat("X-Slow: 1\r\n", 1000))
		}},
		{"slowloris body", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
			trickle(c, quit, "User-agent: *\nAllow: /\n"+strings.Repeat("#", 99000))
		}},
		{"slowloris chunked body", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
			trickle(c, quit, strings.Repeat("1\r\n#\r\n", 10000))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, tc.robots)
			h := hostileHarness(t, stallTimeout)
			measured(t, h, fetchAllocBound, func() { h.refused(s.URL+"/page", robotsguard.ReasonUnreachable) })
			if n := s.count("/page"); n != 0 {
				t.Errorf("the origin got /page %d times", n)
			}
			if n := s.count("/robots.txt"); n < 1 || n > retryBudget {
				t.Errorf("robots.txt requested %d times, budget %d", n, retryBudget)
			}
		})
	}
}

// TestHostileFloods: origins that send without end, or more than a
// robots.txt may hold. What a fetch reads is bounded, headers included,
// whatever Base is among *http.Transport and nil (which fetch through a
// clone that bounds the header to robotsguard.MaxFetchHeaderBytes).
func TestHostileFloods(t *testing.T) {
	rules := "User-agent: *\nDisallow: /x\n"
	for _, tc := range []struct {
		name   string
		robots func(c net.Conn, quit <-chan struct{})
		reason robotsguard.Reason // of the refusal of /x
	}{
		{"endless header line", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Endless: ")
			flood(c, quit, bytes.Repeat([]byte("a"), 32<<10))
		}, robotsguard.ReasonUnreachable},
		{"endless header fields", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\n")
			flood(c, quit, bytes.Repeat([]byte("X-Field: value\r\n"), 2048))
		}, robotsguard.ReasonUnreachable},
		{"endless status line", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 ")
			flood(c, quit, bytes.Repeat([]byte("O"), 32<<10))
		}, robotsguard.ReasonUnreachable},
		{"endless informational responses", func(c net.Conn, quit <-chan struct{}) {
			flood(c, quit, bytes.Repeat([]byte("HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"), 512))
		}, robotsguard.ReasonUnreachable},
		{"endless body", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n"+rules)
			flood(c, quit, bytes.Repeat([]byte("Disallow: /more\n"), 4096))
		}, robotsguard.ReasonRule},
		{"endless chunked body", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(rules), rules))
			chunk := strings.Repeat("#", 4096)
			flood(c, quit, []byte(strings.Repeat(fmt.Sprintf("%x\r\n%s\r\n", len(chunk), chunk), 16)))
		}, robotsguard.ReasonRule},
		{"10 MB line", func(c net.Conn, quit <-chan struct{}) {
			line := "Disallow: /" + strings.Repeat("a", 10<<20) + "\n"
			io.WriteString(c, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(rules)+len(line)))
			io.WriteString(c, rules+line)
		}, robotsguard.ReasonRule},
	} {
		for _, base := range []string{"http.Transport", "nil"} {
			t.Run(tc.name+"/"+base, func(t *testing.T) {
				s := newRawServer(t, tc.robots)
				timeout := stallTimeout // the header floods fail at once
				if tc.reason == robotsguard.ReasonRule {
					timeout = readTimeout
				}
				h := hostileHarness(t, timeout, func(tr *robotsguard.Transport) {
					if base == "nil" {
						tr.Base = nil
					}
				})
				measured(t, h, retryBudget*fetchAllocBound, func() { h.refused(s.URL+"/x", tc.reason) })
				if n := s.count("/x"); n != 0 {
					t.Errorf("the origin got /x %d times", n)
				}
				if n := s.count("/robots.txt"); n < 1 || n > retryBudget {
					t.Errorf("robots.txt requested %d times, budget %d", n, retryBudget)
				}
			})
		}
	}
}

// TestHostileResets: a connection that ends mid-body, cleanly (FIN), by a
// reset (RST), or within a chunked body, is an incomplete file: the fetch
// fails (nothing allowed without a copy), and is not read as a short file
// that would allow everything.
func TestHostileResets(t *testing.T) {
	head := "User-agent: *\nDisallow: /x\n"
	for _, tc := range []struct {
		name   string
		robots func(c net.Conn, quit <-chan struct{})
	}{
		{"FIN mid-body", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nUser-agent: *\nAll")
		}},
		{"RST mid-body", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nUser-agent: *\nAll")
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // Close sends RST
			}
		}},
		{"FIN mid-chunked-body", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nUser-agent: *\nAl\r\n")
		}},
		{"FIN in a chunk", func(c net.Conn, quit <-chan struct{}) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\nUser-agent: *\nAl")
		}},
		{"RST before the status line", func(c net.Conn, quit <-chan struct{}) {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, tc.robots)
			h := hostileHarness(t, readTimeout)
			measured(t, h, retryBudget*fetchAllocBound, func() { h.refused(s.URL+"/y", robotsguard.ReasonUnreachable) })
			if n := s.count("/y"); n != 0 {
				t.Errorf("the origin got /y %d times", n)
			}
			if n := s.count("/robots.txt"); n < 1 || n > retryBudget {
				t.Errorf("robots.txt requested %d times, budget %d", n, retryBudget)
			}
		})
	}

	// With a copy of the file, the copy stands in while resets go on.
	var mu sync.Mutex
	good := true
	s := newRawServer(t, func(c net.Conn, quit <-chan struct{}) {
		mu.Lock()
		g := good
		mu.Unlock()
		if g {
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: %d\r\n\r\n%s", len(head), head)
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nUser-agent: *\nAll")
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
	})
	h := hostileHarness(t, readTimeout)
	h.refused(s.URL+"/x", robotsguard.ReasonRule)
	mu.Lock()
	good = false
	mu.Unlock()
	h.clock.Advance(2 * time.Minute)
	measured(t, h, retryBudget*fetchAllocBound, func() { h.refused(s.URL+"/x", robotsguard.ReasonRule) })
	h.allowed(s.URL + "/y")
	if n := s.count("/x"); n != 0 {
		t.Errorf("the origin got /x %d times", n)
	}
	if n := s.count("/robots.txt"); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2: a body cut short is not retried at once", n)
	}
}

// TestHostileGzipBomb: 1 GiB of zeros after the rules, gzip-coded into
// about a MiB (gzip members, each of 1 MiB of zeros, one after another).
// Whether Base decodes it (transparent gzip) or the fetcher does
// (compression off in Base), no more than the size limit is decoded, and
// the rules at its head are read.
func TestHostileGzipBomb(t *testing.T) {
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	bomb := bytes.NewBuffer(member([]byte("User-agent: *\nDisallow: /x\n")))
	zeros := member(make([]byte, 1<<20))
	for range 1024 {
		bomb.Write(zeros)
	}
	for _, disable := range []bool{false, true} {
		t.Run(fmt.Sprintf("DisableCompression=%v", disable), func(t *testing.T) {
			h := hostileHarness(t, readTimeout, func(tr *robotsguard.Transport) {
				tr.Base = &http.Transport{DisableCompression: disable}
			})
			s := h.origin("")
			s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(bomb.Bytes())
			}))
			measured(t, h, fetchAllocBound, func() { h.refused(s.URL+"/x", robotsguard.ReasonRule) })
			h.allowed(s.URL + "/y")
			if n := count(s, "/x"); n != 0 {
				t.Errorf("the origin got /x %d times", n)
			}
		})
	}
}

// TestHostileRedirects: a redirect loop and a 50-hop chain are followed
// for five hops (RFC 9309 §2.3.1.2), then the file is unavailable:
// requests are allowed, and the origin gets six robots.txt requests, not
// fifty.
func TestHostileRedirects(t *testing.T) {
	for _, tc := range []struct {
		name string
		next func(r *http.Request) string
	}{
		{"loop", func(r *http.Request) string { return "/robots.txt" }},
		{"50-hop chain", func(r *http.Request) string {
			var n int
			fmt.Sscan(r.URL.Query().Get("hop"), &n)
			if n >= 50 {
				return ""
			}
			return fmt.Sprintf("/robots.txt?hop=%d", n+1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			hops := 0
			h := hostileHarness(t, readTimeout)
			s := h.origin("")
			s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				hops++
				mu.Unlock()
				if to := tc.next(r); to != "" {
					http.Redirect(w, r, to, http.StatusFound)
					return
				}
				io.WriteString(w, "User-agent: *\nDisallow: /\n")
			}))
			measured(t, h, fetchAllocBound, func() { h.allowed(s.URL + "/page") })
			if hops != 1+robotsguard.DefaultMaxRedirects {
				t.Errorf("robots.txt requested %d times, want %d", hops, 1+robotsguard.DefaultMaxRedirects)
			}
		})
	}
}

// TestHostileStatusStorms: a 5xx storm with Retry-After: 0 gets the retry
// budget and then a back-off, not a retry per request; a 429 asking for a
// year on robots.txt is not retried, and is honoured for a day.
func TestHostileStatusStorms(t *testing.T) {
	t.Run("503 Retry-After 0", func(t *testing.T) {
		h := hostileHarness(t, readTimeout)
		s := h.origin("")
		s.Fault("/robots.txt", robotstest.Status(503, "Retry-After: 0"))
		measured(t, h, fetchAllocBound, func() { h.refused(s.URL+"/page", robotsguard.ReasonUnreachable) })
		for range 10 {
			h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		}
		if n := count(s, "/robots.txt"); n != retryBudget {
			t.Errorf("robots.txt requested %d times, want %d: one fetch, then a back-off", n, retryBudget)
		}
		h.clock.Advance(2 * time.Minute)
		h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		if n := count(s, "/robots.txt"); n != 2*retryBudget {
			t.Errorf("robots.txt requested %d times, want %d after the back-off", n, 2*retryBudget)
		}
		if n := count(s, "/page"); n != 0 {
			t.Errorf("the origin got /page %d times", n)
		}
	})
	t.Run("429 on robots.txt, Retry-After a year", func(t *testing.T) {
		h := hostileHarness(t, readTimeout)
		s := h.origin("")
		s.Fault("/robots.txt", robotstest.Status(429, "Retry-After: 31536000"))
		measured(t, h, fetchAllocBound, func() { h.refused(s.URL+"/page", robotsguard.ReasonUnreachable) })
		if n := count(s, "/robots.txt"); n != 1 {
			t.Errorf("robots.txt requested %d times, want once: a long Retry-After is not retried at once", n)
		}
		h.clock.Advance(23 * time.Hour)
		h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		if n := count(s, "/robots.txt"); n != 1 {
			t.Errorf("robots.txt requested %d times within the day", n)
		}
		h.clock.Advance(2 * time.Hour)
		h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
		if n := count(s, "/robots.txt"); n != 2 {
			t.Errorf("robots.txt requested %d times, want again after a day (the cap)", n)
		}
	})
	t.Run("429 on a page, Retry-After a year", func(t *testing.T) {
		h := hostileHarness(t, readTimeout)
		s := newOrigin(t, h.clock, "User-agent: *\nDisallow: /x\n", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/first" {
				w.Header().Set("Retry-After", "31536000")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, "ok")
		})
		h.allowed(s.URL + "/first")
		h.sleeps()
		h.allowed(s.URL + "/second")
		var waited time.Duration
		for _, d := range h.sleeps() {
			waited += d
		}
		if waited > robotsguard.DefaultMaxThrottle {
			t.Errorf("waited %v after a Retry-After of a year, more than MaxThrottle", waited)
		}
		// A request whose deadline comes before the pause ends fails at
		// once, without being sent.
		h.allowed(s.URL + "/first")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := h.do(ctx, s.URL+"/third"); err == nil {
			t.Error("a request was sent before the origin's pause ended")
		}
		if n := count(s, "/third"); n != 0 {
			t.Errorf("the origin got /third %d times", n)
		}
	})
}

// TestHostileContent: HTML, binary data, NUL bytes and invalid UTF-8
// served as robots.txt are read as RFC 9309 reads any text: lines that are
// not rules are ignored, and rules among them are kept. The Transport
// decides as package policy does over the same bytes.
func TestHostileContent(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	binary := make([]byte, 1<<20)
	for i := range binary {
		binary[i] = byte(rng.UintN(256))
	}
	for _, tc := range []struct {
		name, body string
		paths      []string
	}{
		{"HTML error page", "<!DOCTYPE html>\n<html><head><title>404</title></head>\n<body><h1>Not Found</h1></body></html>\n", []string{"/", "/x"}},
		{"HTML with rules in it", "<html><body><pre>\nUser-agent: *\nDisallow: /x\n</pre></body></html>\n", []string{"/x", "/y"}},
		{"binary", string(binary), []string{"/", "/x", "/a/b"}},
		{"binary after rules", "User-agent: *\nDisallow: /x\n" + string(binary), []string{"/x", "/y"}},
		{"NUL bytes", "User-agent: *\x00\nDisallow: /x\x00y\nDisallow: /z\n\x00\x00\x00", []string{"/x%00y", "/z", "/y"}},
		{"invalid UTF-8", "User-agent: *\nDisallow: /\xff\xfe\nDisallow: /caf\xe9\nDisallow: /z\n", []string{"/%FF%FE", "/caf%E9", "/z", "/y"}},
		{"BOM and CR line ends", "\xef\xbb\xbfUser-agent: *\rDisallow: /x\r", []string{"/x", "/y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hostileHarness(t, readTimeout)
			s := h.origin("")
			s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, tc.body)
			}))
			rules := policy.Parse([]byte(tc.body))
			measured(t, h, fetchAllocBound, func() {
				for _, p := range tc.paths {
					want := rules.Allowed("TestBot", p)
					if want {
						h.allowed(s.URL + p)
					} else {
						h.refused(s.URL+p, robotsguard.ReasonRule)
						if n := count(s, p); n != 0 {
							t.Errorf("the origin got %s", p)
						}
					}
				}
			})
		})
	}
}

// TestHostileRulesChange: a file whose rules change between fetches. Once
// the copy held is stale and fetched again, the new rules decide, and the
// origin never gets a request that the file it served then forbids.
func TestHostileRulesChange(t *testing.T) {
	var mu sync.Mutex
	version := 0
	var violations []string
	rulesOf := func(v int) *policy.Robots {
		return policy.Parse(fmt.Appendf(nil, "User-agent: *\nDisallow: /v%d/\n", v))
	}
	h := hostileHarness(t, readTimeout)
	s := newOrigin(t, h.clock, "", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if !rulesOf(version).Allowed("TestBot", r.URL.RequestURI()) {
			violations = append(violations, r.URL.RequestURI())
		}
		io.WriteString(w, "ok")
	})
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprintf(w, "User-agent: *\nDisallow: /v%d/\n", version)
	}))
	for v := range 5 {
		mu.Lock()
		version = v
		mu.Unlock()
		h.clock.Advance(2 * time.Minute) // past the lifetime: fetched again
		for u := range 5 {
			_, err := h.get(fmt.Sprintf("%s/v%d/page", s.URL, u))
			if allowed := err == nil; allowed != (u != v) {
				t.Errorf("version %d: /v%d/page allowed=%v (%v)", v, u, allowed, err)
			}
		}
	}
	if len(violations) > 0 {
		t.Errorf("the origin got requests its file forbade: %q", violations)
	}
}

// TestHostileContentCodings: codings the fetcher cannot undo fail the
// fetch (read as text they would allow everything); those it can are
// undone within the size limit.
func TestHostileContentCodings(t *testing.T) {
	rules := "User-agent: *\nDisallow: /x\n"
	var gz, gzgz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, rules)
	zw.Close()
	zw = gzip.NewWriter(&gzgz)
	zw.Write(gz.Bytes())
	zw.Close()
	for _, tc := range []struct {
		coding, body string
		reason       robotsguard.Reason // of the refusal of /x
	}{
		{"br", "\x1b\x1a\x00\xf8", robotsguard.ReasonUnreachable},
		{"zstd", "\x28\xb5\x2f\xfd", robotsguard.ReasonUnreachable},
		{"compress", "\x1f\x9d", robotsguard.ReasonUnreachable},
		{"x-custom", rules, robotsguard.ReasonUnreachable},
		{"gzip", "not gzip at all", robotsguard.ReasonUnreachable},
		{"gzip", gz.String(), robotsguard.ReasonRule},
		{"gzip, gzip", gzgz.String(), robotsguard.ReasonRule},
		{"gzip, gzip, gzip", gzgz.String(), robotsguard.ReasonUnreachable},
		{"identity", rules, robotsguard.ReasonRule},
	} {
		t.Run(tc.coding, func(t *testing.T) {
			h := hostileHarness(t, readTimeout, func(tr *robotsguard.Transport) {
				tr.Base = &http.Transport{DisableCompression: true}
			})
			s := h.origin("")
			s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", tc.coding)
				io.WriteString(w, tc.body)
			}))
			measured(t, h, retryBudget*fetchAllocBound, func() { h.refused(s.URL+"/x", tc.reason) })
			if n := count(s, "/x"); n != 0 {
				t.Errorf("the origin got /x %d times", n)
			}
		})
	}
}

// TestOddStatuses: answers that cannot be the file are not the file (RFC
// 9110): a 206 to a request without Range, a 304 to a request that was
// not conditional, and a 3xx without a Location fail the fetch instead of
// allowing everything; a copy held stands in.
func TestOddStatuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		robots robotstest.Fault
		why    string // the FetchError's message, after the URL
	}{
		{"206 without Range", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-9/100")
			w.WriteHeader(http.StatusPartialContent)
			io.WriteString(w, "User-agent")
		}), "status 206: Partial Content to a request without Range: a part of a file is not the file"},
		{"304 to an unconditional request", robotstest.Status(http.StatusNotModified), "status 304: Not Modified to a request that was not conditional"},
		{"301 without Location", robotstest.Status(http.StatusMovedPermanently), "status 301: a redirect without a Location"},
		{"308 without Location", robotstest.Status(http.StatusPermanentRedirect), "status 308: a redirect without a Location"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hostileHarness(t, readTimeout)
			s := h.origin("")
			s.Fault("/robots.txt", tc.robots)
			d := h.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
			var fe *robotsguard.FetchError
			if !errors.As(d.Err, &fe) {
				t.Errorf("refusal %v: want a FetchError", d)
			} else if want := "robotsguard: fetching " + s.URL + "/robots.txt: " + tc.why; fe.Error() != want {
				t.Errorf("FetchError %q\nwant %q", fe.Error(), want) // the status said once
			}
			if n := count(s, "/page"); n != 0 {
				t.Errorf("the origin got /page %d times", n)
			}
		})
	}

	// A 304 to an unconditional refetch: the copy held stands in.
	var mu sync.Mutex
	first := true
	h := hostileHarness(t, readTimeout)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			w.Header().Set("Cache-Control", "max-age=60") // no validators
			io.WriteString(w, "User-agent: *\nDisallow: /x\n")
			return
		}
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			t.Errorf("a conditional request without validators")
		}
		w.WriteHeader(http.StatusNotModified)
	}))
	h.refused(s.URL+"/x", robotsguard.ReasonRule)
	h.clock.Advance(2 * time.Minute)
	h.refused(s.URL+"/x", robotsguard.ReasonRule)
	h.allowed(s.URL + "/y")
	if snap := robotsOf(t, h, s.URL+"/"); snap.Err == nil || !strings.Contains(snap.Err.Error(), "304") {
		t.Errorf("snapshot error %v, want the 304 named", snap.Err)
	}
}
