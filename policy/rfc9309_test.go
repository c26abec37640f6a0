package policy_test

import (
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

type verdict struct {
	agent, url string
	allowed    bool
}

func checkVerdicts(t *testing.T, name string, r *policy.Robots, vs []verdict) {
	t.Helper()
	for _, v := range vs {
		if got := r.Allowed(v.agent, v.url); got != v.allowed {
			t.Errorf("%s: Allowed(%q, %q) = %v, want %v (%v)", name, v.agent, v.url, got, v.allowed, r.Group(v.agent).Decide(v.url))
		}
	}
}

// Matching-semantics tests, each named after the section of RFC 9309 it
// checks. Both dialects must agree on them.
func TestRFC9309(t *testing.T) {
	tests := []struct {
		name   string
		robots string
		checks []verdict
	}{
		{
			name: "RFC9309_2.2.1_Figure2_MergeGroupsOfSameAgent",
			robots: "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\n" +
				"user-agent: *\ndisallow: /other\n\nuser-agent: ExampleBot\ndisallow: /baz\n",
			checks: []verdict{
				{"ExampleBot", "/foo", false}, {"ExampleBot", "/bar", false}, {"ExampleBot", "/baz", false},
				{"ExampleBot", "/other", true}, {"examplebot", "/baz", false}, {"OtherBot", "/baz", true},
			},
		},
		{
			name:   "RFC9309_2.2.1_Figure3_StarGroupWhenNoneMatches",
			robots: "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n",
			checks: []verdict{
				{"ExampleBot", "/foo", false}, {"ExampleBot", "/bar", false}, {"ExampleBot", "/baz", true},
				{"BazBot", "/foo", true}, {"BazBot", "/baz", false},
			},
		},
		{
			name:   "RFC9309_2.2.1_MergeStarGroups",
			robots: "user-agent: *\ndisallow: /a\n\nuser-agent: FooBot\ndisallow: /f\n\nuser-agent: *\ndisallow: /b\n",
			checks: []verdict{{"BarBot", "/a", false}, {"BarBot", "/b", false}, {"BarBot", "/f", true}, {"FooBot", "/a", true}},
		},
		{
			name:   "RFC9309_2.2.1_NoGroupNoStarAllowsAll",
			robots: "user-agent: FooBot\ndisallow: /\n",
			checks: []verdict{{"BarBot", "/x", true}, {"FooBot", "/x", false}},
		},
		{
			name:   "RFC9309_2.2.1_TokenFromFullUserAgent",
			robots: "user-agent: FooBot\ndisallow: /\n",
			checks: []verdict{
				{"FooBot/2.1 (+https://example.com/bot)", "/x", false},
				{"Mozilla/5.0 (compatible; FooBot/2.1; +https://example.com/bot)", "/x", false},
				{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; FooBot/1.0)", "/x", false},
				{"Mozilla/5.0 (X11; Linux x86_64)", "/x", true},
				{"FooBotX/1.0", "/x", true},
			},
		},
		{
			name:   "RFC9309_2.2.1_GroupValueNamesLeadingToken",
			robots: "user-agent: FooBot/1.0\ndisallow: /a\nuser-agent: BarBot*\ndisallow: /b\n",
			checks: []verdict{{"FooBot", "/a", false}, {"BarBot", "/b", false}, {"BarBot", "/a", true}},
		},
		{
			name:   "RFC9309_2.1_LastGroupWithoutRulesAllows",
			robots: "user-agent: *\ndisallow: /\nuser-agent: QuxBot\n",
			checks: []verdict{{"QuxBot", "/x", true}, {"Other", "/x", false}},
		},
		{
			name:   "RFC9309_2.1_ConsecutiveUserAgentsShareGroup",
			robots: "user-agent: a\n\n# comment\nuser-agent: b\ndisallow: /x\nuser-agent: c\ndisallow: /y\n",
			checks: []verdict{{"a", "/x", false}, {"b", "/x", false}, {"a", "/y", true}, {"c", "/x", true}, {"c", "/y", false}},
		},
		{
			name:   "RFC9309_2.2.2_RulesOutsideGroupsIgnored",
			robots: "disallow: /\nallow: /x\nuser-agent: FooBot\ndisallow: /y\n",
			checks: []verdict{{"FooBot", "/z", true}, {"BarBot", "/z", true}, {"FooBot", "/y", false}},
		},
		{
			name:   "RFC9309_2.2.2_LongestMatchWins",
			robots: "user-agent: FooBot\nallow: /example/page/\ndisallow: /example/page/disallowed.gif\n",
			checks: []verdict{
				// §5.2; the RFC's text has "disallow.gif" for the URL, a
				// typo for the pattern's "disallowed.gif".
				{"FooBot", "https://example.com/example/page/disallowed.gif", false},
				{"FooBot", "https://example.com/example/page/other.gif", true},
			},
		},
		{
			name:   "RFC9309_2.2.2_AllowWinsTie",
			robots: "user-agent: FooBot\ndisallow: /page\nallow: /page\ndisallow: /*.gif\nallow: /a.gif\n",
			checks: []verdict{{"FooBot", "/page", true}, {"FooBot", "/a.gif", true}, {"FooBot", "/b.gif", false}},
		},
		{
			name:   "RFC9309_2.2.2_LengthCountsOctetsOfPattern",
			robots: "user-agent: FooBot\nallow: /ツ\ndisallow: /%E3%83%84/x\n",
			checks: []verdict{
				// "/ツ" is "/%E3%83%84" (10 octets) and beats nothing
				// longer; "/%E3%83%84/x" (12 octets) beats it.
				{"FooBot", "/%E3%83%84", true}, {"FooBot", "/ツ/x", false}, {"FooBot", "/%e3%83%84/x", false},
			},
		},
		{
			name:   "RFC9309_2.2.2_CaseSensitivePaths",
			robots: "user-agent: *\ndisallow: /Fish\n",
			checks: []verdict{{"a", "/Fish", false}, {"a", "/fish", true}},
		},
		{
			name:   "RFC9309_2.2.2_EmptyRuleHasNoEffect",
			robots: "user-agent: *\ndisallow:\nallow:\n\nuser-agent: FooBot\ndisallow: /x\n",
			checks: []verdict{{"a", "/", true}, {"FooBot", "/x", false}, {"FooBot", "/y", true}},
		},
		{
			name:   "RFC9309_2.2.2_RobotsTxtImplicitlyAllowed",
			robots: "user-agent: *\ndisallow: /\n",
			checks: []verdict{{"a", "/robots.txt", true}, {"a", "https://example.com/robots.txt", true}, {"a", "/robots.txt?x", false}, {"a", "/robots.txtx", false}},
		},
		{
			name:   "RFC9309_2.2.3_Wildcards",
			robots: "user-agent: *\ndisallow: /*.gif$\ndisallow: /a/*/c\nallow: /this/*/exactly$\ndisallow: /this/\n",
			checks: []verdict{
				{"a", "/x.gif", false}, {"a", "/x.gif?y", true}, {"a", "/x/y.gif", false},
				{"a", "/a/b/c", false}, {"a", "/a/c", true}, {"a", "/a/b/d/c/e", false},
				{"a", "/this/path/exactly", true}, {"a", "/this/path/exactly/", false},
			},
		},
		{
			name:   "RFC9309_2.2.3_Figure6_EncodedSpecialCharacters",
			robots: "user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24\n",
			checks: []verdict{
				{"a", "https://www.example.com/path/file-with-a-*.html", false},
				{"a", "https://www.example.com/path/file-with-a-x.html", true},
				{"a", "https://www.example.com/path/foo-$", false},
				{"a", "https://www.example.com/path/foo-", true},
			},
		},
		{
			name:   "RFC9309_2.2.3_CommentsEndLines",
			robots: "user-agent: * # everyone\ndisallow: /a # not /b\n# disallow: /c\n",
			checks: []verdict{{"x", "/a", false}, {"x", "/b", true}, {"x", "/c", true}},
		},
		{
			name:   "RFC9309_2.2.4_OtherRecordsDoNotEndGroups",
			robots: "user-agent: FooBot\nsitemap: https://example.com/s.xml\ncrawl-delay: 5\nuser-agent: BarBot\ndisallow: /x\n",
			checks: []verdict{{"FooBot", "/x", false}, {"BarBot", "/x", false}},
		},
		{
			name:   "RFC9309_2.2_LineEndingsAndBOM",
			robots: "\xEF\xBB\xBFuser-agent: a\r\ndisallow: /crlf\rdisallow: /cr\ndisallow: /lf",
			checks: []verdict{{"a", "/crlf", false}, {"a", "/cr", false}, {"a", "/lf", false}, {"a", "/x", true}},
		},
		{
			name:   "RFC9309_2.2_CaseInsensitiveKeysAndWhitespace",
			robots: "USER-AGENT :FooBot\n\tDisAllow\t:\t/a  \n",
			checks: []verdict{{"foobot", "/a", false}, {"foobot", "/b", true}},
		},
		{
			name: "RFC9309_5.1_SimpleExample",
			robots: "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\n" +
				"User-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\n" +
				"User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\nUser-Agent: quxbot\n",
			checks: []verdict{
				{"OtherBot", "/publications/a.gif", true}, // the longer Allow wins
				{"OtherBot", "/publications/x", true},
				{"OtherBot", "/example/x", false}, {"OtherBot", "/x.gif", false}, {"OtherBot", "/x", true},
				{"foobot", "/example/page.html", true}, {"foobot", "/example/allowed.gif", true},
				{"foobot", "/example/other", false}, {"foobot", "/", false},
				{"barbot", "/example/page.html", false}, {"bazbot", "/example/page.html", false},
				{"bazbot", "/example/other.gif", true},
				{"quxbot", "/example/page.html", true}, {"quxbot", "/a.gif", true},
			},
		},
	}
	for _, tc := range tests {
		for _, d := range []policy.Dialect{policy.RFC9309, policy.Google} {
			r := policy.Parser{Dialect: d}.Parse([]byte(tc.robots))
			checks := tc.checks
			if d == policy.Google {
				// Google compares URLs as given and lets the rules decide
				// on /robots.txt.
				checks = nil
				for _, v := range tc.checks {
					if strings.Contains(v.url, "robots.txt") || strings.ContainsAny(v.url, "ツ$*") || strings.Contains(v.url, "%e3") {
						continue
					}
					checks = append(checks, v)
				}
			}
			checkVerdicts(t, tc.name+"/"+d.String(), r, checks)
		}
	}
}

// TestRFC9309_2_2_2_Figure4 checks the percent-encoding table of RFC 9309
// §2.2.2: for each row, the path, its encoded form and the form to match
// are the same URL, whichever of them the rule and the URL are written in.
func TestRFC9309_2_2_2_Figure4(t *testing.T) {
	rows := [][3]string{
		{"/foo/bar?baz=quz", "/foo/bar?baz=quz", "/foo/bar?baz=quz"},
		{"/foo/bar?baz=https://foo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar"},
		{"/foo/bar/\xE3\x83\x84", "/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"},
		{"/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"},
		{"/foo/bar/%62%61%7A", "/foo/bar/%62%61%7A", "/foo/bar/baz"},
	}
	for _, row := range rows {
		canon := policy.CanonicalPath(row[2])
		for _, form := range row {
			if got := policy.CanonicalPath(form); got != canon {
				t.Errorf("CanonicalPath(%q) = %q, want %q like %q", form, got, canon, row[2])
			}
		}
		for _, rule := range row {
			r := policy.Parse([]byte("user-agent: *\ndisallow: /\nallow: " + rule + "$\n"))
			for _, url := range row {
				if !r.Allowed("FooBot", "https://example.com"+url) {
					t.Errorf("rule %q does not match URL %q", rule, url)
				}
			}
		}
	}
}

func TestCanonicalPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/a/b", "/a/b"},
		{"/a%2fb", "/a%2Fb"},                 // reserved: stays encoded, upper-case hex
		{"/a%2Fb?c=%2F", "/a%2Fb?c=/"},       // '/' decodes in the query only
		{"/%7euser/%41", "/~user/A"},         // unreserved decode
		{"/a%3Ab%40c", "/a:b@c"},             // ':' and '@' decode everywhere
		{"/a%3Fb?c%3Fd", "/a%3Fb?c?d"},       // '?' decodes in the query only
		{"/a b", "/a%20b"},                   // space
		{"/a%zz", "/a%25zz"},                 // stray '%'
		{"/a%", "/a%25"},                     //
		{"/*$", "/%2A%24"},                   // metacharacters in URLs
		{"/a%2A", "/a%2A"},                   //
		{"/é", "/%C3%A9"},                    // non-ASCII
		{"/a%26b=%3D", "/a%26b=%3D"},         // sub-delims stay encoded
		{"/\x00\x7f", "/%00%7F"},             // controls
		{"/a{b}|c", "/a%7Bb%7D%7Cc"},         // characters a URI may not hold
		{"/q?a=1&b=%2b", "/q?a=1&b=%2B"},     // '+' stays encoded
		{"/x?y=%E3%83%84", "/x?y=%E3%83%84"}, // already canonical
	}
	for _, tc := range tests {
		if got := policy.CanonicalPath(tc.in); got != tc.want {
			t.Errorf("CanonicalPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := policy.CanonicalPath(tc.want); got != tc.want {
			t.Errorf("CanonicalPath is not idempotent on %q: %q", tc.want, got)
		}
	}
}

