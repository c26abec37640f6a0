package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/acap"
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

// acapSignal is the signal of ACAP 1.1 (see ACAPOptions): a robots.txt's
// ACAP records, with those of the files its permissions references name,
// which decide crawling in place of the conventional records they pool.
type acapSignal struct{ opts ACAPOptions }

// acapState is acapSignal's part of a robots.txt: the ACAP records of an
// origin's file.
type acapState struct {
	own     *acap.Policy // the records of the file
	policy  *acap.Policy // those, with the records of its permissions references
	refs    []acapRef
	until   time.Time // the time the first reference must be read again; zero without references
	size    int64     // memory held, besides the file's
	purpose string    // ACAPOptions.Purpose
}

// acapRef is one ACAP-permissions-reference of a robots.txt.
type acapRef struct {
	ref acap.Reference
	err error // why the resource cannot be used; nil when it is
}

func (a *acapState) memSize() int64     { return a.size }
func (a *acapState) expires() time.Time { return a.until }

// read parses the ACAP records of r.body (those of prev, when it is the
// same body) and reads the files their permissions references name
// (section 2.3.2 of ACAP 1.1) as robots.txt files are read: nil when the
// file has no ACAP records. A reference that cannot be read, with no copy
// to stand in, is kept with its error: the crawlers of its record are
// refused.
func (s acapSignal) read(t *Transport, r robotsRead, prev signalPart) signalPart {
	var pol *acap.Policy
	if old, ok := prev.(*acapState); ok {
		pol = old.own
	} else {
		pol = acap.Parser{MaxSize: t.Parser.MaxSize}.Parse(r.body)
	}
	if !pol.HasRecords() {
		return nil
	}
	a := &acapState{own: pol, policy: pol, size: int64(pol.MemSize()), purpose: s.opts.Purpose}
	refs := pol.References()
	if len(refs) == 0 {
		return a
	}
	// The references get their own time budget, after the robots.txt's.
	deadline := time.Now().Add(t.fetchTimeout())
	base, _ := url.Parse(r.o.robotsURL())
	limit := orDefault(s.opts.MaxReferences, DefaultMaxACAPReferences)
	for i, ref := range refs {
		ar := acapRef{ref: ref}
		var f *siteFile
		switch u, err := ref.URL(base); {
		case i >= limit:
			ar.err = fmt.Errorf("robotsguard: more than %d permissions references in the file", limit)
		case err != nil:
			ar.err = &FetchError{URL: ref.Locator, Err: err}
		default:
			f = t.siteFile(r.o, u, r.dial, r.ua, deadline)
			ar.err = f.err
		}
		if f != nil {
			if a.until.IsZero() || f.until.Before(a.until) {
				a.until = f.until
			}
			if t.hasRules(f) {
				a.policy = a.policy.Include(ref, f.entry.Body)
			}
			// Else the resource is unavailable (a 404), and adds nothing.
		}
		a.refs = append(a.refs, ar)
	}
	a.size = int64(a.policy.MemSize())
	return a
}

// usage gives the ACAP policy to package usage, which pools the
// conventional records in it, and decides crawling by it in their place,
// as RoundTrip does.
func (acapSignal) usage(_ *Transport, part signalPart, _ robotsRead, _ usage.Category, site *usage.Site) *unreadFile {
	if a, ok := part.(*acapState); ok {
		site.ACAP, site.Rules = a.policy, nil
	}
	return nil
}

// fetchBudget is a FetchTimeout, the references' own.
func (acapSignal) fetchBudget(t *Transport) time.Duration { return t.fetchTimeout() }

// keepsBody: a Policy may keep parts of the body it parsed.
func (acapSignal) keepsBody() bool { return true }

// decideCrawl decides a request by the ACAP records: a crawl of the URL
// must be permitted, and every permissions reference that applies to the
// agent must have been read.
func (a *acapState) decideCrawl(u *url.URL, ua string) *DisallowedError {
	for _, r := range a.refs {
		if r.err != nil && r.ref.AppliesTo(ua) {
			return &DisallowedError{Reason: ReasonACAPReference, Err: &acap.ReferenceError{Reference: r.ref, Err: r.err}, NotBefore: a.until}
		}
	}
	dec := a.policy.Decide(acap.Query{Agent: ua, URL: acapTarget(u), Usage: acap.Crawl, Purpose: a.purpose})
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
// references name, as Snapshot returns them (from the cache, or fetched and
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
	a := part[*acapState](s.st)
	if s.ACAP == nil || a == nil {
		return acap.Parse(nil), nil
	}
	for _, r := range a.refs {
		// Without a UserAgent, any agent may be asked about: every
		// reference must have been read.
		if r.err != nil && (t.UserAgent == "" || r.ref.AppliesTo(t.UserAgent)) {
			return nil, &acap.ReferenceError{Reference: r.ref, RobotsURL: s.URL, Err: r.err}
		}
	}
	return s.ACAP, nil
}
