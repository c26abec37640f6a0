// Package policy parses robots.txt files and decides which URLs a crawler
// may fetch, following RFC 9309 (the Robots Exclusion Protocol) by default,
// or Google's reference library exactly.
//
// Parse once, then ask many times, from any number of goroutines:
//
//	r := policy.Parse(body)                            // never fails
//	if !r.Allowed("FooBot/2.1", "https://example.com/private/x") {
//		d := r.Group("FooBot").Decide("/private/x") // why?
//		log.Print(d)                                 // disallowed by "Disallow: /private/" (line 7, group "*" at line 3)
//	}
//
// Four calls decide, each for a caller that needs it, and none allocates:
//   - [Robots.Allowed], the one-line question, and the cheapest on a
//     string: a verdict, without its reason;
//   - [Group.Decide], the verdict with the rule that decided it, for a
//     URL held as a string: for many URLs and one agent, look the group up
//     once with [Robots.Group];
//   - [Group.AllowedURL] and [Group.DecideURL], the same for a parsed
//     URL, as a request carries it: AllowedURL is what the Transport asks
//     before each request, without building a Decision, and DecideURL
//     gives the Decision of a refusal.
//
// # Matching
//
// A crawler follows the union of the groups that name its product token
// (compared without regard to case), or else of the "*" groups; with
// neither, every URL is allowed (RFC 9309 §2.2.1). The token is taken from
// a full User-Agent value ("FooBot/2.1 (+https://…)" or "Mozilla/5.0
// (compatible; FooBot/2.1)") by [ProductToken]. A user-agent line in the
// file names the token its value starts with ("FooBot/1.0" names FooBot).
//
// Within the group, the rule with the longest pattern that matches decides,
// and an Allow wins a tie with a Disallow (RFC 9309 §2.2.2). Pattern length
// is counted in octets of the normalised pattern, '*' and '$' included. '*'
// matches any sequence of characters and a final '$' anchors the pattern at
// the end of the URL (§2.2.3). A URL no rule matches is allowed, and
// /robots.txt is always allowed. Lines that are not "key: value", rules
// before the first user-agent line, and unknown keys are ignored; other
// records such as Sitemap or Crawl-delay never end a group (§2.2.4). The
// first 500 KiB of a body are parsed (§2.5; see [Parser.MaxSize]).
//
// Matching does not look at every rule of a large group: prefix rules are
// found by binary search, and wildcard rules through an automaton over
// their literals, which leaves only those whose literals all occur in the
// URL to be tried. The cost of a query grows with the length of the URL
// (and those few candidates), not with the number of rules, and no pattern
// makes matching backtrack. Groups of up to 24 rules, too small to need
// such an index, are matched rule by rule. The Group of one such group
// holds its rules' order, best first, and the second byte of each, which
// rules most of them out at once (80 bytes): the first that matches
// decides.
//
// # Percent-encoding
//
// In the RFC9309 dialect, patterns and URLs are compared in a canonical
// form (RFC 9309 §2.2.2 and its Figure 4):
//   - bytes outside printable ASCII, and ASCII characters a URI may not
//     hold unencoded (space, "<>\^`{|}), are percent-encoded: a raw
//     "/ツ" and "/%E3%83%84" are the same path;
//   - percent-encoded unreserved characters are decoded: "/%62az" is
//     "/baz"; so are ':' and '@', and, in the query, '/' and '?', which
//     RFC 3986 lets stand for themselves there;
//   - other percent-encoded reserved characters stay encoded: "/a%2Fb" and
//     "/a/b" differ; hex digits are upper-cased;
//   - in a URL, '*' and '$' are compared as "%2A" and "%24", so a pattern
//     matches them only when written that way (§2.2.3, Figure 6);
//   - a pattern cannot always tell whether it meets a path or a query:
//     a "%2F" or "%3F" it holds after a '*' and before any '?' matches
//     that escape in a path, and the decoded '/' or '?' in a query, so
//     "/*redirect=http%3A%2F%2F" disallows "/go?redirect=http%3A%2F%2Fx".
//     A pattern with more than 8 literals between its first '*' and the
//     first that holds such an escape is not read that exactly (its size
//     would grow with the square of its length): a Disallow then matches
//     as if each such escape were '*', an Allow only as written, so it
//     disallows more, never less.
//
// The Google dialect compares URLs as given, byte for byte: callers must
// percent-encode them (as [net/url.URL.RequestURI] does), and patterns are
// only normalised by percent-encoding non-ASCII bytes and upper-casing hex
// digits, as Google's library does.
//
// # Dialects
//
// [RFC9309] is the default. [Google] reproduces github.com/google/robotstxt
// and passes every vector of its test suite. [Koster1996] follows the 1996
// Internet-Draft that RFC 9309 grew from. What each decides differently:
//
//	                          RFC9309               Google                 Koster1996
//	which rules apply         union of the groups   same                   first record naming the
//	                          naming the token,                            robot (a substring of its
//	                          else of "*" groups                           user-agent value), else
//	                                                                       the first "*" record
//	which rule decides        longest pattern;      same                   first matching rule
//	                          Allow wins a tie
//	'*' and final '$'         wildcard, end anchor  same                   plain characters
//	blank lines               ignored               ignored                end a record
//	"disalow: /x", "useragent" unknown keys         accepted typos         unknown keys
//	"allowed: /x"             unknown key           Allow (key prefixes)   unknown key
//	"disallow /x"             ignored (no colon)    Disallow               ignored
//	line over 16,663 bytes    read whole            cut                    read whole
//	"/%62az" vs "/baz"        the same              different              the same
//	raw "/ツ" vs "/%E3%83%84"  the same              different              the same
//	"/a%2Fb" vs "/a/b"        different             different              different
//	Allow: /d/index.html      allows /d/index.html  also allows "/d/"      allows /d/index.html
//	/robots.txt               always allowed        decided by the rules   always allowed
//	401 and 403 (Transport)   allow everything      allow everything       disallow everything
//	no cache directives       Last-Modified/10,     same                   7 days
//	(Transport)               or 24 hours
//
// One example each, for the agent FooBot:
//
//	User-agent: *          RFC9309 and Google: /a/b.html is disallowed (the
//	Allow: /a              longer "/a/" wins). Koster1996: allowed (the first
//	Disallow: /a/          match, "/a", decides).
//
//	User-agent: *          Google: /x is disallowed (typo accepted). RFC9309
//	Disalow: /x            and Koster1996: allowed (unknown key).
//
//	User-agent: foobot     RFC9309 and Google: /a and /b are both disallowed
//	Disallow: /a           (the two groups merge). Koster1996: only /a (the
//	                       first record is followed alone).
//	User-agent: foobot
//	Disallow: /b
//
// Seven vectors of Google's suite contradict RFC 9309 and are flagged so in
// the conformance data; the RFC9309 dialect gives the other verdict on each,
// for the reasons in the table: ID_LineSyntax_Line-03 (missing colon),
// ID_Encoding-03, -05 and -06 (encoding), GoogleOnly_IndexHTMLisDirectory-01,
// and GoogleOnly_LineTooLong-02 and -05 (line length). RFC9309 and Google
// take the leading product token of a user-agent value ("FOO BAR" names FOO)
// and read "* anything" as "*", as Google does; RFC 9309 leaves these open.
//
// # Explanations and reporting
//
// [Group.Decide] returns the rule that decided, with its line, and the
// group followed. [Parser.Scan] feeds the directives of a file, with their
// line numbers, to any [Handler]; [Parser.Report] uses it to describe every
// line as a linter shows it (typos, missing colons, comments, unknown keys),
// from the same parse that [Parse] performs. [Parse] is a Scan into a
// [Builder]; a caller that reads other records of the file (such as the
// acap package) can feed a Builder from its own Scan and get the [Robots]
// without a second parse.
//
// # Extensions
//
// Groups carry Crawl-delay ([Group.CrawlDelay], fractional seconds) and
// Request-rate ([Group.RequestRate]); the file carries Sitemap URLs
// ([Robots.Sitemaps]) and the Host line ([Robots.Host]). Lines the dialect
// does not interpret are kept, with their line numbers ([Robots.Unknown]).
//
// A Crawl-delay or Request-rate line applies to the user-agent lines above
// it in its group. Since such lines do not end a group, in
//
//	User-agent: a
//	Crawl-delay: 5
//	User-agent: b
//	Disallow: /x
//
// both a and b follow "Disallow: /x" (as RFC 9309 and Google have it), but
// only a has a crawl-delay (as the file's author meant).
package policy
