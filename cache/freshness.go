package cache

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/cachecontrol/cacheobject"
)

// Default values of the Policy fields.
const (
	DefaultMaxAge     = 24 * time.Hour      // RFC 9309 §2.4
	DefaultMinAge     = time.Minute         // floor for no-cache, no-store and max-age=0
	DefaultStaleLimit = 30 * 24 * time.Hour // RFC 9309 §2.3.1.4, Google's 30 days
)

// heuristicFraction is the share of the time since Last-Modified that a
// response without explicit freshness stays fresh (RFC 9111 §4.2.2).
const heuristicFraction = 10

// A Policy decides how long an Entry's response is fresh: RFC 9111 §4.2,
// bounded as RFC 9309 §2.4 asks. Its zero value is the default policy.
type Policy struct {
	// MaxAge caps the freshness lifetime of every response: RFC 9309 says
	// not to use a cached robots.txt for more than 24 hours while it can be
	// fetched. Zero means DefaultMaxAge.
	MaxAge time.Duration

	// MinAge is the least freshness lifetime a response gets, so that a
	// robots.txt served with "no-cache", "no-store" or "max-age=0" is not
	// fetched again before every page, which would double the load a
	// crawler puts on a site. Such responses are revalidated (with
	// If-None-Match or If-Modified-Since) at most once per MinAge. Zero
	// means DefaultMinAge; ignored when Strict.
	MinAge time.Duration

	// DefaultAge is the freshness lifetime of a response that gives
	// neither max-age nor Expires. Zero means the heuristic of RFC 9111
	// §4.2.2: a tenth of the time since Last-Modified, or else MaxAge.
	// (The 1996 draft of the protocol asks for 7 days.)
	DefaultAge time.Duration

	// StaleLimit is how long after its last successful fetch a stored copy
	// is still used while the robots.txt is unreachable (5xx, network
	// errors). Zero means DefaultStaleLimit.
	StaleLimit time.Duration

	// Strict applies RFC 9111 without a floor: "no-cache" and "max-age=0"
	// responses are revalidated on every use, "no-store" responses are not
	// stored, and a "must-revalidate" response is not used stale when the
	// robots.txt is unreachable.
	Strict bool
}

func (p Policy) maxAge() time.Duration {
	if p.MaxAge <= 0 {
		return DefaultMaxAge
	}
	return p.MaxAge
}

func (p Policy) minAge() time.Duration {
	switch {
	case p.Strict:
		return 0
	case p.MinAge <= 0:
		return DefaultMinAge
	}
	return min(p.MinAge, p.maxAge())
}

func (p Policy) staleLimit() time.Duration {
	if p.StaleLimit <= 0 {
		return DefaultStaleLimit
	}
	return p.StaleLimit
}

// cacheDirectives are the Cache-Control directives that decide a
// response's freshness.
type cacheDirectives struct {
	maxAge                           int64 // -1 without max-age
	noCache, noStore, mustRevalidate bool
}

// directives parses the Cache-Control fields of h. A field that does not
// parse makes the response stale, the most restrictive reading (RFC 9111
// §4.2.1).
func directives(h http.Header) (cc cacheDirectives, ok bool) {
	cc, _, ok = countedDirectives(h)
	return cc, ok
}

// countedDirectives is directives, and reports whether the fields give
// max-age more than once (see repeatedMaxAge), which the reading of a
// common field counts on the way.
func countedDirectives(h http.Header) (cc cacheDirectives, repeated, ok bool) {
	vs := h["Cache-Control"]
	if len(vs) == 0 {
		return cacheDirectives{maxAge: -1}, false, true
	}
	if len(vs) == 1 {
		if cc, n, ok := simpleDirectives(vs[0]); ok {
			return cc, n > 1, true
		}
	}
	cc, ok = parsedDirectives(strings.Join(vs, ", "))
	return cc, repeatedMaxAge(h), ok
}

// parsedDirectives parses v, Cache-Control fields joined, with the
// cacheobject parser.
func parsedDirectives(v string) (cacheDirectives, bool) {
	d, err := cacheobject.ParseResponseCacheControl(v)
	if err != nil {
		return cacheDirectives{}, false
	}
	return cacheDirectives{maxAge: int64(d.MaxAge), noCache: d.NoCachePresent, noStore: d.NoStore, mustRevalidate: d.MustRevalidate}, true
}

