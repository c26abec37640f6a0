package robotsprom_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsprom"
)

func Example() {
	// A site whose robots.txt disallows /private/.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
			return
		}
		io.WriteString(w, "hello")
	}))
	defer site.Close()

	t := &robotsguard.Transport{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"}
	c := robotsprom.NewCollector(t, nil)
	t.Observer = c.Observer(t.Observer)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)

	client := &http.Client{Transport: t}
	for _, path := range []string{"/", "/private/report"} {
		if resp, err := client.Get(site.URL + path); err == nil {
			resp.Body.Close()
		}
	}

	// What a scrape of /metrics shows (some of it).
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	lines := bufio.NewScanner(rec.Body)
	for lines.Scan() {
		for _, name := range []string{"robotsguard_robots_fetches_total", "robotsguard_refusals_total", "robotsguard_checks_total", "robotsguard_cache_entries"} {
			if strings.HasPrefix(lines.Text(), name) {
				fmt.Println(lines.Text())
			}
		}
	}
	// Output:
	// robotsguard_cache_entries 1
	// robotsguard_checks_total 2
	// robotsguard_refusals_total{reason="acap"} 0
	// robotsguard_refusals_total{reason="acap_reference"} 0
	// robotsguard_refusals_total{reason="delay"} 0
	// robotsguard_refusals_total{reason="rule"} 1
	// robotsguard_refusals_total{reason="status"} 0
	// robotsguard_refusals_total{reason="unreachable"} 0
	// robotsguard_robots_fetches_total{outcome="fetched",status_class="2xx"} 1
}
