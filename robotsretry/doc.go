// Package robotsretry fits go-retryablehttp (github.com/hashicorp/go-retryablehttp)
// to a robotsguard.Transport:
//
//	client := robotsretry.NewClient(&robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)"})
//	resp, err := client.Get("https://example.com/private/report")
//	if errors.Is(err, robotsguard.ErrDisallowed) {
//		// robots.txt refuses it: tried once, nothing was sent
//	}
//
// go-retryablehttp's own policy would retry a refusal (and send a
// redirect's allowed first hop again each time), and would wait after a
// 429 or 503 on top of the Transport, which holds every request to that
// origin until its back-off ends. CheckRetry and Backoff wrap the policy
// and the back-off of a client so that refusals, pacing errors and
// pay-per-crawl errors are final and a 429 or 503 is waited for once, by the Transport; NewClient
// makes a client with both.
//
// The package lives in a module of its own, so that programs that do not
// use go-retryablehttp do not see it in the root module's API.
package robotsretry
