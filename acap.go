package robotsguard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/usage"
)

// ACAPOptions turn on the ACAP 1.1 extensions of robots.txt (see package
// acap) in a Transport: a request is sent only if the ACAP records of its
// origin's robots.txt, pooled with the conventional ones, permit crawling
// its URL for the agent (UserAgent, or the request's User-Agent, whose
// whole value is matched against ACAP-crawler names); refusals have
// ReasonACAP.
//
// The resources that ACAP-permissions-reference fields name are fetched as
// robots.txt files are (retries, redirects, StatusPolicy, CachePolicy,
// Store; within a FetchTimeout of their own, after the robots.txt's), and
// cached as entries of their own, shared by the files that name them.
// While a reference that applies to the agent cannot be read, the agent's
// requests to the origin are refused (ReasonACAPReference). A reference
// may name any http or https URL, on any host: the robots.txt chooses where
// Base sends those requests, so a crawler that must not reach some hosts
// filters them in Base.
//
// A robots.txt without ACAP records is obeyed as without ACAP, in Parser's
// dialect; one with ACAP records has its conventional records read as RFC
// 9309 says. Transport.ACAPPolicy gives the policy for the other usages
// (index, present, …).
type ACAPOptions struct {
	// Purpose is the usage purpose the crawler acts for (a name or URI,
	// ACAP 1.1 section 2.3.3): ACAP sub-records whose ACAP-usage-purpose
	// pattern matches it apply. Empty means none.
	Purpose string

	// MaxReferences is the number of permissions references read for one
	// robots.txt; the crawlers of records whose reference is past it are
	// refused, as for a reference that cannot be read. Zero means
	// DefaultMaxACAPReferences; negative means none is read.
	MaxReferences int
}

// DefaultMaxACAPReferences is the default of ACAPOptions.MaxReferences.
const DefaultMaxACAPReferences = 8

// acapState is what the Transport knows of the ACAP records of an
// origin's robots.txt.
type acapState struct {
	own    *acap.Policy // the records of the file
	policy *acap.Policy // those, with the records of its permissions references
	refs   []acapRef
	until  time.Time // the time the first reference must be read again; zero without references
	size   int64     // memory held, besides the file's
}

// acapRef is one ACAP-permissions-reference of a robots.txt.
type acapRef struct {
	ref acap.Reference
	err error // why the resource cannot be used; nil when it is
}

// refState is a permissions reference, held in the in-memory cache as an
// entry of its own.
type refState struct {
	entry *cache.Entry
	err   error
	until time.Time
	tdm   atomic.Pointer[tdmParsed] // the entry read as a tdmrep.json, once asked
}

// tdmParsed is a tdmrep.json as ParseTDMRep read it: a file, or why not.
type tdmParsed struct {
	file *usage.TDMRepFile
	err  error
}

// state returns the state that holds r, under key, in the in-memory cache.
func (r *refState) state(key stateKey) *originState {
	st, _ := namedState(key.origin, "", nil, false)
	size := int64(len(st.nh)+len(key.path)+len(r.entry.Body)) + 512
	st.more, st.size = &stateMore{path: key.path, ref: r}, int32(min((size+15)>>4, math.MaxInt32))
	return st
}

// acapPolicy returns the file's own ACAP records, or nil.
func (st *originState) acapPolicy() *acap.Policy {
	if st == nil || st.more.acap == nil {
		return nil
	}
	return st.more.acap.own
}

// parseACAP parses a robots.txt body for its rules and its ACAP records:
// in one scan when the rules are read as RFC 9309 says, as ACAP reads its
// conventional records; in two otherwise.
func (t *Transport) parseACAP(body []byte) (*policy.Robots, *acap.Policy) {
	ap := acap.Parser{MaxSize: t.Parser.MaxSize}
	if t.Parser.Dialect != policy.RFC9309 {
		return t.Parser.Parse(body), ap.Parse(body)
	}
	b := t.Parser.NewBuilder()
	pol := ap.ParseAlong(body, b)
	return b.Robots(), pol
}

// resolveACAP reads the permissions references of pol, the ACAP records of
// o's robots.txt (section 2.3.2 of ACAP 1.1), as robots.txt files are
// read, and returns the ACAP state: nil when pol has no records. A
// reference that cannot be read, with no copy to stand in, is kept with
// its error: the crawlers of its record are refused.
func (t *Transport) resolveACAP(o origin, pol *acap.Policy, dial, ua string) *acapState {
	if pol == nil || !pol.HasRecords() {
		return nil
	}
	a := &acapState{own: pol, policy: pol, size: int64(pol.MemSize())}
	refs := pol.References()
	if len(refs) == 0 {
		return a
	}
	// The references get their own time budget, after the robots.txt's.
	deadline := time.Now().Add(t.fetchTimeout())
	base, _ := url.Parse(o.robotsURL())
	limit := orDefault(t.ACAP.MaxReferences, DefaultMaxACAPReferences)
	for i, ref := range refs {
		r := acapRef{ref: ref}
		var rs *refState
		switch u, err := ref.URL(base); {
		case i >= limit:
			r.err = fmt.Errorf("robotsguard: more than %d permissions references in the file", limit)
		case err != nil:
			r.err = &FetchError{URL: ref.Locator, Err: err}
		default:
			rs = t.reference(o, u, dial, ua, deadline)
			r.err = rs.err
		}
		if rs != nil {
			if a.until.IsZero() || rs.until.Before(a.until) {
				a.until = rs.until
			}
			if r.err == nil && t.statusPolicy()(rs.entry.Status) == AccessRules {
				a.policy = a.policy.Include(ref, rs.entry.Body)
			}
			// AccessAllowAll: the resource is unavailable, and adds nothing.
		}
		a.refs = append(a.refs, r)
	}
	a.size = int64(a.policy.MemSize())
	return a
}

