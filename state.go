package robotsguard

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/internal/lru"
	"github.com/robotsguard/robotsguard/policy"
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
	errText               string      // the entry's Err
	body                  []byte      // the entry's body, unless bodyless
	header                http.Header // the entry's header, when hdr does not hold it
	// signals holds the signals' parts of the file, as Transport.signals
	// orders them (nil when none has a part), and crawl the part that
	// decides crawling in place of the rules, if any (see decideURL).
	signals []signalPart
	crawl   crawlDecider
	agent   string    // the agent of the state's key, when it is too long for nh
	path    string    // the path of a site file's key
	file    *siteFile // the site file the state holds
}

// noMore is the stateMore of the states that need none. Read only.
var noMore = &stateMore{}

// needed reports whether m holds anything.
func (m *stateMore) needed() bool {
	return m.err != nil || m.failures != 0 || !m.failingSince.IsZero() || !m.retryAt.IsZero() || m.errText != "" ||
		m.body != nil || m.header != nil || m.signals != nil || m.agent != "" || m.path != "" || m.file != nil
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
// origin and its map slot (keyed by a hash: no copy of the name), when
// pacing is on and local. TestStateOverhead measures them.
const (
	stateOverhead = 264
	paceOverhead  = 96
	wholeHeader   = 512 // an entry's header map, when the entry is kept whole
	moreOverhead  = 208 // a stateMore, in its size class (TestStateMoreSize)
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

// A packed field is a byte, its index in packedFields, then its value and
// a NUL; or, for a date (Date, Expires, Last-Modified) that an
// IMF-fixdate spells as http.TimeFormat would (as servers send them, RFC
// 9110 §5.6.7), its index with timeTag set, then its seconds since 1970,
// in 8 bytes: 9 bytes where the field's name and value take 35 or more.
const (
	timeTag  = 0x80
	timeSize = 1 + 8
)

// packedDate reports whether s, a value of field i of packedFields, is
// packed as a time, and returns it in seconds since 1970.
func packedDate(i int, s string) (int64, bool) {
	if i != 1 && i != 3 && i != 5 || len(s) != len(http.TimeFormat) {
		return 0, false
	}
	t, err := time.Parse(http.TimeFormat, s)
	var buf [64]byte // on the stack: the check allocates nothing
	if err != nil || string(t.AppendFormat(buf[:0], http.TimeFormat)) != s {
		return 0, false // not as TimeFormat spells it: kept as it came
	}
	return t.Unix(), true
}

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
	for i := range packedFields {
		for _, s := range v[i] {
			if strings.IndexByte(s, 0) >= 0 {
				return -1
			}
			if _, ok := packedDate(i, s); ok {
				n += timeSize
			} else {
				n += len(s) + 2
			}
		}
	}
	return n
}

// appendPacked appends the fields of v, a few short caching fields, to b,
// packed (see timeTag), in the order of packedFields.
func (v *packedValues) appendPacked(b []byte) []byte {
	for i := range packedFields {
		for _, s := range v[i] {
			if sec, ok := packedDate(i, s); ok {
				b = binary.BigEndian.AppendUint64(append(b, byte(i)|timeTag), uint64(sec))
				continue
			}
			b = append(append(append(b, byte(i)), s...), 0)
		}
	}
	return b
}

// unpackHeader returns the header that packedValues.appendPacked packed
// into s.
func unpackHeader(s string) http.Header {
	h := http.Header{}
	for s != "" {
		tag := s[0]
		k := packedFields[tag&^timeTag]
		var v string
		if tag&timeTag != 0 {
			sec := int64(binary.BigEndian.Uint64([]byte(s[1:timeSize])))
			v, s = time.Unix(sec, 0).UTC().Format(http.TimeFormat), s[timeSize:]
		} else {
			v, s, _ = strings.Cut(s[1:], "\x00")
		}
		h[k] = append(h[k], v)
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

// newState builds the state k names from entry e, the failure err of
// the fetch that produced it (if any), and the ACAP state of the file.
func (t *Transport) newState(k stateKey, e *cache.Entry, err error, p parsed) *originState {
	whole := t.keepWhole()
	more := stateMore{err: err, failures: e.Failures, failingSince: e.FailingSince, retryAt: e.RetryAt, errText: e.Err,
		header: e.Header, signals: p.signals}
	agent := k.agent
	if len(agent) > math.MaxUint16 {
		more.agent, agent = agent, ""
	}
	if len(e.Header) == 0 {
		more.header = nil // an empty header is no header: it costs no stateMore
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
		size += paceOverhead // the pace and its map slot
	}
	if p.robots != nil {
		size += int64(p.robots.MemSize())
	}
	var until time.Time
	switch {
	case e.Failures > 0:
		until = e.RetryAt
	case e.Status != 0:
		until = t.cachePolicy().Freshness(e).Until
	}
	for _, sp := range p.signals {
		if sp == nil {
			continue
		}
		size += sp.memSize()
		if u := sp.expires(); !u.IsZero() && u.Before(until) {
			until = u
		}
		if d, ok := sp.(crawlDecider); ok {
			more.crawl = d
		}
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

// cached returns the state k names held in memory, if any.
func (t *Transport) cached(k stateKey) *originState {
	st, _ := t.states.Get(k)
	return st
}
