package robotstest

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// A Fault changes how an Origin answers requests for a path (see
// Origin.Fault). Make one with Status, Redirect, SlowBody, HugeBody,
// Handler or Pass. Whatever the fault, a request is recorded and judged
// against robots.txt as any other.
type Fault struct {
	kind    faultKind
	status  int
	header  http.Header
	gate    <-chan struct{}
	size    int64
	handler http.HandlerFunc
}

type faultKind uint8

const (
	faultPass faultKind = iota
	faultStatus
	faultSlow
	faultHuge
	faultHandler
)

// Pass answers as the Origin does without a fault: robots.txt, or the page.
// In a list given to Origin.Fault, it makes a fault happen only some of the
// time: Fault(path, Status(503), Pass()) fails the first request only.
func Pass() Fault { return Fault{kind: faultPass} }

// Status answers with the status code and the header lines given
// ("Retry-After: 1", "Location: /elsewhere"). A 2xx answer carries the
// body the path has without a fault, so that
//
//	Status(200, "Cache-Control: max-age=3600")
//
// serves robots.txt with a lifetime; any other status carries a short text
// body that names it. A header line without a colon panics.
func Status(code int, header ...string) Fault {
	h := http.Header{}
	for _, line := range header {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			panic(fmt.Sprintf("robotstest: header line %q has no colon", line))
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return Fault{kind: faultStatus, status: code, header: h}
}

// Redirect answers with a 302 Found to the given location, a path of the
// Origin or an absolute URL. A chain is a fault on each hop:
//
//	o.Fault("/a", robotstest.Redirect("/b"))
//	o.Fault("/b", robotstest.Redirect("/admin/")) // into a disallowed path
//
// and a loop one that leads back ("/b" redirecting to "/a").
func Redirect(location string) Fault {
	return Status(http.StatusFound, "Location: "+location)
}

// SlowBody answers with the status and headers of the path, and the first
// half of its body; then waits to receive from gate before the rest. A
// test closes gate to release every answer held, or sends on it to release
// one: a send on an unbuffered gate returns once an answer is held there,
// so it also tells the test that the request has arrived. The answer stops
// waiting, and ends, when the client goes away or the Origin is closed, so
// a test that never opens the gate does not hang.
func SlowBody(gate <-chan struct{}) Fault {
	return Fault{kind: faultSlow, gate: gate}
}

// HugeBody answers with the body of the path followed by filler, to size
// bytes in all (Content-Length says so). The filler is lines of '#', a
// comment in robots.txt and text in a page. The body is written as it is
// read, never held in memory, and writing stops when the client goes away.
func HugeBody(size int64) Fault {
	return Fault{kind: faultHuge, size: size}
}

// Handler answers with h, a handler of the test's own, for what the other
// faults do not do: a robots.txt that depends on the request (its
// User-Agent, its Host, its validators: a 304 to a conditional request),
// a body cut short or without end, a content coding, an answer held until
// the test lets it go, a side effect at the moment the request arrives.
// What h writes goes to the client as h writes it, streamed: h may flush
// (w is an http.Flusher, and http.NewResponseController reaches the
// connection under it), and may wait for its request's context to end.
// Before h runs, the Origin records and judges the request, and sets the
// Date header by its Clock (h may set another); it records the status h
// answers with.
//
// For /robots.txt, what h serves is the agent's file, as the Origin's own
// would be: the body of a 2xx answer, as far as Origin.Parser reads, judges
// the agent's next requests; a 4xx or 5xx counts as that status does (see
// Origin); a 3xx changes nothing. A body with a Content-Encoding (other
// than identity) is not decoded: the Origin's own robots.txt stands for
// it.
func Handler(h http.HandlerFunc) Fault {
	return Fault{kind: faultHandler, handler: h}
}

// String describes the fault: "pass", "status 503 (Retry-After: 1)",
// "slow body", "huge body (1048576 bytes)", "handler".
func (f Fault) String() string {
	switch f.kind {
	case faultStatus:
		s := "status " + strconv.Itoa(f.status)
		var lines []string
		for k, vs := range f.header {
			for _, v := range vs {
				lines = append(lines, k+": "+v)
			}
		}
		if len(lines) > 0 {
			sort.Strings(lines)
			s += " (" + strings.Join(lines, ", ") + ")"
		}
		return s
	case faultSlow:
		return "slow body"
	case faultHuge:
		return "huge body (" + strconv.FormatInt(f.size, 10) + " bytes)"
	case faultHandler:
		return "handler"
	}
	return "pass"
}
