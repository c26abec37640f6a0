// Package robotsprom exposes what a robotsguard.Transport does as
// Prometheus metrics.
//
// A Collector counts the Transport's robots.txt fetches, refusals and
// pacing waits through an Observer, and reads the Transport's Stats (cache
// size, evictions, Store errors) when it is scraped:
//
//	t := &robotsguard.Transport{UserAgent: "FooBot/1.0 (+https://example.com/bot)"}
//	c := robotsprom.NewCollector(t, nil)
//	t.Observer = c.Observer(t.Observer) // before the first request
//	prometheus.MustRegister(c)
//
// Observer chains to the Observer passed to it, so one set before keeps
// being called. The package lives in a module of its own, so that
// programs that do not use it do not depend on the Prometheus client.
//
// # Metrics
//
// From the Observer, counted from the time it is set:
//
//	robotsguard_robots_fetches_total{outcome, status_class}    counter
//	robotsguard_robots_fetch_duration_seconds{outcome}         histogram
//	robotsguard_refusals_total{reason}                         counter
//	robotsguard_pacing_wait_seconds{cause, result}             histogram
//	robotsguard_delays_capped_total                            counter
//	robotsguard_payment_charges_total{origin, result}          counter
//	robotsguard_payment_spent_total{origin, currency}          counter
//
// From Transport.Stats, read at each scrape, counted from the Transport's
// creation:
//
//	robotsguard_checks_total              counter
//	robotsguard_cache_misses_total        counter
//	robotsguard_cache_evictions_total     counter
//	robotsguard_cache_entries             gauge
//	robotsguard_cache_size_bytes          gauge
//	robotsguard_store_errors_total        counter
//
// The fetches are those of robots.txt files and of ACAP permissions
// references, and the entries taken from a cache.Store (outcome
// "from_store"). Label values:
//
//   - outcome: the robotsguard.FetchOutcome, spaces as underscores:
//     "fetched", "revalidated", "served_stale", "failed", "from_store";
//     "other" for a FetchOutcome that has no name.
//   - status_class: "2xx", "3xx", "4xx", "5xx" (and "1xx") for the status
//     received, "none" when no response was (a network error, a time-out,
//     an entry from the Store that records a failure), "other" for a status
//     outside 100–599.
//   - reason: the robotsguard.Reason: "rule", "unreachable", "status",
//     "acap", "acap_reference", "delay"; "other" for a Reason this package
//     does not know. Each of these six starts at zero.
//   - cause: "pace" for the pause the origin's Crawl-delay, Request-rate or
//     the Transport's Delay asks for; "backoff" for one set by a 429 or 503
//     response (a WaitEvent that is Throttled).
//   - result: "waited" when the pause was taken; "gave_up" when the
//     request's context ended first, or its deadline came before its turn
//     (the request was not sent). The value observed is the pause the
//     request had to take, whether or not it took it all.
//   - origin: the origin charged, "https://example.com": one series for
//     each origin that charged (see robotsguard.Transport.Payment).
//   - result: for charges, "ok", or "overcharged" when the charge is above
//     what was offered, unreadable, or made unasked (a *pay.OverchargeError).
//   - currency: the ISO 4217 code of the amount charged; the amount is in
//     units of it ("USD 0.01" adds 0.01).
//
// The fetch duration leaves out entries taken from the Store, where
// nothing was fetched. Both durations are measured by the Transport's
// Clock.
//
// A cache hit is a check that found fresh rules in memory; the hit ratio
// is about 1 - robotsguard_cache_misses_total / robotsguard_checks_total
// (misses also count the lookups of Transport.Snapshot and Prefetch).
package robotsprom
