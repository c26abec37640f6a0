// Package robotsredis lets a fleet of crawler processes obey robots.txt as
// one crawler, through Redis: each origin's robots.txt is fetched once for
// the whole fleet, and the fleet's requests to an origin are spaced by its
// Crawl-delay together, not each process's alone.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true,
//		DialerRetries: 1}) // a refused call fails in 0.1 s (see Fleet.CallTimeout)
//	fleet := &robotsredis.Fleet{Client: rdb, Size: 8} // 8 processes
//	defer fleet.Close()
//	client := &http.Client{Transport: &robotsguard.Transport{
//		UserAgent: "FooBot/1.0 (+https://example.com/bot)", Store: fleet, Pacer: fleet}}
//
// # The robots.txt cache
//
// A Fleet is a cache.Store: the Transport keeps parsed files in memory and
// asks Redis only when it holds no fresh copy, so a hot origin costs no
// round trip for its rules. Entries are the root package's encoding, its
// HTTP dates held as numbers, deflated with a dictionary of common
// robots.txt lines behind a header of this package's own (a format byte,
// the length and a CRC-32C: a file of 3 KB takes about 1 KB of Redis
// memory), kept for as long as they may stand in for an unreachable file
// (30 days by default), under
// "robotsguard/e2/{https://example.com}/robots.txt": the origin is a hash
// tag, so an origin's entry, lock and pace share one Redis Cluster slot.
// Entries stored by older versions (uncompressed, or with their dates
// spelled out) are read; a value in a format this version does not know,
// or that does not decode, is a miss (logged), never an error or another
// entry.
//
// # One fetch per origin
//
// A Fleet is a cache.Locker too: a process that needs a file nobody holds
// fresh takes the origin's lock (SET NX PX, with a random token, released
// by a compare-and-delete script); the others wait for the release,
// published on one channel that each process subscribes to once, then read
// the entry the holder stored. A holder that dies lets its lock expire; a
// waiter that is not served within a quarter of the Transport's
// FetchTimeout fetches the file itself. Revalidations likewise: one
// process sends the conditional request; the others decide by their own
// stale copies meanwhile (stale-while-revalidate: a copy stale for less
// than a quarter of FetchTimeout and less than its lifetime, which the
// cache policy lets stand in), and read the
// new entry from Redis a second later, or wait for it as for a cold file
// when they have no such copy. Beyond that moment, the cache policy does
// not serve a file past its lifetime while it can be fetched (RFC 9309
// §2.4).
//
// # Pacing
//
// A Fleet is a robotsguard.Pacer: a Lua script reserves each request's
// slot on Redis's clock (the later of now and the origin's next free slot,
// which moves on by the interval), in arrival order and one round trip;
// the request then waits in its process. A request that gives up gives its
// slot back when no later one was taken. 429 and 503 answers set a
// fleet-wide "not before" on the same key, and the origin's places
// (Transport.MaxRequestsPerOrigin) are leases held fleet-wide, short (ten
// seconds by default, so that a process that dies holds its origins no
// longer) and renewed while the response is under way. Requests that find
// the places taken wait in a queue kept in Redis, and a freed place goes
// to the oldest of them, whichever process it is in. A place is released
// in the background when the response ends: closing a body costs no round
// trip. A place whose reservation's answer was lost (slower than
// CallTimeout), or whose cancel or release failed, is given back in the
// background as soon as Redis answers, rather than left to expire.
//
// A Fleet is a crawl.Peeker too: Peek tells, reserving nothing, how long a
// request to an origin would wait for its slot were it asked now (one
// round trip: the later of the origin's next free slot and the end of its
// back-off, on Redis's clock), so that a crawl.Frontier learns the turns
// the fleet's other processes take, and their throttles, before it hands
// out the origin's next URL. It knows no request's Limit: the places held
// across the fleet, and the requests queued for one, are not counted.
// While Redis is out of reach it answers from the process's own record.
//
// # When Redis fails
//
// Every call goes through a circuit breaker (see Fleet). While it is open
// each process works alone, and stays safe: the cache in memory, a Store
// error costs a fetch, the fetch lock is the process's own, and requests
// are paced locally with the interval multiplied by Fleet.Size, the first
// one to an origin once the process's fleet-paced requests to it have
// ended, and Size intervals after the last one was sent or ended. Each
// process sends its requests to an origin in a window of its own within
// each cycle of Size intervals (Fleet.Rank), so that the fleet's requests
// spread over the cycle rather than go together. Either
// way, a process's own requests to an origin go an interval apart at
// least, across the switch and back; a request waiting alone whose turn
// comes while the circuit is closed (it closed again, or a call failed
// without opening it) takes the fleet's next slot, rather than go between
// the other processes' slots. No
// request that robots.txt refuses is sent, whether Redis answers or not.
//
// # Routing instead
//
// A fleet that can route each URL to a worker of its choosing can keep
// every origin's pace in one process: Rendezvous assigns origins to
// workers, stably as workers come and go. Such a fleet needs the Fleet only
// as a Store.
package robotsredis
