package robotsguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/cache"
)

// MaxACAPReferences is the number of ACAP-permissions-reference resources
// the Transport reads for one robots.txt. The crawlers of records whose
// reference is past it are refused, as for a reference that cannot be
// read.
const MaxACAPReferences = 8

var errTooManyReferences = fmt.Errorf("more than %d permissions references in the file", MaxACAPReferences)

// acapRef is the state of one ACAP-permissions-reference of a robots.txt.
type acapRef struct {
	ref   acap.Reference
	url   string       // resolved; "" when it could not be
	entry *cache.Entry // the last fetch; nil when none was made
	err   error        // why the resource cannot be used; nil when it is
}

// acapPolicy reads the ACAP records of a robots.txt body.
func (t *Transport) acapPolicy(body []byte) *acap.Policy {
	return acap.Parser{MaxSize: t.Parser.MaxSize}.Parse(body)
}

// attachReferences reads the permissions references of st's ACAP records
// (section 2.3.2 of ACAP 1.1) as robots.txt files are read, reusing the
// fresh ones of prev, and adds their records to st.acap. A reference that
// cannot be read, with no copy to stand in, is kept with its error: the
// crawlers of its record are refused.
func (t *Transport) attachReferences(ctx context.Context, st, prev *originState, dial, ua string) {
	if st.acap == nil || !st.acap.HasRecords() {
		return
	}
	refs := st.acap.References()
	if len(refs) == 0 {
		return
	}
	// The references get their own time budget, after the robots.txt's.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orDefault(t.FetchTimeout, DefaultFetchTimeout))
	defer cancel()
	base, _ := url.Parse(st.origin.robotsURL())
	pol := st.acap
	for i, ref := range refs {
		r := acapRef{ref: ref}
		st.refs = append(st.refs, &r)
		if i >= MaxACAPReferences {
			r.err = errTooManyReferences
			continue
		}
		u, err := ref.URL(base)
		if err == nil && u.Scheme != "http" && u.Scheme != "https" {
			err = errScheme
		}
		if err != nil {
			r.err = &FetchError{URL: ref.Locator, Err: err}
			continue
		}
		r.url = u.String()
		now := t.now()
		old := prev.reference(r.url)
		var fetchErr error
		if old != nil && old.Failures == 0 && now.Before(t.cachePolicy().FreshUntil(old)) {
			r.entry = old
		} else {
			fetchURL, host := r.url, ""
			if o, err := originOf(u); err == nil && o == st.origin && dial != "" {
				// The robots.txt came from another address (a Host
				// header): so does the resource of the same origin.
				fetchURL, host = origin{https: o.https, host: dial}.String()+u.RequestURI(), o.host
			}
			res := t.get(ctx, r.url, fetchURL, host, ua, old)
			r.entry, fetchErr = res.entry, res.err
			if res.err != nil {
				t.log(slog.LevelWarn, "ACAP permissions reference fetch failed", st.origin, "reference", r.url, "error", res.err)
			}
		}
		e := r.entry
		if e.Status == 0 || e.Failures > 0 && !t.cachePolicy().UsableStale(e, now) {
			r.err = fetchErr
			if r.err == nil {
				r.err = &FetchError{URL: r.url, Err: errors.New(e.Err)}
			}
			continue
		}
		switch t.statusPolicy()(e.Status) {
		case UseRules:
			pol = pol.Include(ref, e.Body)
		case DisallowAll:
			r.err = &FetchError{URL: r.url, Status: e.Status}
		}
		// AllowAll: the resource is unavailable, and adds nothing.
	}
	st.acap = pol
	for _, r := range st.refs {
		if r.entry == nil {
			continue
		}
		st.size += int64(len(r.entry.Body)) + 512
		until := r.entry.RetryAt
		if r.entry.Failures == 0 {
			until = t.cachePolicy().FreshUntil(r.entry)
		}
		if until.Before(st.until) {
			st.until = until
		}
	}
	size := pol.MemSize()
	st.size += int64(size - st.acapSize)
	st.acapSize = size
}

// reference returns st's entry for the permissions reference at rawURL, if
// it has one.
func (st *originState) reference(rawURL string) *cache.Entry {
	if st == nil {
		return nil
	}
	for _, r := range st.refs {
		if r.url == rawURL && r.entry != nil {
			return r.entry
		}
	}
	return nil
}

// checkACAP decides req by the ACAP records of st: a crawl of the URL must
// be permitted, and every permissions reference that applies to the agent
// must have been read.
func (t *Transport) checkACAP(req *http.Request, st *originState, refuse func(Reason) *DisallowedError) error {
	ua := t.UserAgent
	if ua == "" {
		ua = req.Header.Get("User-Agent")
	}
	for _, r := range st.refs {
		if r.err != nil && r.ref.AppliesTo(ua) {
			e := refuse(ReasonACAPReference)
			e.Reference = r.ref
			e.Err = r.err
			return e
		}
	}
	d := st.acap.Decide(acap.Query{Agent: ua, URL: acapTarget(req.URL), Usage: acap.Crawl, Purpose: t.ACAPPurpose})
	if !d.Permitted {
		e := refuse(ReasonACAP)
		e.ACAP = d
		return e
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
// references name, read as RoundTrip reads them (from the cache, or
// fetched and cached now). Use it to decide the usages of a resource other
// than crawling it (index, present, …). ACAP must be on.
//
// It fails when the robots.txt cannot be read, and when a permissions
// reference that applies to UserAgent cannot: its records would be
// missing. A robots.txt that is unavailable (e.g. 404) gives a policy
// without records, which permits everything.
func (t *Transport) ACAPPolicy(ctx context.Context, u *url.URL) (*acap.Policy, error) {
	if !t.ACAP {
		return nil, errors.New("robotsguard: ACAPPolicy needs Transport.ACAP")
	}
	t.init()
	o, err := originOf(u)
	if err != nil {
		return nil, err
	}
	req := (&http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}).WithContext(ctx)
	st, _, err := t.robots(ctx, o, "", req, t.now())
	if err != nil {
		return nil, err
	}
	switch t.access(st, t.now()) {
	case Unreachable:
		return nil, &FetchError{URL: o.robotsURL(), Status: st.entry.Status, Err: st.err}
	case UseRules:
	default:
		return acap.Parse(nil), nil
	}
	for _, r := range st.refs {
		if r.err != nil && t.UserAgent != "" && r.ref.AppliesTo(t.UserAgent) {
			return nil, fmt.Errorf("robotsguard: ACAP-permissions-reference %s (line %d of %s): %w", r.ref.Locator, r.ref.Line, o.robotsURL(), r.err)
		}
	}
	return st.acap, nil
}
