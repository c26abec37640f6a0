package robotsguard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/internal/lru"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/usage"
)

// The state cache: what the Transport knows of each origin's robots.txt,
// in memory, bounded in bytes, and how it is found, fetched and shared
// through the Store. A request's path through it: lookup finds a fresh
// state, or waits for refresh, which takes the entry from the Store or
// fetches it, and builds the new state in newState.

// stateKey names what the in-memory cache holds: the state of an origin's
// robots.txt (path ""), or an ACAP permissions reference (its path on its
// origin). Without Transport.UserAgent, the robots.txt is fetched and held
// for each agent (its product token, lower-case), as a site may answer
// each with its own file.
type stateKey struct {
	origin origin
	path   string
	agent  string
}

// hash hashes k with seed. Most keys have no path and no agent: it hashes
// their host alone.
func (k stateKey) hash(seed maphash.Seed) uint64 {
	h := maphash.String(seed, k.origin.host)
	if k.origin.https {
		h = h*0x9E3779B97F4A7C15 + 1
	}
	if k.path != "" || k.agent != "" {
		h ^= maphash.Comparable(seed, [2]string{k.path, k.agent})
	}
	return h
}

// robotsKey returns the key of o's robots.txt as the agent whose
// User-Agent is ua fetches it.
func (t *Transport) robotsKey(o origin, ua string) stateKey {
	if t.UserAgent != "" {
		return stateKey{origin: o}
	}
	return stateKey{origin: o, agent: strings.ToLower(groupAgent(ua))}
}

// storeURL is the URL under which k's entry is shared through the Store:
// its robots.txt, with the agent as a fragment when each has its own.
func (k stateKey) storeURL() string {
	if k.agent == "" {
		return k.origin.robotsURL()
	}
	return k.origin.robotsURL() + "#" + url.PathEscape(k.agent)
}

// originState is what the Transport knows of an origin's robots.txt. A
// fetch replaces it; until then only its Node (the cache's, under the
// cache's locks), its pace and its strikes change.
//
// It holds the entry the fetch produced (see entry), compactly unless the
// Transport keeps entries whole (see keepWhole): its caching fields packed
// in one string, and without its body, which the parsed rules stand for.
// What only some origins have (failures, ACAP records, usage signals, a
// whole entry) is kept apart, in stateMore: the state of a healthy origin
// is 144 bytes, the in-memory cache's Node included, and its nh, when
// short, follows it in the same allocation (see namedState).
//
// A permissions reference of ACAP records is held in the cache as a state
// too, with its path and its refState in its stateMore.
type originState struct {
	// The fields read when the state is filled, revalidated or evicted
	// come first; those every request reads last, next to the name and
	// agent that follow the state when they are short (see withRoom), so
	// that a request usually reads one cache line fewer of the state
	// (allocations are 16-byte aligned, not 64: where the lines fall
	// varies).

	robots *policy.Robots // the parsed body; empty unless access is AccessRules
	// The entry's request and response times (see cache.Entry).
	requested, received stamp
	size                int32 // memory held, for the cache bound (in 16 bytes)
	parsed              bool  // robots was parsed from the entry's body
	// bodyless: the entry's body was dropped; robots (if parsed) stands
	// for it.
	bodyless bool
	// staleOK: the response's directives let it stand in for the file
	// while it is unreachable (a Strict policy reads must-revalidate).
	staleOK bool

	lru.Node[*originState] // ends with what a Get reads
	// nh is the origin's name, origin.String(); then the agent the file
	// was fetched as (its stateKey's), unless stateMore holds it; then
	// the entry's header fields, packed (see packedValues.appendPacked).
	nh    string
	group *policy.Group // the group of the Transport's UserAgent
	more  *stateMore    // what few states hold; noMore for the others
	// pace is the origin's in the Transport's LocalPacer, once a request
	// was paced by it (see LocalPacer.acquire).
	pace     atomic.Pointer[pace]
	until    stamp         // until when the state is used without a new fetch
	every    time.Duration // the interval that group asks for, capped
	status   int32         // the entry's status (clamped: a Store's may be any int)
	strikes  atomic.Int32  // 429 and 503 answers in a row, for the back-off
	nameLen  uint32        // the length of the name in nh
	agentLen uint16        // the length of the agent in nh
	access   Access        // what the entry's status means, when it has one
	over     bool          // the group asks for more than MaxDelay
}

// name returns origin.String() of st's origin: what the Pacer knows it by.
func (st *originState) name() string { return st.nh[:st.nameLen] }

// agent returns the agent of st's stateKey.
func (st *originState) agent() string {
	if st.more.agent != "" {
		return st.more.agent
	}
	return st.nh[st.nameLen : st.nameLen+uint32(st.agentLen)]
}

// hdr returns the entry's header fields, packed (see
// packedValues.appendPacked), or "" when the state keeps its header whole
// or it has none.
func (st *originState) hdr() string { return st.nh[st.nameLen+uint32(st.agentLen):] }

