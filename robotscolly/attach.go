package robotscolly

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
)

// ErrProxyNotInBase is the error of the requests of a collector that was
// given a proxy (SetProxy, SetProxyFunc) after Attach, when the Transport
// has a Base of its own: that Base sends them, and does not know the
// proxy. Set the proxy in Base instead. The requests are not sent.
var ErrProxyNotInBase = errors.New("robotscolly: the collector's proxy (SetProxy, SetProxyFunc) is not used by the Transport's own Base; set the proxy in Base")

// errBypass is the error of the shell transport's dials: a request that did
// not go to the Transport.
var errBypass = errors.New("robotscolly: request not sent: it would bypass the robots.txt Transport")

// Attach makes c send all its requests through t, which then decides,
// paces and sends every request of the collector, redirect hops included.
// Call it before the collector's first request and t's first use.
//
// c's transport becomes an *http.Transport that sends nothing itself: it
// hands every http and https request to t and refuses to dial. colly's
// SetProxy and SetProxyFunc keep it and set its Proxy, which t's Base
// uses: when t.Base is nil, Attach sets it to a clone of
// http.DefaultTransport whose Proxy is the collector's, or else the
// environment's (HTTP_PROXY, …). When t.Base is set, the proxy belongs
// there, and a collector given a proxy all the same fails its requests with
// ErrProxyNotInBase. SetProxyFunc's DisableKeepAlives is not copied: the
// connections of Base are pooled per proxy, so rotating proxies still
// rotate.
//
// Attach also registers an OnRequestHeaders callback that aborts, before
// it is sent, any request of a collector whose client or transport was
// replaced after Attach (WithTransport, SetClient), which would bypass t.
// Such requests reach OnError with colly.ErrAbortedBeforeRequest, and t's
// Logger, if set, logs the reason at Error level.
//
// A collector made by c.Clone shares c's client, and so t, but not this
// callback: to crawl with several collectors through one Transport, attach
// one and clone it. Attaching the clone, or c again, changes the Transport
// of both; attaching a Transport a second time finds its Base set, by the
// first Attach, so a proxy set on the collector then fails as above.
//
// The Guard returned tells pacing refusals apart (PacingError) and sends
// them again (Requeue).
//
// Attach fails when c or t is nil, or when the installed colly version
// keeps its client where Attach cannot check it.
func Attach(c *colly.Collector, t *robotsguard.Transport) (*Guard, error) {
	if c == nil || t == nil {
		return nil, errors.New("robotscolly: Attach needs a collector and a Transport")
	}
	if _, ok := clientTransport(c); !ok {
		return nil, errors.New("robotscolly: this colly version keeps its HTTP client where robotscolly cannot check it")
	}
	g := &guard{t: t, ownBase: t.Base == nil}
	g.shell = &http.Transport{
		Protocols:      new(http.Protocols), // HTTP/1 alone: an HTTP/2 of its own would claim https
		DialContext:    refuseDial,
		DialTLSContext: refuseDial,
	}
	g.shell.Protocols.SetHTTP1(true)
	g.shell.RegisterProtocol("http", g)
	g.shell.RegisterProtocol("https", g)
	if g.ownBase {
		base := http.DefaultTransport.(*http.Transport).Clone()
		base.Proxy = g.proxy
		t.Base = base
	}
	c.WithTransport(g.shell)
	c.OnRequestHeaders(g.checkClient(c))
	return &Guard{c: c, t: t, g: g}, nil
}

// A Guard is a collector attached to a Transport.
type Guard struct {
	c        *colly.Collector
	t        *robotsguard.Transport
	g        *guard
	retrying sync.Map // headersKey → *atomic.Bool: requests Requeue is sending again, and whether OnError heard of them
}

// guard is the Transport behind the collector's shell transport.
type guard struct {
	t       *robotsguard.Transport
	shell   *http.Transport // what the collector holds; colly sets its Proxy
	ownBase bool            // t.Base is Attach's, whose Proxy is g.proxy
	paced   paced
	failing failing // origins whose robots.txt could not be fetched
}

// RoundTrip sends req through the Transport.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if !g.ownBase && g.shell.Proxy != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrProxyNotInBase
	}
	resp, err := g.t.RoundTrip(req)
	var pe *robotsguard.PacingError
	if err != nil && errors.As(err, &pe) {
		g.paced.put(req, pe)
	}
	if transientRefusal(err) == nil {
		g.failing.read(req)
	}
	return resp, err
}

// proxy is the Proxy of the Base that Attach provides: the collector's
// (SetProxy, SetProxyFunc), or else the environment's.
func (g *guard) proxy(req *http.Request) (*url.URL, error) {
	if p := g.shell.Proxy; p != nil {
		return p(req)
	}
	return http.ProxyFromEnvironment(req)
}

func refuseDial(context.Context, string, string) (net.Conn, error) { return nil, errBypass }

// checkClient returns the callback that aborts the requests that c's
// client would not send through a Transport.
func (g *guard) checkClient(c *colly.Collector) colly.RequestCallback {
	return func(r *colly.Request) {
		if shell, ok := clientTransport(c); ok && shell {
			return
		}
		r.Abort()
		if l := g.t.Logger; l != nil {
			l.Error("robotscolly: request aborted: the collector's client or transport was replaced after Attach, and would not obey robots.txt", "url", r.URL.Redacted())
		}
	}
}

// clientTransport reports whether c's HTTP client sends through a
// Transport (its transport is a shell made by Attach, by this collector's
// or by another's: a second Attach, or a Clone, which shares the client),
// and whether the client could be found. colly offers no accessor: the
// client is read, and only read, with reflect, from the unexported field
// that holds it (colly v2.1 to v2.3).
func clientTransport(c *colly.Collector) (shell, ok bool) {
	b := reflect.ValueOf(c).Elem().FieldByName("backend")
	if b.Kind() != reflect.Pointer || b.IsNil() || b.Elem().Kind() != reflect.Struct {
		return false, false
	}
	cl := b.Elem().FieldByName("Client")
	if !cl.IsValid() || cl.Type() != reflect.TypeFor[*http.Client]() || cl.IsNil() {
		return false, false
	}
	tr := cl.Elem().FieldByName("Transport")
	if tr.IsNil() || tr.Elem().Type() != reflect.TypeFor[*http.Transport]() || tr.Elem().IsNil() {
		return false, true
	}
	dial := tr.Elem().Elem().FieldByName("DialContext")
	return !dial.IsNil() && dial.Pointer() == refuseDialPC, true
}

// refuseDialPC identifies refuseDial, the DialContext of every shell.
var refuseDialPC = reflect.ValueOf(refuseDial).Pointer()
