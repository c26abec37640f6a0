package robotstest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/robotsguard/robotsguard/robotstest"
)

// fakeTB records the failures and logs an Origin reports, instead of
// failing the test. It runs the cleanups given it when End is called, or
// else when the real test (TB) ends; the rest goes to the real test.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	failed   bool
	errors   []string
	logs     []string
	cleanups []func()
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

// Failed reports whether Fail was called: not Errorf, which a fakeTB only
// records.
func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	f.TB.FailNow()
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cleanups) == 0 {
		f.TB.Cleanup(f.End) // in case the test does not call End
	}
	f.cleanups = append(f.cleanups, fn)
}

// End ends the fake test: it runs the cleanups given so far, the last
// first, as the testing package does when a test ends. An Origin reports
// its failures then.
func (f *fakeTB) End() {
	f.mu.Lock()
	fns := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

func (f *fakeTB) Errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errors...)
}

func (f *fakeTB) Logs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.logs...)
}

// get sends a GET for url through c as userAgent (none when empty), and
// returns the response with its body read.
func get(t *testing.T, c *http.Client, url, userAgent string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp, string(b), nil
}

// paths lists the method and URL of each request: "GET /a, GET /b".
func paths(rs []robotstest.Request) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.Method+" "+r.URL)
	}
	return strings.Join(s, ", ")
}