// is reports whether st is the state k names.
func (st *originState) is(k stateKey) bool {
	name, scheme := st.name(), "http://"
	if k.origin.https {
		scheme = "https://"
	}
	host, ok := strings.CutPrefix(name, scheme)
	if !ok {
		return false
	}
	if host != k.origin.host && (strings.IndexByte(k.origin.host, '%') < 0 || st.origin().host != k.origin.host) {
		return false // an IPv6 zone's % is escaped in the name (see origin.String)
	}
	return st.agent() == k.agent && st.more.path == k.path
}

// fresh reports whether st may be used at now without a new fetch. Both
// are wall-clock times (a stamp has no monotonic reading): a step of the
// system clock moves when states go stale, as it would for a Store's
// entries, which hold wall-clock times too.
func (st *originState) fresh(now time.Time) bool { return stampOf(now) < st.until }

// A stamp is a time in 8 bytes, where a time.Time takes 24: nanoseconds
// since 1970 UTC, noStamp for the zero time. Times before 1678 or after
// 2262 (a Store's entry may hold any time) are stamped as those years'
// ends; the monotonic clock reading is dropped.
type stamp int64

const (
	noStamp  = stamp(math.MinInt64)
	minStamp = stamp(math.MinInt64 + 1)
	maxStamp = stamp(math.MaxInt64)
)

// stampOf returns the stamp of t.
func stampOf(t time.Time) stamp {
	if t.IsZero() {
		return noStamp
	}
	const lo, hi = math.MinInt64/int64(1e9) + 1, math.MaxInt64/int64(1e9) - 1
	switch sec := t.Unix(); {
	case sec < lo:
		return minStamp
	case sec > hi:
		return maxStamp
	default:
		return stamp(sec*1e9 + int64(t.Nanosecond()))
	}
}

// time returns the time s stamps.
func (s stamp) time() time.Time {
	if s == noStamp {
		return time.Time{}
	}
	return time.Unix(0, int64(s))
}

// stateMore is the part of an origin's state that most origins do not
// need: the failures of its fetches, its entry's body and header when the
// state keeps them whole, its ACAP records, its usage signals, an agent too
// long for nh, and the path and refState of a permissions reference.
// Keeping it apart keeps the states of the others small.
type stateMore struct {
	err                   error // why the last fetch failed, when it did
	failures              int   // the entry's
	failingSince, retryAt time.Time
	errText               string               // the entry's Err
	body                  []byte               // the entry's body, unless bodyless
	header                http.Header          // the entry's header, when hdr does not hold it
	acap                  *acapState           // with ACAP on, for a file with ACAP records
	signals               *usage.RobotsSignals // usage signals of the file; nil when it has none
	agent                 string               // the agent of the state's key, when it is too long for nh
	path                  string               // the path of a permissions reference's key
	ref                   *refState            // the permissions reference the state holds
}

// noMore is the stateMore of the states that need none. Read only.
var noMore = &stateMore{}

// needed reports whether m holds anything.
func (m *stateMore) needed() bool {
	return m.err != nil || m.failures != 0 || !m.failingSince.IsZero() || !m.retryAt.IsZero() || m.errText != "" ||
		m.body != nil || m.header != nil || m.acap != nil || m.signals != nil || m.agent != "" || m.path != "" || m.ref != nil
}

// entry returns the entry the state was built from, its header as the
// state keeps it (see full) and without its body when bodyless.
func (st *originState) entry() cache.Entry {
	m := st.more
	return cache.Entry{Status: int(st.status), Requested: st.requested.time(), Received: st.received.time(), Body: m.body, Header: m.header,
		Failures: m.failures, FailingSince: m.failingSince, RetryAt: m.retryAt, Err: m.errText}
}

func (st *originState) memSize() int64 { return int64(st.size) << 4 }

// full returns the entry as it was fetched, its header unpacked; its body
// stays dropped when it was (bodyless).
func (st *originState) full() *cache.Entry {
	e := st.entry()
	if h := st.hdr(); h != "" {
		e.Header = unpackHeader(h)
	}
	return &e
}

// whole returns the entry with its body and header, and whether the state
// holds them.
func (st *originState) whole() (cache.Entry, bool) {
	return st.entry(), !st.bodyless && st.hdr() == ""
}

// usableStale reports whether st's response, stale, may stand in for its
// robots.txt at now (see cache.Policy.UsableStale).
func (t *Transport) usableStale(st *originState, now time.Time) bool {
	if !st.staleOK {
		return false
	}
	e := st.entry()
	return t.cachePolicy().UsableStale(&e, now)
}

// keepWhole reports whether states keep their entries whole, body and
// header: to share them through a Store (a revalidated entry is stored
// again), or to answer requests for /robots.txt from memory, once one was
// made (see robotsTxt). Otherwise the parsed rules stand for the body.
func (t *Transport) keepWhole() bool {
	return t.Store != nil || t.servesRobots.Load()
}

// Memory charged to the cache bound per origin, besides what a state holds
// in strings, its entry's body and its parsed rules: the state (the
// cache's Node in it) and its map slot, and the LocalPacer's pace of the
// origin and its map slot, when pacing is on and local (its key, a copy of
// the origin's name, is counted apart). TestStateOverhead
// measures them.
const (
	stateOverhead = 264
	paceOverhead  = 128
	wholeHeader   = 512 // an entry's header map, when the entry is kept whole
	moreOverhead  = 176 // a stateMore
)

