package policy_test

import (
	"fmt"

	"github.com/robotsguard/robotsguard/policy"
)

func ExampleParse() {
	r := policy.Parse([]byte(`
User-agent: *
Disallow: /private/
Allow: /private/press/

User-agent: FooBot
Disallow: /*.pdf$
`))
	fmt.Println(r.Allowed("OtherBot/1.0", "https://example.com/private/report"))
	fmt.Println(r.Allowed("OtherBot/1.0", "https://example.com/private/press/today"))
	fmt.Println(r.Group("FooBot/2.1 (+https://example.com/bot)").Decide("/docs/a.pdf"))
	fmt.Println(r.Group("FooBot").Decide("/private/report"))
	// Output:
	// false
	// true
	// disallowed by "Disallow: /*.pdf$" (line 7, group "foobot" at line 6)
	// allowed: no rule of group "foobot" (line 6) matches
}

func ExampleRobots_Group() {
	r := policy.Parse([]byte("User-agent: FooBot\nDisallow: /search\nCrawl-delay: 1.5\n"))
	g := r.Group("Mozilla/5.0 (compatible; FooBot/2.1)") // look up once, reuse
	for _, url := range []string{"/", "/search?q=robots", "/searching"} {
		fmt.Println(url, g.Decide(url).Allowed)
	}
	delay, _ := g.CrawlDelay()
	fmt.Println("crawl-delay", delay)
	// Output:
	// / true
	// /search?q=robots false
	// /searching false
	// crawl-delay 1.5s
}

func ExampleParser_dialect() {
	body := []byte("User-agent: *\nDisalow: /tmp/\n") // a typo Google accepts
	fmt.Println(policy.Parse(body).Allowed("FooBot", "/tmp/x"))
	fmt.Println(policy.Parser{Dialect: policy.Google}.Parse(body).Allowed("FooBot", "/tmp/x"))
	// Output:
	// true
	// false
}

func ExampleParser_Report() {
	body := []byte("User-agent: *\nDisalow: /tmp/\nCrawl-delay: 5\nNoise\n")
	for _, l := range (policy.Parser{}).Report(body) {
		switch {
		case l.Kind == policy.KindOther && !l.Known:
			fmt.Printf("line %d: unknown key %q\n", l.Line, l.Key)
		case l.Kind == policy.KindNone && !l.Empty && !l.Comment:
			fmt.Printf("line %d: not a key: value line\n", l.Line)
		}
	}
	// Output:
	// line 2: unknown key "Disalow"
	// line 4: not a key: value line
}

func ExampleProductToken() {
	fmt.Println(policy.ProductToken("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"))
	fmt.Println(policy.ProductToken("FooBot/2.1"))
	// Output:
	// Googlebot
	// FooBot
}
