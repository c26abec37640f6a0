package robotsguard

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/robotsguard/robotsguard/cache"
)

// Files of a site's own, besides its robots.txt, that signals read: ACAP's
// permissions references, TDMRep's /.well-known/tdmrep.json. They are
// fetched as a robots.txt is (Base, retries, redirects, StatusPolicy,
// CachePolicy, the Store, the size limit), and held in the in-memory cache
// as entries of their own, shared by every origin and signal that reads
// them.

// A siteFile is a file of a site, as the Transport holds it.
type siteFile struct {
	entry *cache.Entry
	err   error     // why the file cannot be used; nil when it can
	until time.Time // when it must be read again
	// parsed is the file as the signal that reads it parsed it, once:
	// a large file is not parsed again on every use.
	parsed atomic.Pointer[parsedFile]
}

// parsedFile is a siteFile as a signal parsed it: a value of the signal's,
// or why it could not.
type parsedFile struct {
	v   any
	err error
}

// parse returns f as parse parses its body, parsing it the first time only.
func (f *siteFile) parse(parse func(body []byte) (any, error)) (any, error) {
	p := f.parsed.Load()
	if p == nil {
		v, err := parse(f.entry.Body)
		p = &parsedFile{v, err}
		f.parsed.Store(p)
	}
	return p.v, p.err
}

// state returns the state that holds f, under key, in the in-memory cache.
func (f *siteFile) state(key stateKey) *originState {
	st, _ := namedState(key.origin, "", nil, false)
	size := int64(len(st.nh)+len(key.path)+len(f.entry.Body)) + 512
	st.more, st.size = &stateMore{path: key.path, file: f}, int32(min((size+15)>>4, math.MaxInt32))
	return st
}

// siteFile returns the file at u, named by the robots.txt of o (which was
// fetched from host dial, when not empty, as agent ua): from memory while
// fresh, else from the Store or fetched (by deadline), and then held in
// memory. Origins that name the same file share one fetch of it.
func (t *Transport) siteFile(o origin, u *url.URL, dial, ua string, deadline time.Time) *siteFile {
	fo, err := originOf(u)
	if err != nil {
		return &siteFile{entry: &cache.Entry{}, err: &FetchError{URL: u.String(), Err: err}}
	}
	key := stateKey{origin: fo, path: u.RequestURI()}
	rawURL := fo.String() + u.RequestURI()
	v, _, _ := t.fileFlights.Do(rawURL, func() (any, error) {
		now := t.now()
		var old *cache.Entry
		if st, ok := t.states.Get(key); ok {
			f := st.more.file
			if now.Before(f.until) {
				return f, nil
			}
			old = f.entry
		}
		res := t.obtain(o, rawURL, now, deadline, old, func(ctx context.Context, old *cache.Entry) fetchResult {
			fetchURL, host := rawURL, ""
			if fo == o && dial != "" {
				// The robots.txt came from another address (a Host
				// header): so does the file of the same origin.
				fetchURL, host = origin{https: o.https, host: dial}.String()+u.RequestURI(), o.host
			}
			return t.get(ctx, rawURL, fetchURL, host, ua, old)
		})
		f := t.newSiteFile(rawURL, res, now)
		if t.cachePolicy().Storable(res.entry) {
			t.states.Set(key, f.state(key))
		}
		return f, nil
	})
	return v.(*siteFile)
}

// newSiteFile builds the file at rawURL from the result of obtaining it at
// now: an error, unless it holds a usable response that the StatusPolicy
// reads as rules or as unavailable.
func (t *Transport) newSiteFile(rawURL string, res fetchResult, now time.Time) *siteFile {
	e := res.entry
	f := &siteFile{entry: e, until: e.RetryAt}
	switch {
	case !res.until.IsZero():
		f.until = res.until // a stale copy standing in
	case e.Failures == 0:
		f.until = t.cachePolicy().Freshness(e).Until
	}
	switch {
	case e.Status == 0 || e.Failures > 0 && !t.cachePolicy().UsableStale(e, now):
		f.err = res.err
		if f.err == nil {
			f.err = errors.New(cmp.Or(e.Err, "robotsguard: no response"))
		}
	case t.statusPolicy()(e.Status) != AccessRules && t.statusPolicy()(e.Status) != AccessAllowAll:
		f.err = &FetchError{URL: rawURL, Status: e.Status}
	}
	return f
}

// hasRules reports whether f holds a file whose rules apply, rather than
// an answer that the StatusPolicy reads as no file (a 404).
func (t *Transport) hasRules(f *siteFile) bool {
	return f.err == nil && t.statusPolicy()(f.entry.Status) == AccessRules
}