// namedState returns a new state of origin o whose nh holds its name, then
// agent and, when pack is true, the fields of h packed (see
// packedValues.appendPacked); packed is false when h could not be packed.
// Short, as most are, nh is kept in the state's own allocation, which a
// request then reads whole.
func namedState(o origin, agent string, h http.Header, pack bool) (st *originState, packed bool) {
	n := -1
	var vals packedValues
	if pack {
		n = vals.gather(h)
	}
	name := ""
	if strings.IndexByte(o.host, '%') >= 0 {
		name = o.String() // an IPv6 zone, escaped
	}
	scheme := "http://"
	if o.https {
		scheme = "https://"
	}
	nameLen := len(name)
	if name == "" {
		nameLen = len(scheme) + len(o.host)
	}
	st, b := withRoom(nameLen + len(agent) + max(n, 0))
	if name != "" {
		b = append(b, name...)
	} else {
		b = append(append(b, scheme...), o.host...)
	}
	b = append(b, agent...)
	if n >= 0 {
		b = vals.appendPacked(b)
	}
	st.nh = unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	st.nameLen, st.agentLen = uint32(nameLen), uint16(len(agent))
	st.more = noMore
	return st, n >= 0
}

// withRoom returns a new state and room for n bytes, empty: after the
// state, in the same allocation, when n is small. The rooms fill Go's size
// classes.
func withRoom(n int) (*originState, []byte) {
	switch {
	case n <= 16:
		return roomy[[16]byte]()
	case n <= 48:
		return roomy[[48]byte]()
	case n <= 64:
		return roomy[[64]byte]()
	case n <= 96:
		return roomy[[96]byte]()
	case n <= 112:
		return roomy[[112]byte]()
	case n <= 144:
		return roomy[[144]byte]()
	case n <= 176:
		return roomy[[176]byte]()
	case n <= 240:
		return roomy[[240]byte]()
	}
	return &originState{}, make([]byte, 0, n)
}

func roomy[R any]() (*originState, []byte) {
	s := new(struct {
		st   originState
		room R
	})
	return &s.st, unsafe.Slice((*byte)(unsafe.Pointer(&s.room)), unsafe.Sizeof(s.room))[:0]
}

// packedFields are the fields a state packs: those cache.KeepCaching
// keeps, as it names them. A response's header is packed as it came, the
// other fields left out, without the copy KeepCaching makes.
var packedFields = [...]string{"Cache-Control", "Date", "Age", "Expires", "Etag", "Last-Modified", "Pragma"}

// cachingOnly reports whether h holds packedFields only, as an entry's
// header from cache.KeepCaching or a Store does (a fetch's holds the
// response's header until newState packs it).
func cachingOnly(h http.Header) bool {
	for k := range h {
		if !slices.Contains(packedFields[:], k) {
			return false
		}
	}
	return true
}

// packedValues holds the values of a header's packedFields, by their
// index in packedFields.
type packedValues [len(packedFields)][]string

// packedIndex returns the index of field k in packedFields, or -1: a
// switch, which finds it in fewer steps than a walk of packedFields
// (TestPackedIndex holds the two together).
func packedIndex(k string) int {
	switch k {
	case "Cache-Control":
		return 0
	case "Date":
		return 1
	case "Age":
		return 2
	case "Expires":
		return 3
	case "Etag":
		return 4
	case "Last-Modified":
		return 5
	case "Pragma":
		return 6
	}
	return -1
}

// maxWalkedHeader is the number of fields up to which gather walks a
// header, rather than looking up each of packedFields: a response's
// header has a few fields, and a lookup in a map costs more than a step
// of a walk.
const maxWalkedHeader = 16

// gather sets v to the values of h's packedFields, and returns the length
// of them packed, or -1 when one holds a NUL, which packing does not
// allow.
func (v *packedValues) gather(h http.Header) int {
	if len(h) <= maxWalkedHeader {
		for k, vs := range h {
			if i := packedIndex(k); i >= 0 {
				v[i] = vs
			}
		}
	} else {
		for i, k := range packedFields {
			v[i] = h[k]
		}
	}
	n := 0
	for i, k := range packedFields {
		for _, s := range v[i] {
			if strings.IndexByte(s, 0) >= 0 {
				return -1
			}
			n += len(k) + len(s) + 2
		}
	}
	return n
}

// appendPacked appends the fields of v, a few short caching fields, to b,
// packed: names and values, each followed by a NUL, in the order of
// packedFields.
func (v *packedValues) appendPacked(b []byte) []byte {
	for i, k := range packedFields {
		for _, s := range v[i] {
			b = append(append(b, k...), 0)
			b = append(append(b, s...), 0)
		}
	}
	return b
}

// unpackHeader returns the header that packedValues.appendPacked packed
// into s.
func unpackHeader(s string) http.Header {
	h := http.Header{}
	for s != "" {
		k, rest, _ := strings.Cut(s, "\x00")
		v, rest, _ := strings.Cut(rest, "\x00")
		h[k] = append(h[k], v)
		s = rest
	}
	return h
}

// emptyRobots is the rules of a file without any: everything is allowed.
var emptyRobots = policy.Parse(nil)

