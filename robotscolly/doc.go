// Package robotscolly makes a colly collector (github.com/gocolly/colly/v2)
// obey robots.txt through a robotsguard.Transport:
//
//	c := colly.NewCollector()
//	g, err := robotscolly.Attach(c, &robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)"})
//	if err != nil {
//		log.Fatal(err)
//	}
//	c.OnError(g.Requeue(func(r *colly.Response, err error) {
//		if errors.Is(err, robotsguard.ErrDisallowed) {
//			return // robots.txt refuses it: nothing was sent
//		}
//		log.Print(err) // a network error, a status of 400 and above
//	}))
//
// Every request of the collector, redirect hops included, then goes through
// the Transport: a request that robots.txt disallows is not sent, and
// reaches OnError with an error that matches robotsguard.ErrDisallowed.
//
// # Proxies
//
// colly's SetProxy and SetProxyFunc replace the transport of a collector
// with a new *http.Transport unless the transport already is one, which
// would remove the Transport without a word. Attach gives the collector an
// *http.Transport that sends nothing itself (it hands every http and https
// request to the Transport, and refuses to dial), so those methods keep it,
// and the proxy they set is used by the Transport's Base, which Attach
// provides when it is nil. A proxy can also be set in Base directly.
//
// A collector whose transport or client is replaced after Attach
// (WithTransport, SetClient) would send around the Transport: its requests
// are aborted before they are sent, and reach OnError with
// colly.ErrAbortedBeforeRequest; the Transport's Logger, if set, says why.
//
// # Deadlines
//
// colly's client gives each request 10 seconds (SetRequestTimeout), and
// the Transport's pacing wait runs inside them: a request whose turn comes
// after its deadline is not sent and fails at once with a
// *robotsguard.PacingError. colly marks a URL visited before its request is
// sent, so such a request is lost unless it is sent again: Guard.Requeue
// returns an OnError callback that waits for the origin's turn and retries
// it (and so does a request refused because its origin's robots.txt could
// not be fetched, when the Transport fetches it again: see Requeue).
// Guard.PacingError tells pacing refusals apart in OnError, where
// errors.As alone misses some: http.Client replaces the error of a request
// whose Timeout has passed with its own.
//
// # colly's own robots.txt check
//
// With IgnoreRobotsTxt false (colly's default is true), colly fetches
// /robots.txt itself, through the Transport, and checks each URL with
// github.com/temoto/robotstxt for the collector's User-Agent before the
// Transport decides. Both must allow a URL; a URL that colly's check
// refuses fails Visit with colly.ErrRobotsTxtBlocked and never reaches
// OnError, and the two readings differ on some files (wildcards, longest
// match, agent names). Leave IgnoreRobotsTxt true to have the Transport
// alone decide, by RFC 9309, with refusals that name the rule and its line.
package robotscolly
