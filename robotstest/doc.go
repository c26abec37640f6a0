// Package robotstest tests that HTTP clients obey robots.txt. Its Origin is
// a local web site (an httptest.Server) that serves a robots.txt and pages,
// and fails the test on every request that robots.txt disallows for the
// agent that sent it, naming the rule and its line:
//
//	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /admin/\n")
//	client := o.Client("FooBot/1.0") // over a robotsguard.Transport: pacing off, a fake clock
//	crawl(client, o.URL)             // the code under test
//	for _, r := range o.Requests() { // what the site received, and the verdicts
//		t.Log(r)
//	}
//
// A crawler that fetches /admin/ all the same (through another client,
// say) fails the test at once; the failure is reported when the test ends,
// at the line that called NewOrigin:
//
//	crawl_test.go:12: robotstest: GET /admin/ from "FooBot/1.0": disallowed by "Disallow: /admin/" (line 2, group "*" at line 1)
//
// The Origin judges with the policy package, in the RFC 9309 dialect unless
// Origin.Parser says otherwise, by the robots.txt the agent last fetched.
//
// # Faults
//
// Origin.Fault makes a path, or /robots.txt, misbehave: Status (5xx, 429
// with Retry-After, any header), Redirect (chains, loops, redirects into
// disallowed paths), SlowBody (held until the test opens a gate),
// HugeBody, and Handler (any answer of the test's own: a robots.txt per
// User-Agent, a 304 to a conditional request, a coded or truncated body).
// Origin.SetRobots changes the robots.txt between fetches. Each Request
// the Origin records holds the header fields it came with.
//
// # Signatures
//
// Origin.RequireSignature makes the Origin fail the test on each request
// without a valid Web Bot Auth signature (RFC 9421; package botauth signs
// them) by one of the keys given, naming why; each Request tells who
// signed it. VerifySignature is that verifier on its own, written apart
// from package botauth so that each checks the other.
//
// # Time
//
// Clock is a fake robotsguard.Clock: Advance moves it, Sleep never waits
// for real time, and Sleeps tells the pauses taken. An Origin stamps its
// answers' Date headers and its record with its Clock, and the Transports
// it makes (Origin.Transport, Origin.Client) keep time with it, so a test
// advances one clock to make a cached robots.txt stale. Origins that share
// a Transport share its Clock too: set Origin.Clock before Start.
package robotstest