// origin returns the origin of st, which its name spells.
func (st *originState) origin() origin {
	name := st.name()
	o := origin{https: strings.HasPrefix(name, "https:")}
	o.host = name[len("http://"):]
	if o.https {
		o.host = name[len("https://"):]
	}
	if strings.Contains(o.host, "%25") { // an IPv6 zone (see origin.String)
		o.host = strings.ReplaceAll(o.host, "%25", "%")
	}
	return o
}

// decider returns what decides requests to st's origin when its access is
// AccessRules.
func (t *Transport) decider(st *originState) decider {
	if a := st.more.acap; a != nil {
		return acapDecider{a, t.ACAP.Purpose}
	}
	return rulesDecider{}
}

// A decider decides a request by the rules of an origin: the conventional
// rules of its robots.txt, or, with ACAP on, its ACAP records. It returns
// nil when the agent ua (following group g of the conventional rules) may
// fetch u, else the refusal with its reason and details.
type decider interface {
	decide(u *url.URL, ua string, g *policy.Group) *DisallowedError
}

// rulesDecider decides by the conventional rules.
type rulesDecider struct{}

func (rulesDecider) decide(u *url.URL, _ string, g *policy.Group) *DisallowedError {
	if g.AllowedURL(u) {
		return nil // the common case, without the Decision
	}
	return &DisallowedError{Reason: ReasonRule, Decision: g.DecideURL(u)}
}

// newState builds the state k names from entry e, the failure err of
// the fetch that produced it (if any), and the ACAP state of the file.
func (t *Transport) newState(k stateKey, e *cache.Entry, err error, p parsed) *originState {
	whole := t.keepWhole()
	more := stateMore{err: err, failures: e.Failures, failingSince: e.FailingSince, retryAt: e.RetryAt, errText: e.Err,
		header: e.Header, acap: p.acap, signals: p.signals}
	agent := k.agent
	if len(agent) > math.MaxUint16 {
		more.agent, agent = agent, ""
	}
	st, packed := namedState(k.origin, agent, e.Header, !whole && len(e.Header) > 0)
	st.robots, st.status = emptyRobots, int32(min(max(e.Status, math.MinInt32), math.MaxInt32))
	st.requested, st.received = stampOf(e.Requested), stampOf(e.Received)
	switch {
	case packed:
		more.header = nil
	case !cachingOnly(e.Header):
		more.header = cache.KeepCaching(e.Header) // a fetch's, with the response's other fields
	}
	if err == nil && e.Err != "" {
		more.err = errors.New(e.Err) // a failure loaded from a Store
	}
	if e.Status != 0 {
		st.access = t.statusPolicy()(e.Status)
		if st.access == AccessRules && p.robots == nil {
			st.access = AccessUnreachable // rules that were never parsed do not stand in
		}
	}
	if p.robots != nil {
		st.robots, st.parsed = p.robots, true
	}
	if t.UserAgent != "" {
		st.group = st.robots.Group(groupAgent(t.UserAgent))
		st.group.Decide("/") // build its matcher now, to count it
		st.every, st.over = t.interval(st.group)
	}
	// The parsed body is counted with UserAgent's matcher, built above.
	// Matchers built later, for other agents, are not counted.
	size := stateOverhead + int64(len(st.nh)+len(more.agent)+len(e.Err))
	if err != nil && err.Error() != e.Err {
		size += int64(len(err.Error()))
	}
	if !t.NoPacing && t.Pacer == nil {
		size += paceOverhead + int64(st.nameLen) // the pace and its key, a copy of the name
	}
	if p.robots != nil {
		size += int64(p.robots.MemSize())
	}
	if p.signals != nil {
		size += int64(p.signals.MemSize())
	}
	if p.acap != nil {
		size += p.acap.size
	}
	var until time.Time
	switch {
	case e.Failures > 0:
		until = e.RetryAt
	case e.Status != 0:
		until = t.cachePolicy().Freshness(e).Until
	}
	if p.acap != nil && !p.acap.until.IsZero() && p.acap.until.Before(until) {
		until = p.acap.until
	}
	st.until = stampOf(until)
	st.staleOK = t.cachePolicy().UsableStale(e, e.Received) // its directives; the time is usableStale's
	if whole {
		more.body = e.Body
		size += int64(len(e.Body))
		for k, vs := range more.header {
			size += int64(len(k))
			for _, v := range vs {
				size += int64(len(v)) + 16
			}
		}
	} else {
		st.bodyless = e.Body != nil
	}
	if more.header != nil {
		size += wholeHeader
	}
	if more.needed() {
		m := more // a copy: more itself stays on the stack of the states that need none
		st.more = &m
		size += moreOverhead
	}
	st.size = int32(min((size+15)>>4, math.MaxInt32))
	return st
}

// parsed is what a robots.txt body holds: its rules and, with ACAP on,
// its ACAP state.
type parsed struct {
	robots  *policy.Robots
	acap    *acapState
	signals *usage.RobotsSignals
}

