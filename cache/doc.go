// Package cache decides how long a fetched robots.txt may be used, and keeps
// it: HTTP caching (RFC 9111) bounded as the Robots Exclusion Protocol asks
// (RFC 9309 §2.4).
//
//	e := &cache.Entry{Status: 200, Body: body, Header: cache.KeepCaching(resp.Header),
//		Requested: sent, Received: got}
//	var p cache.Policy                                  // the zero value is the default policy
//	if time.Now().Before(p.Freshness(e).Until) { /* use it */ }
//	req.Header = e.Validators()                         // else revalidate: If-None-Match, If-Modified-Since
//
// # Freshness
//
// A response's freshness lifetime follows RFC 9111 §4.2.1: max-age
// (including 0) over Expires, an Expires that does not parse meaning
// expired, and otherwise a heuristic lifetime of a tenth of the time since
// Last-Modified (§4.2.2). Its age is the corrected age of §4.2.3, from the
// Age and Date fields and the request and response times. The lifetime is
// then capped at 24 hours: a crawler should not use a robots.txt longer
// without trying to fetch it again (RFC 9309 §2.4).
//
// The lifetime is also raised to a floor, one minute by default: a
// robots.txt served with "no-cache", "no-store" or "max-age=0" would
// otherwise be fetched again before every page, doubling a crawler's
// requests to the site. Past the floor such a response is revalidated with
// a conditional request, which costs the site a 304. A Strict policy drops
// the floor and applies RFC 9111 as written.
//
// While a robots.txt cannot be fetched (5xx, network errors), a stored
// copy stands in for it for up to 30 days after its last successful fetch
// (RFC 9309 §2.3.1.4).
//
// # Storage
//
// The transport keeps parsed robots.txt files in memory, bounded in bytes
// by an LRU. A Store shares encoded entries between processes or keeps them
// across restarts: its calls take a context and return errors, and a write
// carries the entry's lifetime (Policy.Expiry), so that a shared store
// drops it once it can no longer stand in for the file. Keys (Key) carry
// the version of the encoding: processes of two versions sharing a Store
// keep their entries apart, and an entry of another version is skipped
// (ErrVersion), never deleted. FromLegacy adapts the backends of
// github.com/gregjones/httpcache (disk, LevelDB, memcache). (httpcache
// itself is not used for freshness: it ignores Age, has no heuristic
// freshness, drops entries on 5xx responses and lets a request's max-age
// extend a response's lifetime.)
package cache
