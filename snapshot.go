package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/usage"
)

// Asking without sending: an origin's robots.txt as the Transport holds it
// (Snapshot), and the cache warmed for a frontier (Prefetch).

// A Snapshot is an origin's robots.txt as a Transport holds it at one
// time: what it does with requests to the origin, and why.
type Snapshot struct {
	Origin string // "https://example.com"
	URL    string // its robots.txt
	// Access is what the Transport does with requests to the origin now:
	// AccessRules (the rules in Rules decide, from a fresh file or a
	// copy standing in for an unreachable one), AccessAllowAll,
	// AccessDisallowAll, or AccessUnreachable (every request is refused).
	Access Access
	// Status is the status the robots.txt was last served with, or 0
	// when no usable response was ever received.
	Status int
	// Rules holds the file's rules, groups, Crawl-delays and Sitemaps
	// when Access is AccessRules; otherwise it is an empty file.
	Rules *policy.Robots
	// Delay is the pause the Transport keeps between requests of its
	// UserAgent to the origin (for the "*" group, without a UserAgent),
	// and DelayAsked the pause the file asks of that agent (its
	// Crawl-delay, or the interval of its Request-rate; zero when it asks
	// for none). Delay is less when DelayAsked is above MaxDelay.
	Delay, DelayAsked time.Duration
	// Received is when the response in use was received, and FreshUntil
	// when the Transport will fetch the file again (after a failure, the
	// end of the back-off).
	Received, FreshUntil time.Time
	// Err is why the last fetch failed, or nil when it did not.
	Err error
	// ACAP is the ACAP policy of the file, with the records of its
	// permissions references, when Transport.ACAP is set and the file has
	// ACAP records; nil otherwise.
	ACAP *acap.Policy
	// Usage holds the file's Content-Usage and Content-Signal lines (see
	// package usage and Transport.Usage); nil when it has none.
	Usage *usage.RobotsSignals

	st *originState
}

// Snapshot returns the robots.txt of u's origin as the Transport holds it,
// fetched and cached as RoundTrip would (within ctx): its rules, the pause
// kept between requests, and whether it could be fetched. It fails when u
// has no robots.txt (ErrUnsupportedURL) or ctx ends first; a robots.txt
// that cannot be fetched is a Snapshot with Access AccessUnreachable, not an
// error. Without a UserAgent, the file is fetched with Base's own
// User-Agent, and Delay is that of the "*" group.
func (t *Transport) Snapshot(ctx context.Context, u *url.URL) (*Snapshot, error) {
	t.init()
	if u == nil {
		return nil, unsupportedURL("nil URL")
	}
	o, err := originOf(u)
	if err != nil {
		return nil, err
	}
	st, _, err := t.lookup(ctx, o, "", t.UserAgent, t.now(), 0)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{
		Origin: o.String(), URL: o.robotsURL(), Access: t.access(st, t.now()), Status: int(st.status),
		Rules: emptyRobots, Received: st.received.time(), FreshUntil: st.until.time(), Err: st.more.err, st: st,
	}
	switch s.Access {
	case AccessRules:
		s.Rules = st.robots
		g := st.group
		s.Delay = st.every
		if t.UserAgent == "" {
			g = st.robots.Group("")
			s.Delay, _ = t.interval(g)
		}
		s.DelayAsked, _ = askedDelay(g)
		if a := part[*acapState](st); a != nil {
			s.ACAP = a.policy
		}
		s.Usage = part[robotsLines](st).s
	case AccessAllowAll:
		s.Delay, _ = t.interval(nil)
	}
	return s, nil
}

// Prefetch fetches and caches the robots.txt of each origin (an origin or
// any URL of it: "https://example.com", "https://example.com/a"), at most
// PrefetchConcurrency at once, and returns when all are held or ctx ends.
// Origins held fresh are not fetched again. Without a UserAgent, the files
// are fetched with Base's own User-Agent. A robots.txt that cannot be fetched is held
// as unreachable, as RoundTrip would; the error joins those of the
// arguments that are not http or https URLs, and ctx's.
func (t *Transport) Prefetch(ctx context.Context, origins ...string) error {
	t.init()
	var errs []error
	n := t.PrefetchConcurrency
	if n <= 0 {
		n = DefaultPrefetchConcurrency
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
loop:
	for _, raw := range origins {
		u, err := url.Parse(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("robotsguard: prefetch: %w", err))
			continue
		}
		o, err := originOf(u)
		if err != nil {
			errs = append(errs, wrap(fmt.Sprintf("prefetch %q", raw), err))
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t.lookup(ctx, o, "", t.UserAgent, t.now(), 0)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		errs = append(errs, fmt.Errorf("robotsguard: prefetch: %w", err))
	}
	return errors.Join(errs...)
}
