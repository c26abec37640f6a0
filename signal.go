package robotsguard

import (
	"net/url"
	"time"

	"github.com/robotsguard/robotsguard/usage"
)

// Signals: what a site says beyond its robots.txt's Allow and Disallow
// lines, read by the Transport along with what it already holds. Each is a
// file of its own: the usage lines of robots.txt (usage.go), ACAP's records
// and the files they reference (acap.go), TDMRep's file (tdmrep.go), RSL's
// licence documents (rsl.go). The
// state, fetch and decision code knows them only through this seam: a new
// signal, lines of robots.txt or a file of the site's, is one more value of
// signal in one more file, and one more line in signalsOf.

// A signal reads its part of each robots.txt the Transport fetches, and
// answers for itself in Transport.Usage.
type signal interface {
	// read returns the signal's part of body, the robots.txt of r.o, whose
	// rules apply, or nil when the file says nothing of it. prev is its
	// part of the same body, read before (the file was revalidated, or a
	// copy stands in for it), or nil: then only what the part fetched is
	// read again. It may fetch files (siteFile), within fetchBudget.
	read(t *Transport, r robotsRead, prev signalPart) signalPart
	// usage adds to site what the signal says of category c, from part,
	// its part of the origin's robots.txt (nil when none), and from the
	// site's own files, read as needed. It returns why such a file cannot
	// be read, when one cannot: the decision lists it.
	usage(t *Transport, part signalPart, r robotsRead, c usage.Category, site *usage.Site) *unreadFile
	// fetchBudget is how long read may spend fetching files, after the
	// robots.txt's own FetchTimeout: requests wait that much longer.
	fetchBudget(t *Transport) time.Duration
	// keepsBody reports whether a part keeps memory of the body it was
	// read from, which then must not be reused.
	keepsBody() bool
}

// signalsOf returns the signals a Transport reads: the usage lines, TDMRep
// and RSL always (they cost nothing until a file has them, or Usage is
// asked), ACAP when it is on.
func signalsOf(t *Transport) []signal {
	s := []signal{usageLines{}, tdmRep{}, rslSignal{}}
	if t.ACAP != nil {
		s = append(s, acapSignal{*t.ACAP})
	}
	return s
}

// A robotsRead names the robots.txt a signal reads: of origin o, fetched
// from host dial (when not empty) as agent ua, with its body.
type robotsRead struct {
	o        origin
	dial, ua string
	body     []byte
}

// A signalPart is a signal's part of an origin's state.
type signalPart interface {
	// memSize is the memory the part holds, counted against CacheSize.
	memSize() int64
	// expires is when the files the part read must be read again: the
	// origin's state is refreshed then. The zero time means never.
	expires() time.Time
}

// A crawlDecider is a signalPart that decides crawling in place of the
// robots.txt's rules (ACAP's records, which pool the conventional ones):
// nil when the agent ua may fetch u, else the refusal.
type crawlDecider interface {
	decideCrawl(u *url.URL, ua string) *DisallowedError
}

// unreadFile is a file of a signal's that cannot be read.
type unreadFile struct {
	signal usage.Signal
	url    string
	err    error
}

// signalBudget is the time the signals may spend fetching files after the
// robots.txt's fetch.
func (t *Transport) signalBudget() time.Duration {
	var d time.Duration
	for _, s := range t.signals {
		d += s.fetchBudget(t)
	}
	return d
}

// signalsKeepBody reports whether a signal keeps memory of the bodies it
// reads.
func (t *Transport) signalsKeepBody() bool {
	for _, s := range t.signals {
		if s.keepsBody() {
			return true
		}
	}
	return false
}

// readSignals reads the signals' parts of r.body; prev holds their parts of
// the same body read before, or is nil. It returns nil when no signal has
// a part.
func (t *Transport) readSignals(r robotsRead, prev []signalPart) []signalPart {
	var parts []signalPart
	for i, s := range t.signals {
		var old signalPart
		if i < len(prev) {
			old = prev[i]
		}
		if p := s.read(t, r, old); p != nil {
			if parts == nil {
				parts = make([]signalPart, len(t.signals))
			}
			parts[i] = p
		}
	}
	return parts
}

// part returns st's part of the signal of type S, or the zero S.
func part[S signalPart](st *originState) S {
	for _, p := range st.more.signals {
		if s, ok := p.(S); ok {
			return s
		}
	}
	var zero S
	return zero
}
