// Command robotsguard answers two questions from a terminal or a script:
// why a crawler using robotsguard's Transport is refused a URL, and what
// crawlers will do with a robots.txt.
//
//	go install github.com/robotsguard/robotsguard/cmd/robotsguard@latest
//
// Usage (flags come before arguments):
//
//	robotsguard check   [-robots FILE|-] [-agent NAME] [-dialect rfc9309|google|koster1996] [-acap USAGE | -usage CATEGORY [-tdmrep FILE] [-rsl FILE]] [-key FILE -signature-agent URL] [-json] [-urls FILE] [URL...]
//	robotsguard lint    [-json] FILE|URL
//	robotsguard fetch   [-agent NAME] [-key FILE -signature-agent URL] [-json] URL
//	robotsguard diff    [-agent NAME] [-json] [-urls FILE] OLD NEW [URL...]
//	robotsguard keygen  [-o FILE]
//	robotsguard directory KEYFILE...
//	robotsguard sitemaps [-agent NAME] [-json] [-limit N] URL|FILE...
//	robotsguard version [-json]
//	robotsguard help    [COMMAND]
//
// Every request the commands send (robots.txt files, ACAP permissions
// references, tdmrep.json files, sitemaps) carries the User-Agent of the crawler
// -agent names, or, without -agent (or with "*"), robotsguard's own:
// robotsguard-cli/VERSION (+https://github.com/robotsguard/robotsguard),
// VERSION being that "robotsguard version" prints. Its product token,
// robotsguard-cli, does not change: a robots.txt can name it. The "*"
// agent still follows the "*" group, not a robotsguard-cli one.
//
// "robotsguard help COMMAND", or "robotsguard COMMAND -h", prints what the
// command does and its flags on standard output, and exits 0; a flag
// error prints the usage on standard error, and exits 2.
//
// # check
//
// Check decides URLs for an agent (-agent, a product token or a whole
// User-Agent value; "*", the default, follows the "*" group). Without
// -robots, the robots.txt of each URL's origin is fetched by a
// robotsguard.Transport, exactly as a crawler using it would fetch it
// (redirects, status rules, size cap, retries), and each URL gets the
// Transport's verdict (Transport.Check). With -robots, the file (or "-",
// standard input) is parsed in the -dialect given and the URLs may be
// paths. -acap USAGE decides by the file's ACAP 1.1 records instead, for
// that usage (crawl, index, present-snippet, …). -usage CATEGORY decides
// a use of each URL by every signal of its site (package usage): the
// robots.txt's rules, ACAP records, Content-Usage and Content-Signal
// lines, for tdm and train-ai the site's tdmrep.json (fetched live, or
// read from -tdmrep FILE with -robots), and for every category but crawl
// the RSL licences its License lines name (fetched live, or read from -rsl
// FILE with -robots). CATEGORY is crawl, search,
// snippet, archive, train-ai, ai-input or tdm; each URL's verdict is
// allowed, disallowed or unknown (no signal speaks of the use), and check
// exits 1 when the use is disallowed for any URL. -urls reads URLs from a
// file, one a line, or from a crawl log: the request target of an
// access-log line ("GET /a HTTP/1.1"), else the first http(s) URL of the
// line (a line that starts with "/" is a path); it warns on standard
// error of the lines it skips, and a file with no URL is an error. On a
// terminal, long lists show their progress on standard error.
//
// For each URL it prints the verdict, the deciding rule and its line, and
// the group followed:
//
//	VERDICT     LINE  URL                                RULE                    GROUP
//	disallowed  2     https://example.com/private/plans  Disallow: /private/     "*" (line 1)
//	allowed     -     /                                  no rule matches         "*" (line 1)
//
// # lint
//
// Lint reads a file, or the robots.txt of an origin as the Transport
// fetches it, and lists what its owner should fix, each finding with its
// line, severity (error: crawlers do not read the file as meant;
// warning: some crawlers read it differently, or it has no effect; info:
// harmless) and a fix hint. Findings, by code:
//
//	html, binary          the body is an HTML or XML page, or binary data, not a robots.txt
//	not-robots            no line is a directive: an error page or API response (JSON, plain text)
//	too-large             content past 500 KiB, which crawlers ignore
//	bom                   a byte order mark
//	invalid-utf8          a line that is not UTF-8 (the first three)
//	missing-colon         "User-agent FooBot": RFC 9309 ignores it and its rules join the group above
//	misspelt              a key Google reads as a typo ("Disalow"), or close to a standard key
//	                      or to Content-Usage or Content-Signal ("ContentSignal")
//	unknown-directive     a key no crawler reads (Content-Usage, Content-Signal and ACAP-… lines
//	                      are read: see ignored-value and acap)
//	agent-token           a User-agent whose name is not a product token ("MJ12bot" names "mj",
//	                      "360Spider" nothing): crawlers sending that name do not follow the group
//	rule-outside-group    an Allow or Disallow before any User-agent line
//	pattern-start         a pattern that starts with neither "/" nor "*"
//	shadowed              a rule that never decides: another rule of its group matches every URL it
//	                      matches and wins (longer, or an Allow of the same length), with the other verdict
//	redundant             the same, with the same verdict (a duplicate, or a rule a longer one covers)
//	crawl-delay-capped    a Crawl-delay or Request-rate past robotsguard.DefaultMaxDelay (30 s)
//	ignored-value         a Crawl-delay or Request-rate that does not parse or is outside a group;
//	                      a Content-Usage or Content-Signal line outside a group, or whose value
//	                      package usage (check -usage) cannot read or reads nothing from: a
//	                      Content-Usage that usage.ParsePreferences rejects ("train-ai=N") or that
//	                      states no y or n for train-ai, ai-use or search ("train-ai=no",
//	                      "train-genai=n"); a Content-Signal with an element that is not key=value
//	                      or whose value is neither yes nor no, or with none of search, ai-input
//	                      and ai-train
//	sitemap-relative      a Sitemap that is not an absolute URL
//	dialect-difference    a line where RFC 9309 and Google's reading decide a URL differently,
//	                      with that URL (derived from the patterns of the file's rules)
//	acap                  an ACAP field that ACAP 1.1 does not let a crawler interpret
//	unavailable           (a URL only) the origin serves no robots.txt
//	challenge             (a URL only) the answer is not a robots.txt but a bot challenge (Anubis, a CDN's):
//	                      crawlers that read it by its status crawl everything; the Transport reads the
//	                      origin as unreachable
//
// Shadowed and redundant rules are found by reasoning on patterns as RFC
// 9309 reads them (the longest match wins, Allow on a tie): a literal
// pattern is covered by a rule whose pattern is a prefix of it padded with
// '*'s to at least its length, or by a wildcard pattern that matches it;
// a wildcard pattern only by an equivalent one.
//
// # fetch
//
// Fetch shows what the Transport does with an origin: the status and what
// it means, the redirects followed, the cache lifetime and what set it,
// in words (from the Transport's Observer: "1h (Cache-Control max-age)",
// "24h (Cache-Control max-age, capped at 24h)"; the lifetime, less the
// age of the response on arrival, which the Date header's resolution and
// the time the response took make up to seconds more, is rounded up to
// the second, and to the minute from ten minutes on), the validators (ETag,
// Last-Modified), the pause kept between requests of -agent (and the one
// the file asks, when that is more than the Transport keeps), the
// Crawl-delay and Request-rate of every agent, the sitemaps, and the ACAP
// records, if any (version, permissions references, action requests for
// -agent, problems).
//
// # Signed requests: keygen, directory, -key
//
// With -key FILE and -signature-agent URL, check (without -robots) and
// fetch sign every request they send as a Web Bot Auth crawler (package
// botauth): robots.txt fetches, their redirects and pages. Keygen makes
// the Ed25519 key (PKCS#8 PEM, to -o FILE, mode 0600, never over an
// existing file), and directory prints the JSON Web Key Set of keys to
// serve at URL/.well-known/http-message-signatures-directory. Fetch then
// shows the Signature-Agent and Signature-Input its robots.txt request
// carried:
//
//	robotsguard keygen -o key.pem
//	robotsguard directory key.pem > directory.json
//	robotsguard fetch -key key.pem -signature-agent https://crawler.example https://example.com
//
// A key file that cannot be read exits 3; -key without -signature-agent,
// or an agent URL that is not https, exits 2.
//
// # diff
//
// Diff compares two versions of a robots.txt (OLD and NEW, each a file,
// "-", or an http(s) URL whose origin's robots.txt is fetched, as -agent
// when it is given) over URLs: those of -urls (a URL list or a crawl log,
// read as check reads it) and the arguments, or, when none is given, paths
// derived from the patterns of both files' rules. It lists, for each agent (-agent, or every agent
// either file names, and "*"), the URLs whose verdict changes, with the
// deciding rule on each side, and whether the pause the file asks of the
// agent between requests changes (its group's Crawl-delay, or else the
// interval of its Request-rate; "Crawl-delay: 1" and "Request-rate: 1/1s"
// ask the same), with the line on each side:
//
//	AGENT   OLD PAUSE                           NEW PAUSE
//	*       200ms by Crawl-delay: 0.2 (line 3)  1s by Crawl-delay: 1 (line 3)
//	gptbot  none asked                          10s by Request-rate: 1/10s (line 7)
//
// Site owners run it before they deploy a new file.
//
// # sitemaps
//
// Sitemaps lists the URLs of sitemaps (package sitemap), one a line with
// its lastmod (UTC, "-" when it has none or one that does not parse):
// for a site's URL (its root, or its robots.txt), those of the sitemaps
// its robots.txt lists; for any other URL, those of the sitemap there;
// for a file, those of the file (an index's sitemaps are listed, marked
// "(sitemap)", not read). Indexes fetched are followed. Every file is
// fetched by a robotsguard.Transport as -agent, as a crawler's requests
// are: paced, and refused when robots.txt disallows it. Errors (a
// sitemap refused or unreadable, a URL that is not absolute or is outside
// the sitemap's scope) go to standard error as they come, and the walk
// goes on; a summary ends it. -limit stops after N URLs.
//
//	2024-05-06T00:00:00Z  https://example.com/
//	-                     https://example.com/about
//
// # version
//
// Version ("-version" and "--version" too) prints the version of the
// command: the module version it was installed at (go install
// …@v1.2.3), or "(devel)" for a build from a checkout; the Go version and
// platform it was built with; the VCS revision, its time and whether the
// tree was modified, when the build recorded them; and the User-Agent the
// commands send when no -agent names a crawler.
//
// # Exit status
//
//	0  check: every URL allowed; diff: no verdict or pause changes; lint: no error; fetch: the file was read;
//	   sitemaps: a URL was read
//	1  check: the site disallows a URL (by a rule, a status, ACAP or a usage signal);
//	   diff: a verdict or a pause changes; lint: a finding of severity error; sitemaps: no URL could be read
//	2  usage: an unknown command or flag, a missing argument, a path where a URL is needed
//	3  failure: a file cannot be read; fetch, lint or diff: the robots.txt is unreachable
//	   (or, for lint and diff, its status disallows everything); check: no URL is
//	   disallowed by the site, but a verdict rests on a robots.txt or an ACAP
//	   permissions reference that could not be read (its URL is refused, and may be
//	   allowed once the file is read: "unread" in -json)
//
// # Output
//
// Human output is aligned in columns, coloured only when standard output
// is a terminal and NO_COLOR is not set. With -json each command writes
// one JSON object; its fields are stable (new ones may be added):
//
//	check  {"agent", "dialect", "acap"?, "usage"?, "robots": [{"source", "status"?, "access"?, "error"?}],
//	        "results": [verdict], "disallowed", "unread"?}
//	lint   {"source", "bytes", "findings": [{"line", "severity", "code", "message", "hint", "example"?}],
//	        "errors", "warnings"}
//	fetch  {"origin", "url", "redirects"?: [{"url", "status", "location"}], "status", "access",
//	        "meaning", "outcome"?, "error"?, "bytes", "truncated"?, "lifetime_seconds",
//	        "lifetime_source"?, "fresh_until", "etag"?, "last_modified"?, "agent", "delay_seconds",
//	        "delay_asked_seconds"?, "agents": [{"agent", "line", "rules", "crawl_delay"?, "request_rate"?}],
//	        "sitemaps",
//	        "acap"?: {"version"?, "references"?, "actions"?, "problems"?}}
//	diff   {"old", "new", "agents", "urls", "derived", "changes": [{"agent", "url", "old": verdict, "new": verdict}],
//	        "pauses": [{"agent", "old": pause, "new": pause}]}
//	sitemaps {"urls": [{"loc", "kind"?, "lastmod"?, "lastmod_raw"?, "changefreq"?, "priority"?,
//	        "images"?, "alternates"?: [{"hreflang", "href"}], "news"?: {"name"?, "language"?, "title"?,
//	        "published"?}, "sitemap"?}], "count", "sitemaps", "errors": [{"sitemap"?, "loc"?, "line"?,
//	        "error"}], "errors_total"} (the first 1,000 errors)
//	version {"version", "go", "platform", "revision"?, "time"?, "modified"?, "user_agent"}
//
// where a pause is {"seconds", "directive"?, "line"?, "group"?,
// "group_line"?} (seconds is 0 when the file asks none), a verdict is
// {"url", "allowed", "usage"?, "basis", "rule"?, "line"?, "group"?,
// "group_line"?, "robots"?, "detail"?, "qualifiers"?, "unread"?} and basis is one of
// "rule", "no-match", "no-group", "robots.txt" (always allowed),
// "unavailable" (no robots.txt: everything allowed), "unreachable",
// "status" (the status disallows everything), "acap-field", "acap-none",
// "acap-conflict" or "acap-reference" (an unreadable permissions
// reference); with -usage, "usage" is "allowed", "disallowed" or "unknown",
// "qualifiers" lists the conditions attached, and basis is "usage-" followed
// by the signal that decided (robots-rules, acap, content-usage,
// content-signal, x-robots-tag, meta-robots, tdmrep, rsl) or "usage-unknown".
// "unread" is true when the verdict rests on a file that could not be read,
// and could change once it is. Fields marked ? are omitted when empty.
package main