func TestProductToken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"FooBot", "FooBot"},
		{"  FooBot  ", "FooBot"},
		{"Foo-Bot_2", ""}, // digits are not product-token characters
		{"Foo-Bot_2/1.0", ""},
		{"FooBot/2.1", "FooBot"},
		{"FooBot/2.1 (+https://example.com/bot)", "FooBot"},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot"},
		{"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bingbot"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "Mozilla"},
		// RFC 9110 §10.1.5: products separated by whitespace, the
		// version optional; the first names the crawler.
		{"Foo Bar", "Foo"},
		{"colly - https://github.com/gocolly/colly", "colly"},
		{"FooBot\t(+https://example.com/bot)", "FooBot"},
		{"FooBot(+https://example.com/bot)", ""},
		{"FooBot;1", ""},
		{"Foobot*", ""},
		{"Foobot* 1.0", ""},
		{"", ""},
		{"ツ", ""},
	}
	for _, tc := range tests {
		if got := policy.ProductToken(tc.in); got != tc.want {
			t.Errorf("ProductToken(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEncodedDelimitersInQuery: a canonical URL decodes %2F and %3F in its
// query only, so a pattern's "%2F" after a '*' (where the pattern cannot
// tell path from query) matches an encoded '/' in the path, and an encoded
// or raw '/' in the query; it never matches a raw '/' of the path.
func TestEncodedDelimitersInQuery(t *testing.T) {
	tests := []struct {
		rule, url string
		match     bool
	}{
		{"/*redirect=http%3A%2F%2F", "/go?redirect=http%3A%2F%2Fevil.com", true},
		{"/*redirect=http%3A%2F%2F", "/go?redirect=http://evil.com", true},
		{"/*redirect=http%3A%2F%2F", "/go/redirect=http%3A%2F%2Fevil.com", true},
		{"/*redirect=http%3A%2F%2F", "/go/redirect=http://evil.com", false},
		{"/*%2F", "/x?u=%2F", true},
		{"/*%2F", "/x%2F", true},
		{"/*%2F", "/x/y", false},
		{"/*%2F$", "/x?u=%2F", true},
		{"/*a*%2Fb", "/a?x=%2Fb", true},
		{"/*a*%2Fb", "/x?a=1&u=%2Fb", true},
		{"/*%3Fpull%3D", "/x?y=%3Fpull%3D1", true},
		{"/*%3Fpull%3D", "/x%3Fpull%3D1", true},
		{"/*%3Fpull%3D", "/x?pull%3D1", false}, // an encoded "?" is data, not the query's start
		{"/a%2Fb", "/a/b", false},
		{"/a?u=%2F", "/a?u=/", true},
		// More than 8 literals before the escape: the package does not
		// spell out where the query may start, and a Disallow reads each
		// escape as '*', so it prohibits more, never less.
		{"/*a*a*a*a*a*a*a*a*a*%2Fb", "/aaaaaaaaa?x=%2Fb", true},
		{"/*a*a*a*a*a*a*a*a*a*%2Fb", "/a?aaaaaaaa/b", true},
		{"/*a*a*a*a*a*a*a*a*a*%2Fb", "/aaaaaaaaa%2Fb", true},
		{"/*a*a*a*a*a*a*a*a*a*%2Fb", "/aaaaaaaaaXb", true},
		{"/*a*a*a*a*a*a*a*a*a*%2Fb", "/aaaaaaaab", false},
	}
	for _, tc := range tests {
		r := policy.Parse([]byte("user-agent: *\ndisallow: " + tc.rule + "\n"))
		if got := !r.Allowed("x", tc.url); got != tc.match {
			t.Errorf("rule %q, URL %q: match %v, want %v", tc.rule, tc.url, got, tc.match)
		}
	}
}
