// Command retryable shows robotsguard under go-retryablehttp, offline: a
// retrying client made by robotsretry.NewClient, whose HTTP client sends
// through a robotsguard.Transport, with robotsretry.CheckRetry and
// robotsretry.Backoff, so that refusals are not retried and a 503 is
// waited for once, by the Transport.
//
//	cd robotsretry && go run ./examples/retryable
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsretry"
)

const robotsTxt = `User-agent: *
Disallow: /private/
`

func main() {
	var mu sync.Mutex
	var served []string
	busy := true
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		served = append(served, r.URL.RequestURI())
		switch {
		case r.URL.Path == "/robots.txt":
			io.WriteString(w, robotsTxt)
		case r.URL.Path == "/old":
			http.Redirect(w, r, "/private/old", http.StatusMovedPermanently)
		case r.URL.Path == "/busy" && busy:
			busy = false
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			fmt.Fprintf(w, "page %s\n", r.URL.Path)
		}
	}))
	defer site.Close()

	attempts := map[string]int{}
	// CheckRetry: refusals and pacing errors are final; Backoff: after a
	// 429 or 503, the Transport waits, once.
	client := robotsretry.NewClient(&robotsguard.Transport{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)", Delay: -1})
	client.Logger = nil
	client.HTTPClient.Timeout = 10 * time.Second
	client.RequestLogHook = func(_ retryablehttp.Logger, r *http.Request, _ int) { attempts[r.URL.Path]++ }

	for _, path := range []string{"/", "/private/plans", "/old", "/busy"} {
		start := time.Now()
		resp, err := client.Get(site.URL + path)
		took := time.Since(start).Round(time.Second)
		switch {
		case errors.Is(err, robotsguard.ErrDisallowed):
			var d *robotsguard.DisallowedError
			errors.As(err, &d)
			fmt.Printf("%-15s refused after %d attempt(s): %s line %d\n", path, attempts[path], d.Reason, d.Decision.Rule.Line)
		case err != nil:
			log.Fatal(err)
		default:
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			fmt.Printf("%-15s %s after %d attempt(s), %v\n", path, resp.Status, attempts[path], took)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("\nThe site served: %s\n", strings.Join(served, " "))
	fmt.Println("(refusals tried once, the redirect's first hop sent once, the 503 retried after its Retry-After)")
}