// simpleDirectives reads v, a Cache-Control field, as parsedDirectives
// does, but without allocating, when it lists common directives alone,
// separated by commas, spaces and tabs: public, private, no-cache,
// no-store, must-revalidate, no-transform, proxy-revalidate, immutable,
// and max-age with at most nine digits. ok is false for anything else,
// which parsedDirectives reads. maxAges is the number of max-age
// directives, as repeatedMaxAge counts them.
func simpleDirectives(v string) (cc cacheDirectives, maxAges int, ok bool) {
	cc.maxAge = -1
	for v != "" {
		var d string
		d, v, _ = strings.Cut(v, ",")
		switch d = strings.Trim(d, " \t"); d {
		case "", "public", "private", "no-transform", "proxy-revalidate", "immutable":
		case "no-cache":
			cc.noCache = true
		case "no-store":
			cc.noStore = true
		case "must-revalidate":
			cc.mustRevalidate = true
		default:
			n, ok := strings.CutPrefix(d, "max-age=")
			if !ok || n == "" || len(n) > 9 {
				return cc, maxAges, false
			}
			cc.maxAge = 0
			for i := range len(n) {
				if n[i] < '0' || n[i] > '9' {
					return cc, maxAges, false
				}
				cc.maxAge = cc.maxAge*10 + int64(n[i]-'0')
			}
			maxAges++
		}
	}
	return cc, maxAges, true
}

// lifetime returns the freshness lifetime of the entry's response (see
// Freshness.Lifetime) and what set it.
func (p Policy) lifetime(e *Entry) (time.Duration, string) {
	h := e.Header
	cc, repeated, ok := countedDirectives(h)
	switch {
	case !ok:
		return 0, "Cache-Control that does not parse"
	case cc.noCache:
		return 0, "no-cache"
	case cc.noStore:
		return 0, "no-store"
	case repeated:
		return 0, "max-age given twice"
	case cc.maxAge >= 0:
		return time.Duration(cc.maxAge) * time.Second, "max-age"
	}
	if exp := field(h, "Expires"); exp != "" {
		t, err := http.ParseTime(exp)
		if err != nil {
			return 0, "Expires that does not parse"
		}
		return max(t.Sub(e.date()), 0), "Expires"
	}
	if p.Strict && !heuristicallyCacheable(e.Status) {
		return 0, "status not cacheable by default"
	}
	if p.DefaultAge > 0 {
		return p.DefaultAge, "DefaultAge"
	}
	if v := field(h, "Last-Modified"); v != "" {
		if lm, err := http.ParseTime(v); err == nil {
			return max(e.date().Sub(lm)/heuristicFraction, 0), "Last-Modified heuristic"
		}
	}
	return p.maxAge(), "MaxAge (no freshness information)"
}

// Freshness is how long a response is used without a new fetch, and why.
type Freshness struct {
	// Lifetime is the response's freshness lifetime (RFC 9111 §4.2.1):
	//   - max-age (including 0), over Expires; a response that gives
	//     max-age twice is stale (§4.2.1 allows that reading), as is one
	//     whose Cache-Control does not parse;
	//   - Expires minus Date; an Expires that does not parse means
	//     already expired;
	//   - otherwise DefaultAge, or, without one, a heuristic lifetime
	//     (§4.2.2): a tenth of the time since Last-Modified, or MaxAge
	//     without Last-Modified. Under a Strict policy only statuses
	//     cacheable by default get one (RFC 9110 §15.1); else any usable
	//     response does, so that a 403 is not fetched every minute;
	//   - no-cache and no-store make it zero.
	//
	// Source names what set it: "max-age", "Expires", "Last-Modified
	// heuristic", "DefaultAge", "MaxAge (no freshness information)",
	// "no-cache", "no-store", or the reason the response is stale on
	// arrival ("Expires that does not parse", …).
	Lifetime time.Duration
	Source   string
	// Until is the time at which the response stops being fresh: what
	// was left of its lifetime when it was received (the lifetime less
	// its corrected initial age, RFC 9111 §4.2.3, from the Age and Date
	// fields and the request and response times), capped at MaxAge, so
	// that a copy is not used without a new fetch for more than MaxAge,
	// and, unless the policy is Strict, raised to MinAge. A response is
	// fresh at now when now is before Until.
	Until time.Time
	// Capped and Floored tell whether MaxAge cut what was left, or
	// MinAge raised it.
	Capped, Floored bool
}

