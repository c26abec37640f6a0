// Package robotsguard makes an http.Client obey robots.txt. Its Transport
// fetches and caches each origin's robots.txt (RFC 9309, with HTTP caching
// per RFC 9111), refuses disallowed requests before they leave the process,
// and paces the requests to every origin:
//
//	client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)"}}
//	resp, err := client.Get("https://example.com/private/report")
//	var d *robotsguard.DisallowedError
//	if errors.As(err, &d) { // errors.Is(err, robotsguard.ErrDisallowed) too
//		log.Print(d) // robotsguard: disallowed for "FooBot" by https://example.com/robots.txt line 7 "Disallow: /private/" (group "*")
//	}
//
// Three things a crawler does with it: name itself in UserAgent (robots.txt
// is read for that agent, and every request goes out as it); read or close
// every response body (an origin's next request waits for the end of the
// previous response); and requeue a URL whose request fails with a
// *PacingError (its deadline came before the origin's turn) for its
// NotBefore, rather than drop it.
//
// Because an http.Client calls its Transport for every redirect, redirect
// targets are checked too. Requests for /robots.txt itself are not checked;
// a plain GET is answered from the cache once it holds files whole (after
// the first such request, or with a Store; until then it keeps only their
// parsed rules).
//
// # Asking without sending
//
// Transport.Check returns the verdict RoundTrip would reach on a request,
// without pacing or sending it: a frontier filters URLs with it before it
// queues them. Transport.Snapshot returns an origin's robots.txt as the
// Transport holds it (a Snapshot: rules, Sitemaps, the pause kept between
// requests, and whether the file could be fetched), and Transport.Prefetch
// fetches the files of many origins at once, bounded. All three fetch and
// cache as RoundTrip does: it is built on them.
//
// # Errors
//
// A refusal matches ErrDisallowed and is a *DisallowedError: the URL, the
// agent, the Reason (a rule, an unreachable robots.txt, a status that
// disallows all, ACAP, a Crawl-delay above MaxDelay), and the deciding
// rule with its line. Its message says why, not which request: an
// http.Client puts the method and URL before it. A URL that has no
// robots.txt (relative, not http or https, no host) matches
// ErrUnsupportedURL. A robots.txt that cannot be fetched is described by
// a *FetchError (errors.As finds it through the refusal), which holds a
// *PanicError when Base panicked. When a request's context ends while it
// waits for its origin's rules, the error wraps the context's
// (context.Canceled, context.DeadlineExceeded); while it waits for its
// origin's pace, it is a *PacingError, which does too, and says in how
// long the origin may be asked again. A 402 answer that asks a price
// (pay-per-crawl) and is not paid is a *pay.PaymentRequiredError, and a
// charge above what was offered a *pay.OverchargeError (see Payment).
//
// # Fetching
//
// The robots.txt of an origin (scheme, host and port; hosts compared
// lower-case and in punycode, IPv6 addresses in their RFC 5952 form,
// trailing dots and default ports dropped) is fetched once, even by a
// thousand concurrent requests, through the Base transport. Redirects
// are followed five hops, across hosts; the rules then apply to the
// original origin. What a status means is the StatusPolicy's call:
//
//	2xx                       the rules apply (the first 500 KiB are read)
//	3xx after 5 redirects,    unavailable: everything allowed
//	4xx except 429            (RFC 9309 §2.3.1.3; the 1996 draft disallows on
//	                           401 and 403: Koster1996StatusPolicy)
//	5xx, 429, network errors, unreachable: nothing allowed, but a cached copy
//	timeouts, truncated body,  of the file stands in for up to 30 days
//	undecodable coding         (RFC 9309 §2.3.1.4)
//
// A body served with a gzip or deflate content coding that was not undone
// on the way is decoded, within the same size bound; any other coding makes
// the file unreachable rather than read as text without rules. An answer
// that cannot be the file is not read as one, whatever the StatusPolicy: a
// 206 Partial Content, a 304 Not Modified to a request that was not
// conditional, and a 3xx without a Location are unreachable too (see
// DefaultStatusPolicy). Nor is a bot challenge (Anubis, a CDN's challenge
// page) served for the file, which RFC 9309 and Google read by its status
// alone, where it would open the whole site it guards:
//
//	answer                       RFC 9309            Google              the Transport
//	200 HTML challenge page      rules: none, so     rules: none, so     unreachable
//	                             all allowed         all allowed         (NotRobotsTxtError)
//	                             (§2.3.1.1)
//	401/403 challenge page       unavailable: all    unavailable: all    unreachable
//	                             allowed (§2.3.1.3)  allowed
//	429/503 challenge page       unreachable         unreachable         unreachable
//	                             (§2.3.1.4)
//	200 HTML page, no challenge  rules: none         rules: none         rules: none, with
//	                                                                     FetchEvent.Warning
//
// A challenge is recognised conservatively: a header field its vendor
// documents (cf-mitigated: challenge; x-amzn-waf-action: challenge or
// captcha), or an HTML body with no robots.txt line and a challenge's
// marks (see NotRobotsTxtError). The response header of a fetch is bounded to
// MaxFetchHeaderBytes when Base is an *http.Transport or nil; another Base
// bounds it as it does, and FetchTimeout bounds its time.
//
// Paths are matched as written, as RFC 9309 says: /a/../private and
// //private are not /private. A server that resolves them serves /private
// all the same; NormalizePaths refuses such requests when the resolved path
// is disallowed.
//
// Failed fetches are retried with go-retryablehttp (exponential back-off,
// Retry-After honoured); after a failed fetch, the next waits a minute,
// doubling up to an hour. A robots.txt unreachable for 30 days with no copy
// is then treated as unavailable, unless DisallowWhileUnreachable is set.
// FetchTimeout bounds all of it: no request waits longer for its origin's
// rules.
//
// # Caching
//
// Fetched files are kept, parsed, in an in-memory LRU bounded in bytes, and
// optionally in a shared cache.Store (disk, memcache, Redis: a Transport
// that finds a fresh entry there does not fetch). How long one is used is
// RFC 9111 freshness (max-age, Expires, Age, heuristics on Last-Modified),
// capped at 24 hours and raised to one minute; a stale file is revalidated
// with If-None-Match and If-Modified-Since. See package cache. Store calls
// are bounded by the fetch's deadline and their failures cost a fetch, never
// a refusal or a request the rules refuse.
//
// # Pacing
//
// Requests to one origin go one at a time (MaxRequestsPerOrigin), in the
// order they came, each after the previous response ended (its body read
// or closed) and its robots.txt's Crawl-delay (or Request-rate) for the
// agent has passed, capped at MaxDelay (or refused, with
// RefuseAboveMaxDelay), or Delay (one second by default). A 429 or 503
// response holds the origin for its Retry-After, or a doubling pause.
// NoPacing turns all of it off, for tests and your own sites. MaxRate caps
// the requests of the whole Transport per second, whatever their origins.
// The Clock drives these waits and cache freshness alike; tests plug in a
// fake one, and a Pacer shared through Redis paces a fleet (package
// robotsredis).
//
// The pacing wait runs inside the request, so within its deadline: an
// http.Client's Timeout (or colly's request timeout) counts it. A request
// that cannot go before its deadline fails at once, unsent, with a
// *PacingError that matches context.DeadlineExceeded and says when the
// origin may next be asked (NotBefore): requeue the URL for then, rather
// than losing it. Module robotsretry fits go-retryablehttp to this.
//
// # Observing
//
// An Observer is told of every robots.txt fetch (its outcome, status,
// duration, size, and the lifetime chosen with the header that set it),
// every refusal, every pacing wait, every Crawl-delay capped at
// MaxDelay, and every charge for a page; Transport.Stats returns counters. Logger, when set, logs
// refusals and fetches at Debug level, and failures and capped delays at
// Warn.
//
// # ACAP
//
// With ACAP set, the Transport also obeys the ACAP 1.1 extensions of
// robots.txt (package acap): crawling a URL must be permitted by the ACAP
// records addressed to the agent, pooled with the conventional records, and
// the resources named by ACAP-permissions-reference fields are fetched and
// cached as the robots.txt is. ACAPPolicy gives the same policy for the
// other usages of what was fetched (index, present, …).
//
// # Beyond crawling
//
// Transport.Usage answers what a page may be used for (search, snippets,
// archives, AI training and input, text and data mining) by every signal
// of its site and of the page: the robots.txt's Content-Usage and
// Content-Signal lines, which the Transport reads with the file it already
// holds, the site's tdmrep.json, and the X-Robots-Tag, Content-Usage and
// TDMRep header fields and meta tags of a response (usage.ReadResponse).
// See package usage.
//
// Transport.Payment lets it pay for pages that charge crawlers
// (Cloudflare's pay-per-crawl), up to a price per request and within
// budgets; without it, nothing is paid. See package pay.
package robotsguard
