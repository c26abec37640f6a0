package robotsguard

import (
	"fmt"
	"io"
	"net/http"
	"testing"
)

// TestColdOriginAllocs: the first request to an origin allocates a few
// times beyond its two requests through Base, and not for the body of its
// robots.txt, which is read into a pooled buffer and dropped once parsed.
func TestColdOriginAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("counts allocations")
	}
	base := memRoundTripper{robotsOfSize(700, 1)}
	tr := &Transport{Base: base, UserAgent: "TestBot/1.0", CacheSize: 1 << 40}
	i := 0
	send := func(rt http.RoundTripper, path string) {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://o%d.example%s", i, path), nil)
		req.Header.Set("User-Agent", "TestBot/1.0") // as sent: no copy (see TestPacedRequestAllocs)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	bare := testing.AllocsPerRun(100, func() { i++; send(base, "/robots.txt"); send(base, "/") })
	send(tr, "/") // the first flight starts the flier
	n := testing.AllocsPerRun(100, func() { i++; send(tr, "/") })
	t.Logf("%v allocations, the bare fetch %v", n, bare)
	// The flight (singleflight's call, the key, the function, the flier's
	// job), the parsed rules and the state.
	if n > bare+13 {
		t.Errorf("a cold origin: %v allocations, %v more than the bare fetch, want at most 13", n, n-bare)
	}
}