// parse parses e's body, when its status says the rules apply, and reads
// the permissions references of its ACAP records (fetching those that are
// not fresh in memory) when ACAP is on.
func (t *Transport) parse(o origin, e *cache.Entry, dial, ua string) parsed {
	if e.Status == 0 || t.statusPolicy()(e.Status) != AccessRules {
		return parsed{}
	}
	if t.ACAP == nil {
		robots := t.Parser.Parse(e.Body)
		return parsed{robots: robots, signals: robotsSignals(e.Body)}
	}
	robots, pol := t.parseACAP(e.Body)
	return parsed{robots: robots, acap: t.resolveACAP(o, pol, dial, ua), signals: robotsSignals(e.Body)}
}

// cached returns the state k names held in memory, if any.
func (t *Transport) cached(k stateKey) *originState {
	st, _ := t.states.Get(k)
	return st
}

// lookup returns the state of origin o's robots.txt at now, fetching the
// file (from host dial, if not empty, as agent ua) when the cache has no
// usable state, and whether it waited for a fetch. Concurrent requests for
// an origin share one fetch; each stops waiting when its own context ends,
// or when the fetch outlasts its budget (a Base or Store that ignores its
// context): the stale copy, if one may stand in, or else an unreachable
// state decides then.
func (t *Transport) lookup(ctx context.Context, o origin, dial, ua string, now time.Time) (st *originState, waited bool, err error) {
	k := t.robotsKey(o, ua)
	if st := t.cached(k); st != nil && st.fresh(now) {
		return st, false, nil
	}
	t.counters.misses.Add(1)
	f := t.join(k, dial, ua)
	timer := getTimer(t.fetchBudget())
	defer putTimer(timer)
	select {
	case <-f.done:
		return f.st, true, nil
	case <-ctx.Done():
		return nil, true, fmt.Errorf("robotsguard: waiting for %s: %w", o.robotsURL(), ctx.Err())
	case <-timer.C:
		return t.stuck(k), true, nil
	}
}

// A flight is a refresh of an origin's state under way, which every request
// that needs the state waits for.
type flight struct {
	done chan struct{} // closed once st is set
	st   *originState
}

// join returns the flight that refreshes the state k names, starting it
// (fetching from host dial, if not empty, as agent ua) unless one is under
// way. The fetch outlives the request that started it, as others may wait
// on it, so it takes neither its cancellation nor its values (such as an
// httptrace.ClientTrace that belongs to that request).
func (t *Transport) join(k stateKey, dial, ua string) *flight {
	t.flightMu.Lock()
	f := t.flights[k]
	if f != nil {
		t.flightMu.Unlock()
		return f
	}
	if t.flights == nil {
		t.flights = map[stateKey]*flight{}
	}
	f = &flight{done: make(chan struct{})}
	t.flights[k] = f
	t.flightMu.Unlock()
	j := job{t, k, f, dial, ua}
	started.Add(1)
	select {
	case jobs <- j: // an idle flier takes it
	default:
		go flier(j)
	}
	return f
}

// A job is a flight to run, with what fly needs.
type job struct {
	t        *Transport
	k        stateKey
	f        *flight
	dial, ua string
}

// Fliers are the goroutines that run flights, for every Transport of the
// process. A flier that is done waits for another flight, unless
// maxIdleFliers wait already: a new goroutine per fetch would grow its
// stack, deep in the fetch, every time. Idle fliers wait on a plain
// receive, without a timer each (a select on a timer costs every flight
// its timer's arming): one timer for all, the reaper's, ends them once no
// flight was started for flierIdle, so that they end flierIdle to twice
// that after the last one. An idle flier holds no Transport.
const (
	maxIdleFliers = 4
	flierIdle     = time.Second
)

var (
	jobs       = make(chan job) // flights handed to idle fliers; a job without a Transport ends one
	idleFliers atomic.Int32
	started    atomic.Uint64 // flights started, ever
	reaper     struct {
		armed atomic.Bool
		seen  atomic.Uint64 // started, when it was armed
		once  sync.Once
		timer *time.Timer // calls reap; made once
	}
)

// flier runs j, and then the jobs it is handed while it waits.
func flier(j job) {
	for {
		j.t.fly(j.k, j.f, j.dial, j.ua)
		j = job{}
		if idleFliers.Add(1) > maxIdleFliers {
			idleFliers.Add(-1)
			return
		}
		armReaper()
		j = <-jobs
		idleFliers.Add(-1)
		if j.t == nil {
			return // from reap
		}
	}
}

// armReaper arms the reaper's timer, unless it is armed.
func armReaper() {
	if !reaper.armed.CompareAndSwap(false, true) {
		return
	}
	reaper.seen.Store(started.Load())
	reaper.once.Do(func() { reaper.timer = time.AfterFunc(flierIdle, reap) })
	reaper.timer.Reset(flierIdle)
}

// reap ends the idle fliers when no flight was started since the reaper
// was armed, and arms it again while fliers are idle.
func reap() {
	if started.Load() == reaper.seen.Load() {
	end:
		for {
			select {
			case jobs <- job{}:
			default:
				break end
			}
		}
	}
	reaper.armed.Store(false)
	if idleFliers.Load() > 0 { // a flier that went idle meanwhile finds it disarmed, or this arms it
		armReaper()
	}
}

