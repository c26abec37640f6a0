package robotscolly

import (
	"errors"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsguard/robotsguard"
)

// TransientRetries is how many failed fetches in a row of an origin's
// robots.txt Guard.Requeue waits through before it hands the refusals of
// the origin's requests to next, as crawl.Frontier does by default: with
// the Transport's back-off after a failed fetch (a minute, doubling), an
// origin has about 7 minutes to come back.
const TransientRetries = 3

// maxFailing bounds the origins whose failed fetches a Guard counts. When
// it is reached, a new origin takes the place of one given up (past
// TransientRetries, whose requests no longer wait); without one, a refusal
// of the new origin goes to next at once.
const maxFailing = 4096

// failing counts, per origin, the failed fetches in a row of its
// robots.txt that refused requests (see Guard.Requeue).
type failing struct {
	n      atomic.Int32 // len(m), read by every request without the lock
	mu     sync.Mutex
	m      map[string]*failed
	gaveUp int // entries of m past TransientRetries
}

type failed struct {
	fetches int
	until   time.Time // the NotBefore of the last failed fetch: its refusals share it
}

// transientRefusal returns the refusal in err when its reason is
// transient: the origin's rules could not be read, and may be once the
// Transport fetches them again (at its NotBefore).
func transientRefusal(err error) *robotsguard.DisallowedError {
	var d *robotsguard.DisallowedError
	if errors.As(err, &d) && (d.Reason == robotsguard.ReasonUnreachable || d.Reason == robotsguard.ReasonACAPReference) {
		return d
	}
	return nil
}

// originKey names the origin of u in failing.
func originKey(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

// refused records d, a transient refusal, and reports whether its request
// may wait for d.NotBefore: whether its origin's robots.txt has failed
// TransientRetries times in a row at most. The refusals after one failed
// fetch, which share a NotBefore, count once.
func (f *failing) refused(d *robotsguard.DisallowedError) bool {
	u, err := url.Parse(d.URL)
	if err != nil || d.NotBefore.IsZero() {
		return false
	}
	k := originKey(u)
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.m[k]
	if o == nil {
		if len(f.m) >= maxFailing && !f.evictGivenUp() {
			return false
		}
		if f.m == nil {
			f.m = map[string]*failed{}
		}
		o = &failed{}
		f.m[k] = o
		f.n.Store(int32(len(f.m)))
	}
	if d.NotBefore.After(o.until) {
		o.fetches++
		o.until = d.NotBefore
		if o.fetches == TransientRetries+1 {
			f.gaveUp++
		}
	}
	return o.fetches <= TransientRetries
}

// evictGivenUp drops an origin given up, if there is one, and reports
// whether it did. An origin that is down for good is never decided by its
// rules, so it would hold its place otherwise: a crawl that met maxFailing
// dead sites would wait for no other. f.mu is held.
func (f *failing) evictGivenUp() bool {
	if f.gaveUp == 0 {
		return false
	}
	for k, o := range f.m {
		if o.fetches > TransientRetries {
			delete(f.m, k)
			f.gaveUp--
			return true
		}
	}
	return false
}

// read forgets the failures of u's origin, whose rules decided a request.
func (f *failing) read(u *url.URL) {
	if f.n.Load() == 0 {
		return
	}
	k := originKey(u)
	f.mu.Lock()
	defer f.mu.Unlock()
	if o := f.m[k]; o != nil {
		if o.fetches > TransientRetries {
			f.gaveUp--
		}
		delete(f.m, k)
		f.n.Store(int32(len(f.m)))
	}
}