// reference returns the state of the permissions reference at u, named by
// the robots.txt of o: from memory while fresh, else from the Store or
// fetched (by deadline), and then held in memory. Origins that name the
// same resource share one fetch of it.
func (t *Transport) reference(o origin, u *url.URL, dial, ua string, deadline time.Time) *refState {
	ro, err := originOf(u)
	if err != nil {
		return &refState{entry: &cache.Entry{}, err: &FetchError{URL: u.String(), Err: err}}
	}
	key := stateKey{origin: ro, path: u.RequestURI()}
	rawURL := ro.String() + u.RequestURI()
	v, _, _ := t.flight.Do(rawURL, func() (any, error) {
		now := t.now()
		var old *cache.Entry
		if st, ok := t.states.Get(key); ok {
			rs := st.more.ref
			if now.Before(rs.until) {
				return rs, nil
			}
			old = rs.entry
		}
		res := t.obtain(o, rawURL, now, deadline, old, func(ctx context.Context, old *cache.Entry) fetchResult {
			fetchURL, host := rawURL, ""
			if ro == o && dial != "" {
				// The robots.txt came from another address (a Host
				// header): so does the resource of the same origin.
				fetchURL, host = origin{https: o.https, host: dial}.String()+u.RequestURI(), o.host
			}
			return t.get(ctx, rawURL, fetchURL, host, ua, old)
		})
		rs := t.newRefState(rawURL, res, now)
		if t.cachePolicy().Storable(res.entry) {
			t.states.Set(key, rs.state(key))
		}
		return rs, nil
	})
	return v.(*refState)
}

// newRefState builds the state of the permissions reference at rawURL from
// the result of obtaining it at now: an error, unless it holds a usable
// response that the StatusPolicy reads as rules or as unavailable.
func (t *Transport) newRefState(rawURL string, res fetchResult, now time.Time) *refState {
	e := res.entry
	rs := &refState{entry: e, until: e.RetryAt}
	if e.Failures == 0 {
		rs.until = t.cachePolicy().Freshness(e).Until
	}
	switch {
	case e.Status == 0 || e.Failures > 0 && !t.cachePolicy().UsableStale(e, now):
		rs.err = res.err
		if rs.err == nil {
			rs.err = errors.New(cmp.Or(e.Err, "robotsguard: no response"))
		}
	case t.statusPolicy()(e.Status) != AccessRules && t.statusPolicy()(e.Status) != AccessAllowAll:
		rs.err = &FetchError{URL: rawURL, Status: e.Status}
	}
	return rs
}

// acapDecider decides requests by the ACAP records of a robots.txt: a
// crawl of the URL must be permitted, and every permissions reference that
// applies to the agent must have been read.
type acapDecider struct {
	a       *acapState
	purpose string
}

func (d acapDecider) decide(u *url.URL, ua string, _ *policy.Group) *DisallowedError {
	for _, r := range d.a.refs {
		if r.err != nil && r.ref.AppliesTo(ua) {
			return &DisallowedError{Reason: ReasonACAPReference, Err: &acap.ReferenceError{Reference: r.ref, Err: r.err}}
		}
	}
	dec := d.a.policy.Decide(acap.Query{Agent: ua, URL: acapTarget(u), Usage: acap.Crawl, Purpose: d.purpose})
	if !dec.Permitted {
		return &DisallowedError{Reason: ReasonACAP, Err: &acap.Refusal{Decision: dec}}
	}
	return nil
}

// acapTarget returns what acap.Query.URL takes for u: its request URI, or
// the whole URL when that would read as a scheme-relative URL ("//a/b").
func acapTarget(u *url.URL) string {
	target := u.RequestURI()
	if strings.HasPrefix(target, "//") {
		return "http://host" + target
	}
	return target
}

// ACAPPolicy returns the ACAP policy that applies to u: the ACAP records of
// its origin's robots.txt, with those of the resources its permissions
// references name, as Robots returns them (from the cache, or fetched and
// cached now). Use it to decide the usages of a resource other than
// crawling it (index, present, …). ACAP must be set.
//
// It fails when the robots.txt cannot be read or its status disallows
// everything, and when a permissions reference that applies to UserAgent
// (any, without a UserAgent) cannot be read: its records would be missing.
// A robots.txt that is unavailable (e.g. 404), or has no ACAP records,
// gives a policy without records, which permits everything.
func (t *Transport) ACAPPolicy(ctx context.Context, u *url.URL) (*acap.Policy, error) {
	if t.ACAP == nil {
		return nil, errors.New("robotsguard: ACAPPolicy needs Transport.ACAP")
	}
	s, err := t.Snapshot(ctx, u)
	if err != nil {
		return nil, err
	}
	switch s.Access {
	case AccessUnreachable:
		return nil, &FetchError{URL: s.URL, Status: s.Status, Err: s.Err}
	case AccessDisallowAll:
		return nil, fmt.Errorf("robotsguard: %s answered status %d, which disallows everything", s.URL, s.Status)
	}
	if s.ACAP == nil {
		return acap.Parse(nil), nil
	}
	for _, r := range s.st.more.acap.refs {
		// Without a UserAgent, any agent may be asked about: every
		// reference must have been read.
		if r.err != nil && (t.UserAgent == "" || r.ref.AppliesTo(t.UserAgent)) {
			return nil, &acap.ReferenceError{Reference: r.ref, RobotsURL: s.URL, Err: r.err}
		}
	}
	return s.ACAP, nil
}
