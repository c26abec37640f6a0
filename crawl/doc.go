// Package crawl is a crawl loop that never stalls on one origin: a
// Frontier holds the URLs of a crawl in one queue per origin, and hands
// each free worker a URL of the origin whose turn comes first.
//
//	f := &crawl.Frontier{Transport: t} // t: the client's robotsguard.Transport
//	for _, u := range seeds {
//		f.Add(ctx, u) // disallowed URLs are dropped here, with Check's error
//	}
//	err := f.Run(ctx, client, 64, func(ctx context.Context, it crawl.Item, resp *http.Response, err error) error {
//		// read resp, f.Add its links
//		return nil
//	})
//
// The Transport paces each request inside RoundTrip: a worker that sends a
// request to an origin whose turn has not come waits for it there. A pool
// of workers fed URLs in the order they were found (a sitemap lists a
// site's URLs together) then has every worker waiting on the same origin's
// Crawl-delay while the other origins sit idle, and, with Client.Timeout,
// requests failing with *robotsguard.PacingError. The Frontier hands out a
// URL only once its origin's turn has come, so the workers are busy with
// the requests that may go.
//
// An origin's turn is learned, not asked for: the pause the Transport keeps
// (Snapshot's Delay, read again when the robots.txt's lifetime ends), which
// counts from when each request is handed out and from when it is Done
// (the Transport counts it from the end of the response); at most
// Transport.MaxRequestsPerOrigin URLs of an origin in flight; the
// NotBefore of a *robotsguard.PacingError, whose URL is queued again; and
// a 429 or 503 answer, as the Transport throttles. A Pacer that is a
// Peeker (a fleet's, whose other processes take turns too, as
// robotsredis.Fleet) is asked after each response. The Transport still paces every request: a turn the
// Frontier gets wrong costs a wait, never a request sent too soon.
//
// Add checks each URL with Transport.Check, fetching its origin's
// robots.txt as needed, and queues those allowed, and those refused only
// because the robots.txt could not be fetched (transient, RFC 9309
// §2.3.1.4): they wait until the Transport fetches it again, through
// Retries failed fetches in a row, and so do such URLs refused as they
// are sent. MaxQueued bounds
// the URLs queued and in flight (ErrFull past it), and the state of an
// origin with nothing queued or in flight is dropped once its turn comes.
//
// Run is a worker pool. A pool of one's own calls Next, sends the request,
// reads or closes the body, and calls Done with the response or error.
// colly does the same: a loop calls Next and Collector.Request, with the
// Item in the request's Context, and OnScraped and OnError call Done (with
// robotscolly's Guard.PacingError); with AllowURLRevisit, so that a URL
// queued again can be sent again. Every Item must be Done, once.
//
// The Frontier does not remember the URLs it has seen: a crawl that
// follows links dedupes them before Add.
package crawl