// fly runs flight f.
func (t *Transport) fly(k stateKey, f *flight, dial, ua string) {
	defer func() {
		t.flightMu.Lock()
		delete(t.flights, k)
		t.flightMu.Unlock()
		close(f.done)
	}()
	f.st = t.refresh(k, dial, ua)
}

// timers holds stopped timers, for the waits of lookup.
var timers sync.Pool

// getTimer returns a timer that fires after d; putTimer stops it and keeps
// it for another.
func getTimer(d time.Duration) *time.Timer {
	if tm, ok := timers.Get().(*time.Timer); ok {
		tm.Reset(d) // a stopped timer's channel is empty (Go 1.23)
		return tm
	}
	return time.NewTimer(d)
}

func putTimer(tm *time.Timer) {
	tm.Stop()
	timers.Put(tm)
}

// fetchBudget is the longest a request waits for a fetch of a robots.txt:
// FetchTimeout, another for the permissions references with ACAP on, and a
// quarter more, so that a fetch that ends on time is never cut short.
func (t *Transport) fetchBudget() time.Duration {
	d := t.fetchTimeout() + t.fetchTimeout()/4
	if t.ACAP != nil {
		d += t.fetchTimeout()
	}
	return d
}

var errStuck = errors.New("robotsguard: the fetch outlasted FetchTimeout: Base or the Store does not honour its context")

// stuck returns the state that decides for o while its fetch outlasts its
// budget: the last one, if its copy may stand in, or else an unreachable
// one, which is not cached.
func (t *Transport) stuck(k stateKey) *originState {
	o := k.origin
	now := t.now()
	if prev := t.cached(k); prev != nil && prev.status != 0 && t.usableStale(prev, now) {
		return prev
	}
	err := &FetchError{URL: o.robotsURL(), Err: errStuck}
	return t.newState(k, &cache.Entry{Failures: 1, FailingSince: now, RetryAt: now, Err: err.Error()}, err, parsed{})
}

// refresh brings o's state up to date: from memory, if another caller did
// meanwhile; from the Store, if another Transport fetched the file (or
// backs off from it); else by fetching it. A panic on the way (in Base,
// the StatusPolicy or the library) fails the fetch instead of the process,
// and never leaves the origin with fewer rules than it had.
func (t *Transport) refresh(k stateKey, dial, ua string) (st *originState) {
	o := k.origin
	start := t.now()
	prev := t.cached(k)
	if prev != nil && prev.fresh(start) {
		return prev
	}
	var old *cache.Entry
	if prev != nil {
		old = prev.full()
	}
	defer func() {
		if v := recover(); v != nil {
			st = t.panicked(k, prev, old, &FetchError{URL: o.robotsURL(), Err: &PanicError{Value: v, Stack: debug.Stack()}})
		}
	}()
	var url string // the Store's key, and the events'
	if t.Store != nil || t.observed() {
		url = k.storeURL()
	}
	wall := start // the deadline is in real time, whatever the Clock
	if t.Clock != nil {
		wall = time.Now()
	}
	res := t.obtain(o, url, start, wall.Add(t.fetchTimeout()), old, func(ctx context.Context, old *cache.Entry) fetchResult {
		return t.fetch(ctx, o, dial, ua, old)
	})
	st = t.keep(k, res.entry, res.err, t.parseFor(o, res.entry, prev, dial, ua))
	if st.bodyless {
		putBodyBuf(res.buf) // parsed, and dropped
	}
	return st
}

// panicked returns the state of o after its refresh panicked with err: a
// failure that keeps the last rules, when they are what the entry holds,
// and is unreachable otherwise.
func (t *Transport) panicked(k stateKey, prev *originState, old *cache.Entry, err error) (st *originState) {
	o := k.origin
	defer func() {
		if recover() != nil { // the StatusPolicy, the Observer or the Logger again
			st = t.newState(k, &cache.Entry{Failures: 1, Err: err.Error()}, err, parsed{})
		}
	}()
	res := t.failed(old, nil, err)
	e := res.entry
	p := parsed{}
	if prev != nil && prev.parsed && prev.sameBody(e) {
		p = parsed{robots: prev.robots, acap: prev.more.acap, signals: prev.more.signals}
	} else if e.Status != 0 {
		n := *e
		n.Status, n.Body, n.Header = 0, nil, nil // rules that were never parsed: none stands in
		e = &n
	}
	st = t.keep(k, e, err, p)
	t.fetched(FetchEvent{URL: o.robotsURL(), Origin: o.String(), Outcome: OutcomeFailed, Err: err})
	return st
}

