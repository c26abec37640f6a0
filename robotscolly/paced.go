package robotscolly

import (
	"errors"
	"net/http"
	"reflect"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
)

// paced holds the latest pacing refusals, so that they can be told apart
// in OnError: http.Client replaces an error that comes after its Timeout
// with one of its own, which keeps the message but not the
// *robotsguard.PacingError. A refusal is found by the request colly made:
// its header map (the Transport sees the same map, or for a redirect hop
// the map of the request that led to it) and its URL.
type paced struct {
	mu    sync.Mutex // guards m and keys
	m     map[uintptr]pacedEntry
	keys  []uintptr // in the order of insertion, to bound m
	first int       // index in keys of the oldest key
}

type pacedEntry struct {
	url string
	err *robotsguard.PacingError
}

const maxPaced = 4096 // refusals held; the oldest go first

// put records the refusal of req.
func (p *paced) put(req *http.Request, err *robotsguard.PacingError) {
	for req.Response != nil && req.Response.Request != nil {
		req = req.Response.Request // the request colly made
	}
	k := reflect.ValueOf(req.Header).Pointer()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[uintptr]pacedEntry{}
	}
	if _, ok := p.m[k]; !ok {
		if len(p.keys) < maxPaced {
			p.keys = append(p.keys, k)
		} else {
			delete(p.m, p.keys[p.first])
			p.keys[p.first] = k
			p.first = (p.first + 1) % maxPaced
		}
	}
	p.m[k] = pacedEntry{url: req.URL.String(), err: err}
}

// take returns and forgets the refusal of r's request, or nil.
func (p *paced) take(r *colly.Request) *robotsguard.PacingError {
	if r == nil || r.Headers == nil || r.URL == nil {
		return nil
	}
	k := headersKey(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[k]
	if !ok || e.url != r.URL.String() {
		return nil
	}
	delete(p.m, k) // its key stays in keys until its turn to go
	return e.err
}

// PacingError returns the *robotsguard.PacingError of a request that the
// Transport did not send because its origin's pace would not let it go in
// time (it matches context.DeadlineExceeded, or context.Canceled when the
// collector's Context ended), or nil when err is not one. Call it in
// OnError, with its arguments, once per error: errors.As alone misses the
// refusals of requests whose client Timeout had passed when the error
// came back, which http.Client replaces with its own timeout error.
func (g *Guard) PacingError(r *colly.Response, err error) *robotsguard.PacingError {
	if err == nil || r == nil {
		return nil
	}
	pe := g.g.paced.take(r.Request)
	if pe == nil {
		errors.As(err, &pe)
	}
	return pe
}

// headersKey identifies the header map of r, which the Transport sees
// and Retry sends again.
func headersKey(r *colly.Request) uintptr {
	if r.Headers == nil {
		return 0
	}
	return reflect.ValueOf(*r.Headers).Pointer()
}
