package robotsredis_test

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// proxy is a TCP proxy between a Fleet's client and a redis-server, on
// loopback, that a test can make slow or cut: it holds Redis's replies
// for a delay (Redis has run the command; the client hears of it late),
// or drops every connection and refuses new ones (Redis is out of reach).
type proxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	// held receives a value each time a reply is held for a delay, once
	// Redis has answered: what the client asked has been done. It does
	// not block the proxy: values past its buffer are dropped.
	held chan struct{}

	mu    sync.Mutex // guards the fields below
	delay time.Duration
	down  bool
	conns map[net.Conn]struct{}
}

func newProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, target: target, held: make(chan struct{}, 100), conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// setDelay holds every reply read from Redis from now on for d (zero: none).
func (p *proxy) setDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// cut drops every connection, and refuses new ones until restore.
func (p *proxy) cut() {
	p.mu.Lock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
	p.mu.Unlock()
}

// restore lets connections through again.
func (p *proxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// track records c as open, or closes it when the proxy is down.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		r, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		if !p.track(r) {
			c.Close()
			continue
		}
		go func() { io.Copy(r, c); r.Close() }()
		go p.replies(c, r)
	}
}

// replies copies Redis's replies from r to the client c, each held for the
// delay set when it was read, in order.
func (p *proxy) replies(c, r net.Conn) {
	type chunk struct {
		b   []byte
		due time.Time
	}
	q := make(chan chunk, 1024)
	go func() {
		defer c.Close()
		for ch := range q {
			if d := time.Until(ch.due); d > 0 {
				tm := time.NewTimer(d)
				<-tm.C
			}
			if _, err := c.Write(ch.b); err != nil {
				for range q { // drain
				}
				return
			}
		}
	}()
	defer close(q)
	for {
		b := make([]byte, 32<<10)
		n, err := r.Read(b)
		if n > 0 {
			p.mu.Lock()
			d := p.delay
			p.mu.Unlock()
			if d > 0 {
				select {
				case p.held <- struct{}{}:
				default:
				}
			}
			q <- chunk{b[:n], time.Now().Add(d)}
		}
		if err != nil {
			return // the writer closes c once it has written what it holds
		}
	}
}

// client returns a client of the Redis behind p.
func (p *proxy) client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: p.addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}
