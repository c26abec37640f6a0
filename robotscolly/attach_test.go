package robotscolly_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotscolly"
)

const starRobots = "User-agent: *\nDisallow: /admin\nDisallow: /private/\n"

var starSite = map[string]page{
	"/":               {links: []string{"/a", "/admin", "/private/secret", "/r"}},
	"/a":              {},
	"/r":              {redirect: "/admin/x"},
	"/admin":          {},
	"/private/secret": {},
}

// proxy is a forward proxy for http URLs that counts the requests it
// forwards.
type proxy struct {
	srv *httptest.Server
	mu  sync.Mutex
	n   int
}

func newProxy(t *testing.T) *proxy {
	p := &proxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.n++
		p.mu.Unlock()
		out := r.Clone(r.Context())
		out.RequestURI = ""
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *proxy) forwarded() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// collect returns a collector attached to tr that follows links and
// records the errors OnError receives.
func collect(t *testing.T, tr *robotsguard.Transport) (*colly.Collector, *[]error) {
	t.Helper()
	c := colly.NewCollector()
	if _, err := robotscolly.Attach(c, tr); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []error
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.OnError(func(_ *colly.Response, err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	})
	return c, &errs
}

// TestSetProxyFuncAfterAttach: colly's SetProxyFunc, which replaces any
// transport but an *http.Transport, keeps the Transport: the proxy is
// used for every request, robots.txt included, and no disallowed page is
// fetched.
func TestSetProxyFuncAfterAttach(t *testing.T) {
	s := newSite(t, "colly", starRobots, starSite)
	p := newProxy(t)
	c, errs := collect(t, &robotsguard.Transport{Delay: -1})
	pu, _ := url.Parse(p.srv.URL)
	c.SetProxyFunc(http.ProxyURL(pu))
	if err := c.SetProxy(p.srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := c.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	s.check(t, []string{"/", "/a", "/r"})
	refused := 0
	for _, err := range *errs {
		if !errors.Is(err, robotsguard.ErrDisallowed) {
			t.Errorf("OnError: %v, want a refusal", err)
		}
		refused++
	}
	if refused != 3 {
		t.Errorf("%d refusals, want 3 (/admin, /private/secret, /r's hop to /admin/x)", refused)
	}
	// robots.txt, /, /a, /r
	if n := p.forwarded(); n != 4 {
		t.Errorf("the proxy forwarded %d requests, want 4", n)
	}
}

// TestProxyWithOwnBase: a proxy set on the collector cannot apply when the
// Transport has a Base of its own; its requests fail, unsent, rather than
// go around the proxy.
func TestProxyWithOwnBase(t *testing.T) {
	s := newSite(t, "colly", starRobots, starSite)
	c, errs := collect(t, &robotsguard.Transport{Delay: -1, Base: &http.Transport{}})
	if err := c.SetProxy("http://127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Visit(s.srv.URL + "/"); !errors.Is(err, robotscolly.ErrProxyNotInBase) {
		t.Errorf("Visit: %v, want ErrProxyNotInBase", err)
	}
	if len(*errs) != 1 || !errors.Is((*errs)[0], robotscolly.ErrProxyNotInBase) {
		t.Errorf("OnError saw %v, want ErrProxyNotInBase", *errs)
	}
	s.check(t, nil)
	if n := s.served("/robots.txt"); n != 0 {
		t.Errorf("robots.txt fetched %d times, want 0", n)
	}
}

// TestReplacedTransport: a collector whose transport or client is
// replaced after Attach sends nothing; OnError hears of it.
func TestReplacedTransport(t *testing.T) {
	for name, replace := range map[string]func(*colly.Collector){
		"WithTransport": func(c *colly.Collector) { c.WithTransport(http.DefaultTransport) },
		"SetClient":     func(c *colly.Collector) { c.SetClient(&http.Client{}) },
	} {
		t.Run(name, func(t *testing.T) {
			s := newSite(t, "colly", starRobots, starSite)
			c, errs := collect(t, &robotsguard.Transport{Delay: -1})
			replace(c)
			if err := c.Visit(s.srv.URL + "/"); !errors.Is(err, colly.ErrAbortedBeforeRequest) {
				t.Errorf("Visit: %v, want colly.ErrAbortedBeforeRequest", err)
			}
			if len(*errs) != 1 || !errors.Is((*errs)[0], colly.ErrAbortedBeforeRequest) {
				t.Errorf("OnError saw %v, want colly.ErrAbortedBeforeRequest", *errs)
			}
			if n := s.served("/"); n != 0 {
				t.Errorf("/ requested %d times, want 0", n)
			}
		})
	}
}

// TestAttachNil: Attach needs both its arguments.
func TestAttachNil(t *testing.T) {
	if _, err := robotscolly.Attach(nil, &robotsguard.Transport{}); err == nil {
		t.Error("Attach(nil, t) succeeded")
	}
	if _, err := robotscolly.Attach(colly.NewCollector(), nil); err == nil {
		t.Error("Attach(c, nil) succeeded")
	}
}

// TestSetProxyFuncWithoutAttach shows the hazard Attach removes: a
// Transport given to colly's WithTransport is replaced by SetProxyFunc,
// and the crawl then fetches disallowed pages.
func TestSetProxyFuncWithoutAttach(t *testing.T) {
	s := newSite(t, "colly", starRobots, starSite)
	p := newProxy(t)
	c := colly.NewCollector()
	c.WithTransport(&robotsguard.Transport{Delay: -1})
	pu, _ := url.Parse(p.srv.URL)
	c.SetProxyFunc(http.ProxyURL(pu))
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	if err := c.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if n := s.served("/admin"); n != 1 {
		t.Errorf("/admin requested %d times; colly's SetProxyFunc no longer replaces the transport?", n)
	}
}

// TestAttachTwiceAndClone: a second Attach, or a Clone, keeps requests
// going through a Transport: the last one attached.
func TestAttachTwiceAndClone(t *testing.T) {
	s := newSite(t, "colly", starRobots, starSite)
	c, errs := collect(t, &robotsguard.Transport{Delay: -1})
	second := &robotsguard.Transport{Delay: -1}
	if _, err := robotscolly.Attach(c, second); err != nil {
		t.Fatal(err)
	}
	if err := c.Visit(s.srv.URL + "/a"); err != nil {
		t.Fatal(err)
	}
	clone := c.Clone()
	if err := clone.Visit(s.srv.URL + "/admin"); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("the clone's Visit of /admin: %v, want a refusal", err)
	}
	if len(*errs) != 0 {
		t.Errorf("OnError saw %v", *errs)
	}
	if st := second.Stats(); st.Checked != 2 {
		t.Errorf("the second Transport checked %d requests, want 2", st.Checked)
	}
	s.check(t, []string{"/a"})
}

// TestUpgradeNotSent: an https request that asks for a WebSocket upgrade,
// which an *http.Transport keeps from its registered protocols, is not
// sent around the Transport: the collector's transport dials nothing.
func TestUpgradeNotSent(t *testing.T) {
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
	}))
	defer srv.Close()
	c := colly.NewCollector()
	if _, err := robotscolly.Attach(c, &robotsguard.Transport{Delay: -1, Base: srv.Client().Transport}); err != nil {
		t.Fatal(err)
	}
	hdr := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}
	if err := c.Request("GET", srv.URL+"/socket", nil, nil, hdr); !errors.Is(err, robotscolly.ErrBypass) {
		t.Errorf("the upgrade request: %v, want the shell's refusal to dial", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 {
		t.Errorf("the origin received %d requests, want 0", hits)
	}
}
