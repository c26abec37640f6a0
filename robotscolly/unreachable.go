package robotscolly

import (
	"errors"
	"net/http"
	"net/netip"
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
	mu     sync.RWMutex
	m      map[originID]*failed
	gaveUp int // entries of m past TransientRetries
}

// originID names an origin in failing: its scheme and host[:port], both
// lower case, the host without a trailing dot (an IPv6 address in RFC 5952
// form, in brackets), the port absent when it is the scheme's default.
type originID struct{ scheme, hostport string }

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

// originKey names in failing the origin of a URL whose scheme and host
// ("host" or "host:port") are given, as the Transport does for the most
// part (see robotsguard's origin): lower case, no trailing dot, IPv6
// addresses in RFC 5952 form, no default port. Its keys must not tell
// apart the spellings of one origin: a refusal names the origin as the
// Transport does (DisallowedError.RobotsURL), a request decided as it was
// sent, a redirect's Location as written. A name already in that form,
// as most are, is kept as it is: every request reads a key (see read).
func originKey(scheme, hostport string) originID {
	if plainScheme(scheme) && plainHost(hostport) {
		return originID{scheme, hostport}
	}
	scheme = strings.ToLower(scheme)
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if a, err := netip.ParseAddr(host); err == nil && a.Is6() {
		host = "[" + a.String() + "]"
	} else {
		host = strings.TrimRight(host, ".")
	}
	if port == "" || scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		return originID{scheme, host}
	}
	return originID{scheme, host + ":" + port}
}

// plainScheme reports whether scheme is http or https as originKey writes
// them.
func plainScheme(scheme string) bool { return scheme == "http" || scheme == "https" }

// plainHost reports whether hostport is a host name as originKey writes
// it, with no port: lower-case letters, digits, dots and hyphens, not
// ending in a dot.
func plainHost(hostport string) bool {
	if hostport == "" || hostport[len(hostport)-1] == '.' {
		return false
	}
	for i := 0; i < len(hostport); i++ {
		if c := hostport[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// refusalKey names in failing the origin d refused a request for.
func refusalKey(d *robotsguard.DisallowedError) (originID, bool) {
	raw := d.RobotsURL // the origin the Transport fetched for: the Host header's, if set
	if raw == "" {
		raw = d.URL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return originID{}, false
	}
	return originKey(u.Scheme, u.Host), true
}

// requestKey names in failing the origin req is for: its Host header's,
// as the Transport takes it, or else its URL's.
func requestKey(req *http.Request) originID {
	if req.Host != "" {
		return originKey(req.URL.Scheme, req.Host)
	}
	return originKey(req.URL.Scheme, req.URL.Host)
}

// refused records d, a transient refusal, and reports whether its request
// may wait for d.NotBefore: whether its origin's robots.txt has failed
// TransientRetries times in a row at most. The refusals after one failed
// fetch, which share a NotBefore, count once.
func (f *failing) refused(d *robotsguard.DisallowedError) bool {
	k, ok := refusalKey(d)
	if !ok || d.NotBefore.IsZero() {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.m[k]
	if o == nil {
		if len(f.m) >= maxFailing && !f.evictGivenUp() {
			return false
		}
		if f.m == nil {
			f.m = map[originID]*failed{}
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

// read forgets the failures of req's origin, whose rules decided it. It
// runs for every request: while origins are counted, a request to another
// one builds its key without allocating, and shares the lock.
func (f *failing) read(req *http.Request) {
	if f.n.Load() == 0 {
		return
	}
	k := requestKey(req)
	f.mu.RLock()
	_, counted := f.m[k]
	f.mu.RUnlock()
	if !counted {
		return
	}
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