// obtain returns the entry for the resource at url (a robots.txt, or a
// permissions reference of o's) at start, given old, the last one known:
// the Store's, when another Transport fetched it since and it is fresh, or
// when it is backing off from a failure; else the result of fetch, saved
// to the Store. It ends by deadline (real time, whatever the Clock): the
// Store takes a quarter of FetchTimeout at most before the fetch, and the
// last quarter before the deadline after it.
func (t *Transport) obtain(o origin, url string, start, deadline time.Time, old *cache.Entry, fetch func(context.Context, *cache.Entry) fetchResult) fetchResult {
	fetchBy := deadline
	if t.Store != nil {
		fetchBy = deadline.Add(-t.fetchTimeout() / 4)
	}
	ctx := newDeadlineCtx(fetchBy)
	defer ctx.cancel()
	if e := t.load(ctx, url, start); e != nil && newer(e, old) {
		if t.decisive(e, start) {
			return t.fromStore(o, url, e)
		}
		old = e
	}
	// A file still fresh (with ACAP on, here only for its references) is
	// not fetched again.
	if old != nil && old.Failures == 0 && old.Status != 0 && start.Before(t.cachePolicy().Freshness(old).Until) {
		return fetchResult{entry: old}
	}
	if l, ok := t.Store.(cache.Locker); ok {
		e, unlock := t.elect(ctx, l, url, old)
		defer unlock()
		if e != nil {
			return t.fromStore(o, url, e)
		}
	}
	res := fetch(ctx, old)
	if t.observed() {
		t.fetched(t.fetchEvent(url, o, res.outcome, res.entry, res.err, t.now().Sub(start)))
	} else {
		t.fetched(FetchEvent{Outcome: res.outcome}) // the counters alone
	}
	if t.Store == nil || !t.cachePolicy().Storable(res.entry) {
		return res
	}
	res.buf = nil // the Store may keep the body
	// The fetch's context may be over (a time-out): the Store keeps the
	// quarter of the budget left for it.
	sctx, scancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer scancel()
	if res.err != nil {
		// A failure does not replace a newer success another process
		// stored meanwhile: that one is used.
		if e := t.load(sctx, url, t.now()); e != nil && e.Failures == 0 && e.Received.After(res.entry.Received) {
			return fetchResult{entry: e, outcome: OutcomeFromStore}
		}
	}
	t.save(sctx, url, res.entry)
	return res
}

// decisive reports whether e, an entry from the Store, decides at now
// without a fetch: a fresh response, or a failure whose back-off lasts.
func (t *Transport) decisive(e *cache.Entry, now time.Time) bool {
	return e.Failures == 0 && e.Status != 0 && now.Before(t.cachePolicy().Freshness(e).Until) ||
		e.Failures > 0 && now.Before(e.RetryAt)
}

// fromStore reports e, a decisive entry from the Store, and returns it as
// the result of a fetch of url.
func (t *Transport) fromStore(o origin, url string, e *cache.Entry) fetchResult {
	if e.Failures > 0 {
		// Another process failed and backs off: so does this one. (The
		// state takes the failure from the entry's Err.)
		t.fetched(FetchEvent{URL: withoutFragment(url), Origin: o.String(), Outcome: OutcomeFromStore, Err: errors.New(e.Err)})
	} else {
		t.fetched(t.fetchEvent(url, o, OutcomeFromStore, e, nil, 0))
	}
	return fetchResult{entry: e, outcome: OutcomeFromStore}
}

// maxElections bounds the times elect tries the lock: a Locker whose Wait
// returns while another holds the lock would otherwise keep it spinning.
const maxElections = 8

// elect makes this process the one of the fleet that fetches url (whose
// last known entry is old), through the Store's cache.Locker. It returns
// an entry another process stored meanwhile, when one decides (the one the
// fetch would have been), or else the function that releases the lock this
// process took, if any, once the fetch is stored. It spends a quarter of
// FetchTimeout at most (and no more than ctx) waiting for other processes'
// fetches, and then lets this one fetch: an error, a slow holder or one
// that died costs a fetch, never a request the rules refuse.
func (t *Transport) elect(ctx context.Context, l cache.Locker, url string, old *cache.Entry) (*cache.Entry, func()) {
	nop := func() {}
	wctx, cancel := context.WithTimeout(ctx, t.fetchTimeout()/4)
	defer cancel()
	key := cache.Key(url)
	for range maxElections {
		var token string
		var held bool
		err := t.storeCall(wctx, func(ctx context.Context) (err error) {
			deadline, _ := ctx.Deadline()
			ttl := max(time.Until(deadline)+t.fetchTimeout(), time.Millisecond) // past the fetch and the save
			token, held, err = l.TryLock(ctx, key, ttl)
			return err
		})
		if err != nil {
			t.storeFailed("lock", url, err)
			return nil, nop
		}
		if held {
			unlock := func() {
				uctx, cancel := context.WithTimeout(context.Background(), t.fetchTimeout()/4)
				defer cancel()
				if err := t.storeCall(uctx, func(ctx context.Context) error { return l.Unlock(ctx, key, token) }); err != nil {
					t.storeFailed("unlock", url, err)
				}
			}
			// The last holder may have stored the entry just before it
			// released the lock.
			if e := t.load(wctx, url, t.now()); e != nil && newer(e, old) && t.decisive(e, t.now()) {
				unlock()
				return e, nop
			}
			return nil, unlock
		}
		if err := t.storeCall(wctx, func(ctx context.Context) error { return l.Wait(ctx, key) }); err != nil {
			if wctx.Err() == nil {
				t.storeFailed("wait", url, err)
			}
			return nil, nop
		}
		if e := t.load(wctx, url, t.now()); e != nil && newer(e, old) && t.decisive(e, t.now()) {
			return e, nop
		}
		// The holder stored nothing that decides (it failed, or died):
		// the lock is free, and the next try may take it.
	}
	return nil, nop
}

