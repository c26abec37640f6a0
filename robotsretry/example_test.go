package robotsretry_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotsretry"
)

// A retrying client over a Transport: a refusal is final, tried once, and
// so is a redirect into a refused path, whose first hop is sent once.
func ExampleNewClient() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/old":
			http.Redirect(w, r, "/private/old", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "a page")
		}
	}))
	defer site.Close()

	client := robotsretry.NewClient(&robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)"})
	client.Logger = nil // go-retryablehttp's default logs each attempt
	attempts := 0
	client.RequestLogHook = func(retryablehttp.Logger, *http.Request, int) { attempts++ }
	for _, path := range []string{"/", "/private/plans", "/old"} {
		attempts = 0
		resp, err := client.Get(site.URL + path)
		var d *robotsguard.DisallowedError
		switch {
		case errors.As(err, &d): // errors.Is(err, robotsguard.ErrDisallowed) too
			fmt.Printf("%s: refused by line %d %q, %d attempt(s)\n", path, d.Decision.Rule.Line, d.Decision.Rule, attempts)
		case err != nil:
			fmt.Println(err)
		default:
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			fmt.Printf("%s: %s, %d attempt(s)\n", path, resp.Status, attempts)
		}
	}
	// Output:
	// /: 200 OK, 1 attempt(s)
	// /private/plans: refused by line 2 "Disallow: /private/", 1 attempt(s)
	// /old: refused by line 2 "Disallow: /private/", 1 attempt(s)
}
