package usage_test

import (
	"fmt"
	"net/http"

	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/usage"
)

func ExampleDecide() {
	const robotsURL = "https://example.com/robots.txt"
	body := []byte("User-agent: *\nDisallow: /private/\nContent-Signal: search=yes, ai-input=yes, ai-train=no\n")
	site := &usage.Site{RobotsURL: robotsURL, Rules: policy.Parse(body), Robots: usage.ParseRobots(body, robotsURL)}
	// The header fields of the page's response.
	page := usage.ReadHeader(http.Header{"X-Robots-Tag": {"max-snippet:50, noarchive"}})
	for _, c := range []usage.Category{usage.Crawl, usage.Search, usage.Snippet, usage.Archive, usage.TrainAI} {
		d := usage.Decide(usage.Query{Agent: "FooBot/1.0", URL: "https://example.com/news/1", Category: c}, site, page)
		fmt.Println(d)
		if !d.Conditions.IsZero() {
			fmt.Println("    conditions:", d.Conditions)
		}
	}
	// Output:
	// crawl allowed by https://example.com/robots.txt line 1 "no rule of group * matches"
	// search allowed by https://example.com/robots.txt line 3 "Content-Signal: search=yes, ai-input=yes, ai-train=no"
	// snippet unknown: no signal allows or disallows it
	//     conditions: max-snippet=50
	// archive disallowed by X-Robots-Tag header "noarchive"
	// train-ai disallowed by https://example.com/robots.txt line 3 "Content-Signal: search=yes, ai-input=yes, ai-train=no"
}

func ExampleParseRSL() {
	// The licence a robots.txt names in "License: https://example.com/license.xml".
	doc := []byte(`<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/" server="https://olp.example.com">
    <license>
      <permits type="usage">search ai-input</permits>
      <prohibits type="usage">ai-train</prohibits>
      <payment type="crawl"><amount currency="USD">0.001</amount></payment>
    </license>
  </content>
</rsl>`)
	f, err := usage.ParseRSL(doc, "https://example.com/license.xml")
	if err != nil {
		fmt.Println(err)
		return
	}
	site := &usage.Site{RSL: []*usage.RSLFile{f}}
	for _, c := range []usage.Category{usage.Search, usage.TrainAI} {
		d := usage.Decide(usage.Query{Agent: "FooBot/1.0", URL: "https://example.com/news/1", Category: c}, site, nil)
		fmt.Println(d)
		if d.Allowed() {
			fmt.Println("    conditions:", d.Conditions)
		}
	}
	// Output:
	// search allowed by https://example.com/license.xml content 1 "<content url=\"/\"> permits search, payment crawl"
	//     conditions: policy=https://example.com/license.xml rsl-payment=crawl rsl-amount=0.001 USD rsl-server=https://olp.example.com
	// train-ai disallowed by https://example.com/license.xml content 1 "<content url=\"/\"> prohibits ai-train"
}

func ExampleCheckLicense() {
	// A site's answer to a request without a licence token.
	req, _ := http.NewRequest(http.MethodGet, "https://example.com/news/1", nil)
	resp := &http.Response{StatusCode: http.StatusPaymentRequired, Request: req, Header: http.Header{
		"Www-Authenticate": {`License error="invalid_request", error_description="Access to this resource requires a valid license"`},
		"Link":             {`<https://example.com/license.xml>; rel="license"; type="application/rsl+xml"`},
	}}
	if err := usage.CheckLicense(resp); err != nil {
		fmt.Println(err)
	}
	// Once the licence server has issued a token, present it.
	if err := usage.SetLicenseToken(req.Header, "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"); err == nil {
		fmt.Println(req.Header.Get("Authorization"))
	}
	// Output:
	// robotsguard: https://example.com/news/1: status 402: an RSL licence token is required (WWW-Authenticate: License); licence https://example.com/license.xml: Access to this resource requires a valid license
	// License eyJhbGciOiJFUzI1NiJ9.e30.c2ln
}