// newer reports whether e, from the Store, tells more than old: a response
// received later, or a back-off that lasts longer.
func newer(e, old *cache.Entry) bool {
	return old == nil || e.Received.After(old.Received) || e.Failures > 0 && e.RetryAt.After(old.RetryAt)
}

// sameBody reports whether a and b hold the same response body, with the
// same kind of status.
func sameBody(a, b *cache.Entry) bool {
	return a.Status/100 == b.Status/100 && bytes.Equal(a.Body, b.Body)
}

// sameBody reports whether e, the result of a fetch, holds st's body.
// When st dropped its body, e holds it when it comes from st's entry (a
// revalidation, a failure that keeps it): then it has no body either, as
// no fetch or Store returns a 2xx without one.
func (st *originState) sameBody(e *cache.Entry) bool {
	if st.bodyless {
		return e.Body == nil && e.Status/100 == int(st.status)/100
	}
	own := st.entry()
	return sameBody(e, &own)
}

// observed reports whether fetches are told to an Observer or a Logger.
func (t *Transport) observed() bool {
	return t.Observer != nil && t.Observer.Fetched != nil || t.Logger != nil
}

// parseFor parses e for o as parse does, reusing the parse of prev when e
// holds the same body (a revalidation, a copy standing in for a failure):
// only the permissions references are read again.
func (t *Transport) parseFor(o origin, e *cache.Entry, prev *originState, dial, ua string) parsed {
	if prev == nil || !prev.parsed || e.Status == 0 || !prev.sameBody(e) {
		return t.parse(o, e, dial, ua)
	}
	return parsed{robots: prev.robots, acap: t.resolveACAP(o, prev.acapPolicy(), dial, ua), signals: prev.more.signals}
}

// keep builds o's state and holds it in memory, unless the cache policy
// forbids storing it.
func (t *Transport) keep(k stateKey, e *cache.Entry, err error, p parsed) *originState {
	st := t.newState(k, e, err, p)
	if asked, ok := t.capped(st, k); ok {
		t.noteCapped(st, k, asked)
	}
	if t.cachePolicy().Storable(e) {
		t.states.Set(k, st)
	} else {
		t.states.Delete(k)
	}
	return st
}

// capped returns the pause that st's rules ask of the agent of k, when it
// is above MaxDelay and the Transport crawls at MaxDelay rather than
// refuse (RefuseAboveMaxDelay).
func (t *Transport) capped(st *originState, k stateKey) (time.Duration, bool) {
	if t.RefuseAboveMaxDelay || t.NoPacing || st.robots == emptyRobots {
		return 0, false
	}
	g := st.group
	if t.UserAgent == "" {
		g = st.robots.Group(k.agent)
	}
	d, ok := askedDelay(g)
	return d, ok && d > t.maxDelay()
}

// noteCapped tells the Observer and the Logger that st's rules ask the
// agent of k for asked between requests, more than MaxDelay: once per
// origin and agent, unless the state it replaces asked the same.
func (t *Transport) noteCapped(st *originState, k stateKey, asked time.Duration) {
	if prev := t.cached(k); prev != nil {
		if d, ok := t.capped(prev, k); ok && d == asked {
			return
		}
	}
	agent := k.agent
	if t.UserAgent != "" {
		agent = strings.ToLower(t.token)
	}
	t.delayCapped(DelayEvent{Origin: st.name(), Agent: agent, Asked: asked, Applied: t.maxDelay()})
}

// withoutFragment returns u without the fragment that names the agent of a
// Store key (see stateKey.storeURL).
func withoutFragment(u string) string {
	u, _, _ = strings.Cut(u, "#")
	return u
}

// fetchEvent describes a fetch of url, with entry e as its result.
func (t *Transport) fetchEvent(url string, o origin, out FetchOutcome, e *cache.Entry, err error, d time.Duration) FetchEvent {
	ev := FetchEvent{URL: withoutFragment(url), Origin: o.String(), Outcome: out, Duration: d, Bytes: len(e.Body), Err: err}
	if out != OutcomeFailed && out != OutcomeServedStale {
		ev.Status = e.Status
		if out == OutcomeRevalidated {
			ev.Status = http.StatusNotModified
		}
		f := t.cachePolicy().Freshness(e)
		ev.Lifetime, ev.LifetimeSource = f.Until.Sub(e.Received), f.Source
		switch {
		case f.Capped:
			ev.LifetimeSource += " (capped)"
		case f.Floored:
			ev.LifetimeSource += " (floored)"
		}
	} else {
		var fe *FetchError
		if errors.As(err, &fe) {
			ev.Status = fe.Status
		}
	}
	return ev
}

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
	st, _, err := t.lookup(ctx, o, "", t.UserAgent, t.now())
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
		if a := st.more.acap; a != nil {
			s.ACAP = a.policy
		}
		s.Usage = st.more.signals
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
			t.lookup(ctx, o, "", t.UserAgent, t.now())
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		errs = append(errs, fmt.Errorf("robotsguard: prefetch: %w", err))
	}
	return errors.Join(errs...)
}
