package robotsguard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard"
)

// BenchmarkOverhead is the cost the Transport adds to an allowed request
// whose robots.txt is cached, against the bare base transport, in one run:
//
//	go test -run '^$' -bench Overhead -benchmem -count 6 | tee out.txt
//	benchstat -col /transport out.txt
//
// base=static answers without I/O, so its robotsguard-minus-bare is the
// whole overhead; base=loopback sends real requests to a local server.
// transport=robotsguard-acap has ACAP on, and decides by the file's ACAP
// records pooled with its conventional ones. Delay is -1: the cost is that
// of the pacing state (one request under way per origin, the end of each
// response tracked), without pauses; transport=robotsguard-nopacing has
// NoPacing set.
func BenchmarkOverhead(b *testing.B) {
	robots := "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/press/\n\n" +
		"ACAP-crawler: *\nACAP-disallow-crawl: /drafts/\nACAP-allow-crawl: /private/press/\nACAP-disallow-index: /\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, robots)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	loopback := &http.Transport{MaxIdleConnsPerHost: 4}
	defer loopback.CloseIdleConnections()

	bases := []struct {
		name string
		rt   http.RoundTripper
		url  string
	}{
		{"static", staticRoundTripper{robots}, "http://example.com/articles/2026/robots-and-you?page=2"},
		{"loopback", loopback, srv.URL + "/articles/2026/robots-and-you?page=2"},
	}
	for _, base := range bases {
		// The request names the agent, as a crawler's do; one that does
		// not is sent as a copy that does (transport=robotsguard-anonymous).
		req, _ := http.NewRequest(http.MethodGet, base.url, nil)
		req.Header.Set("User-Agent", "BenchBot/1.0")
		anonymous, _ := http.NewRequest(http.MethodGet, base.url, nil)
		send := func(b *testing.B, rt http.RoundTripper) {
			req := req
			if strings.HasSuffix(b.Name(), "-anonymous") {
				req = anonymous
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				resp, err := rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		b.Run("base="+base.name+"/transport=bare", func(b *testing.B) { send(b, base.rt) })
		for _, name := range []string{"robotsguard", "robotsguard-acap", "robotsguard-nopacing", "robotsguard-anonymous"} {
			b.Run("base="+base.name+"/transport="+name, func(b *testing.B) {
				tr := &robotsguard.Transport{Base: base.rt, UserAgent: "BenchBot/1.0", Delay: -1}
				switch name {
				case "robotsguard-acap":
					tr.ACAP = &robotsguard.ACAPOptions{}
				case "robotsguard-nopacing":
					tr.NoPacing = true
				}
				resp, err := tr.RoundTrip(req) // fetch and cache the robots.txt
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				b.ResetTimer()
				send(b, tr)
			})
		}
	}
}

// BenchmarkHotOrigin is one origin asked by many goroutines at once, as an
// integration test or a crawl of one's own site does, with the pacing
// state on and no pause (Delay -1), over a base that answers without I/O:
//
//	go test -run '^$' -bench HotOrigin -benchmem -cpu 1,2 -count 8 | tee out.txt
//	benchstat -col /transport out.txt
//
// goroutines is the number sending at once (b.SetParallelism: on -cpu 2,
// goroutines=64 is 32 per P). limit=1 is MaxRequestsPerOrigin's default,
// one request under way per origin, where every other goroutine waits its
// turn; limit=none is MaxRequestsPerOrigin -1, where none waits for another
// and the cost beyond transport=bare is the shared state's alone.
func BenchmarkHotOrigin(b *testing.B) {
	base := staticRoundTripper{"User-agent: *\nDisallow: /private/\n"}
	req, _ := http.NewRequest(http.MethodGet, "http://example.com/articles/2026/robots-and-you?page=2", nil)
	req.Header.Set("User-Agent", "BenchBot/1.0")
	send := func(b *testing.B, rt http.RoundTripper) {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			b.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for _, g := range []int{1, 2, 64} {
		run := func(b *testing.B, rt http.RoundTripper) {
			send(b, rt) // fetch and cache the robots.txt
			b.ReportAllocs()
			b.SetParallelism(max(g/runtime.GOMAXPROCS(0), 1))
			b.ResetTimer()
			if g == 1 {
				for i := 0; i < b.N; i++ {
					send(b, rt)
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					send(b, rt)
				}
			})
		}
		gs := "goroutines=" + strconv.Itoa(g)
		b.Run(gs+"/transport=bare", func(b *testing.B) { run(b, base) })
		for _, limit := range []int{1, -1} {
			name := "limit=1"
			if limit < 0 {
				name = "limit=none"
			}
			b.Run(gs+"/transport=robotsguard/"+name, func(b *testing.B) {
				run(b, &robotsguard.Transport{Base: base, UserAgent: "BenchBot/1.0", Delay: -1, MaxRequestsPerOrigin: limit})
			})
		}
	}
}