// Freshness returns how long the entry's response is fresh, and why: the
// one question of freshness, whose answer holds the lifetime, its source,
// and the time the response stops being fresh. It allocates nothing for
// responses with common Cache-Control fields: the Transport asks it each
// time it reads a response.
func (p Policy) Freshness(e *Entry) Freshness {
	f := Freshness{}
	f.Lifetime, f.Source = p.lifetime(e)
	left := f.Lifetime - e.initialAge()
	switch {
	case left > p.maxAge():
		left, f.Capped = p.maxAge(), true
	case left < p.minAge():
		left, f.Floored = min(p.minAge(), p.maxAge()), p.minAge() > 0
	}
	f.Until = e.Received.Add(left)
	return f
}

// Expiry returns the time after which the entry is of no use: it is no
// longer fresh, can no longer stand in for an unreachable robots.txt, and
// its failures no longer matter to when the file counts as long
// unreachable. A Store may forget it then.
func (p Policy) Expiry(e *Entry) time.Time {
	t := p.Freshness(e).Until
	if e.Status != 0 {
		t = later(t, e.Received.Add(p.staleLimit()))
	}
	if e.Failures > 0 {
		t = later(t, e.RetryAt, e.FailingSince.Add(p.staleLimit()).Add(p.maxAge()))
	}
	return t
}

func later(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}

// repeatedMaxAge reports whether the Cache-Control fields of h give
// max-age more than once.
func repeatedMaxAge(h http.Header) bool {
	n := 0
	for _, v := range h["Cache-Control"] {
		for d := range strings.SplitSeq(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(d), "=")
			if strings.EqualFold(strings.TrimSpace(name), "max-age") {
				n++
			}
		}
	}
	return n > 1
}

// heuristicallyCacheable reports whether responses with this status may be
// given a heuristic freshness lifetime (RFC 9110 §15.1).
func heuristicallyCacheable(status int) bool {
	switch status {
	case 200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501:
		return true
	}
	return false
}

// Storable reports whether the entry may be stored for later use. Only a
// Strict policy refuses: "no-store" responses.
func (p Policy) Storable(e *Entry) bool {
	if !p.Strict {
		return true
	}
	cc, ok := directives(e.Header)
	return !ok || !cc.noStore
}

// UsableStale reports whether the entry's response, stale, may still stand
// in for a robots.txt that is unreachable at now: it was last fetched
// successfully less than StaleLimit ago and, under a Strict policy, does not
// say must-revalidate.
func (p Policy) UsableStale(e *Entry, now time.Time) bool {
	if e.Status == 0 || now.Sub(e.Received) >= p.staleLimit() {
		return false
	}
	if p.Strict {
		if cc, ok := directives(e.Header); ok && (cc.mustRevalidate || cc.noCache) {
			return false
		}
	}
	return true
}

// LongUnreachable reports whether, at now, the entry's robots.txt has been
// unreachable for StaleLimit or longer, over three failed fetches at least
// (one a month ago and one now say little about the days between): RFC
// 9309 §2.3.1.4 then lets a crawler treat it as unavailable.
func (p Policy) LongUnreachable(e *Entry, now time.Time) bool {
	return e.Failures >= minLongFailures && now.Sub(e.FailingSince) >= p.staleLimit()
}

// minLongFailures is the number of failed fetches it takes, besides time,
// to call a robots.txt long unreachable (see LongUnreachable).
const minLongFailures = 3

// field returns the first value of h's field name, as h.Get(name) does,
// name being in canonical form already (see http.CanonicalHeaderKey).
func field(h http.Header, name string) string {
	if vs := h[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// date returns the Date of the entry's response, or the time it was
// received when it has none that parses.
func (e *Entry) date() time.Time {
	if v := field(e.Header, "Date"); v != "" {
		if d, err := http.ParseTime(v); err == nil {
			return d
		}
	}
	return e.Received
}

// initialAge is corrected_initial_age of RFC 9111 §4.2.3.
func (e *Entry) initialAge() time.Duration {
	apparent := max(e.Received.Sub(e.date()), 0)
	corrected := ageValue(e.Header) + max(e.Received.Sub(e.Requested), 0)
	return max(apparent, corrected)
}

// ageValue parses the Age field: delta-seconds, too large values capped as
// RFC 9111 §1.2.2 says; a field that does not parse counts as 0.
func ageValue(h http.Header) time.Duration {
	v := strings.TrimSpace(field(h, "Age"))
	if v == "" {
		return 0
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			n = math.MaxInt32 + 1
		} else {
			return 0
		}
	}
	return time.Duration(min(n, math.MaxInt32+1)) * time.Second
}
