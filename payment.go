package robotsguard

import (
	"context"
	"hash/maphash"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/robotsguard/robotsguard/pay"
)

// Pay-per-crawl (Cloudflare, "Crawl pages" and "Error codes"): a page
// answers 402 with crawler-price; a request may carry crawler-max-price
// (or crawler-exact-price), and a response that was paid for carries
// crawler-charged, what is billed. The Transport pays only under its
// Payment policy, within the budgets, and never twice for one request.

// The header fields of pay-per-crawl, in canonical form.
const (
	hdrPrice      = "Crawler-Price"
	hdrMaxPrice   = "Crawler-Max-Price"
	hdrExactPrice = "Crawler-Exact-Price"
	hdrCharged    = "Crawler-Charged"
	hdrError      = "Crawler-Error"
)

// maxRecent bounds the URLs a wallet remembers as charged: past it, the
// oldest are forgotten first (a retry comes soon after its request).
const maxRecent = 1 << 16

// wallet keeps a Transport's accounts of what it offers and is charged.
type wallet struct {
	policy *pay.Policy // nil: nothing is paid
	err    error       // policy.Validate's
	repay  time.Duration
	seed   maphash.Seed

	mu      sync.Mutex
	left    int64             // of the Budget, offers under way taken out
	origins map[string]*purse // with an OriginBudget
	// recent holds the URLs charged within repay (until when, in Unix
	// nanoseconds) or being offered payment now (0), by hash; queue the
	// charged ones, oldest first, from head.
	recent      map[uint64]int64
	queue       []charged
	head        int
	charges     int64
	overcharges int64
	spent       int64 // micro-units of the Policy's currency charged
}

// A purse is what was spent on one origin, and is offered to it now.
type purse struct{ spent, offered int64 }

type charged struct {
	key   uint64
	until int64
}

// An offer is what a request is sent with.
type offer struct {
	price  pay.Price // crawler-max-price; zero for none
	key    uint64    // of the request's method and URL
	origin string
	paid   bool // the URL was charged recently, or is being offered: not offered again
	held   bool // key is in recent as offered, by this request
}

func (w *wallet) init(p *pay.Policy) {
	w.seed = maphash.MakeSeed()
	if p == nil {
		return
	}
	cp := *p
	w.policy, w.err = &cp, cp.Validate()
	w.left = cp.Budget.Micros
	switch {
	case cp.RepayAfter < 0:
	case cp.RepayAfter == 0:
		w.repay = pay.DefaultRepayAfter
	default:
		w.repay = cp.RepayAfter
	}
	w.recent = make(map[uint64]int64)
	if cp.OriginBudget != nil {
		w.origins = make(map[string]*purse)
	}
}

// offer returns what req, to origin, is offered: the least of MaxPrice and
// what is left of the budgets, taken out of them until settle.
func (w *wallet) offer(req *http.Request, origin string, now time.Time) offer {
	p := w.policy
	if p == nil {
		return offer{origin: origin}
	}
	o := offer{origin: origin, key: maphash.String(w.seed, req.Method+" "+req.URL.String())}
	amount := p.MaxPrice.Micros
	if p.OriginBudget != nil {
		b := p.OriginBudget(origin)
		if b.Currency != p.MaxPrice.Currency {
			b.Micros = 0
		}
		amount = min(amount, b.Micros) // what is spent is taken out below
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if until, ok := w.recent[o.key]; ok && (until == 0 || until > now.UnixNano()) {
		o.paid = true
		return o
	}
	var pu *purse
	if w.origins != nil {
		if pu = w.origins[origin]; pu != nil {
			amount -= pu.spent + pu.offered
		}
	}
	if amount = min(amount, w.left); amount <= 0 {
		return o
	}
	if pu == nil && w.origins != nil {
		pu = new(purse)
		w.origins[strings.Clone(origin)] = pu
	}
	if pu != nil {
		pu.offered += amount
	}
	w.left -= amount
	w.recent[o.key] = 0
	o.price, o.held = pay.Price{Currency: p.MaxPrice.Currency, Micros: amount}, true
	return o
}

// settle ends offer o: cost (micro-units of the Policy's currency) is
// spent, and the rest of the offer returns to the budgets. A request
// charged (c not nil) keeps its URL from being offered payment again for
// RepayAfter.
func (w *wallet) settle(o offer, c *pay.Charge, cost int64, now time.Time) {
	if o.price.IsZero() && c == nil {
		return // nothing offered, nothing charged: the common case
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if c != nil {
		w.charges++
		if c.Over {
			w.overcharges++
		}
	}
	if w.policy == nil {
		return
	}
	if c != nil && c.Price.Currency == w.policy.MaxPrice.Currency {
		w.spent = addSat(w.spent, c.Price.Micros)
	}
	w.left = addSat(w.left, o.price.Micros-cost)
	if w.origins != nil && (o.held || cost != 0) {
		pu := w.origins[o.origin]
		if pu == nil {
			pu = new(purse)
			w.origins[strings.Clone(o.origin)] = pu
		}
		pu.offered -= o.price.Micros
		pu.spent = addSat(pu.spent, cost)
		if pu.spent == 0 && pu.offered == 0 {
			delete(w.origins, o.origin)
		}
	}
	switch {
	case c != nil && w.repay > 0:
		until := now.Add(w.repay).UnixNano()
		w.recent[o.key] = until
		w.remember(charged{o.key, until}, now.UnixNano())
	case o.held:
		delete(w.recent, o.key)
	}
}

// addSat returns a+b, or the int64 nearest to it when it overflows: a site
// that charges the largest amounts, again and again, must not wrap the
// budget around to a large one.
func addSat(a, b int64) int64 {
	c := a + b
	switch {
	case a > 0 && b > 0 && c < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && c >= 0:
		return math.MinInt64
	}
	return c
}

// remember queues a charged URL, and forgets those whose time is over, or
// the oldest when there are too many.
func (w *wallet) remember(c charged, now int64) {
	w.queue = append(w.queue, c)
	for w.head < len(w.queue) {
		old := w.queue[w.head]
		if old.until > now && len(w.queue)-w.head <= maxRecent {
			break
		}
		if w.recent[old.key] == old.until { // not charged again since
			delete(w.recent, old.key)
		}
		w.queue[w.head] = charged{}
		w.head++
	}
	if w.head > len(w.queue)/2 && w.head > 64 {
		w.queue = append(w.queue[:0], w.queue[w.head:]...)
		w.head = 0
	}
}

// stats adds the wallet's counters to s.
func (w *wallet) stats(s *Stats) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s.Charges, s.Overcharges = w.charges, w.overcharges
	if w.policy != nil {
		s.Spent = pay.Price{Currency: w.policy.MaxPrice.Currency, Micros: w.spent}
	}
}

// paid settles the offer o that req, to st's origin, was sent with, from
// its response: a charge is counted and reported, and fails the request
// when it exceeds the offer; a 402 with a crawler-price fails it with a
// *pay.PaymentRequiredError. The response of a request that fails is
// closed.
func (t *Transport) paid(req *http.Request, o offer, resp *http.Response, err error) (*http.Response, error) {
	w := &t.wallet
	if err != nil {
		w.settle(o, nil, 0, time.Time{})
		return nil, err
	}
	h := resp.Header
	if v, ok := h[hdrCharged]; ok && len(v) > 0 {
		return t.charged(req, o, resp, v[0])
	}
	if v := h[hdrPrice]; resp.StatusCode == http.StatusPaymentRequired && len(v) > 0 {
		w.settle(o, nil, 0, time.Time{})
		resp.Body.Close()
		return nil, t.required(req, o, v[0], h.Get(hdrError))
	}
	w.settle(o, nil, 0, time.Time{})
	if err := licenseRequired(resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// charged settles offer o from a response charged raw.
func (t *Transport) charged(req *http.Request, o offer, resp *http.Response, raw string) (*http.Response, error) {
	c := pay.Charge{URL: req.URL.Redacted(), Origin: strings.Clone(o.origin), Offered: o.price, Raw: raw}
	price, perr := pay.ParsePrice(raw)
	var cost int64
	if perr == nil {
		c.Price = price
		c.Over = price.Micros > 0 && (o.price.IsZero() || price.Currency != o.price.Currency || price.Micros > o.price.Micros)
		if t.wallet.policy != nil && price.Currency == t.wallet.policy.MaxPrice.Currency {
			cost = price.Micros
		} else if c.Over {
			cost = o.price.Micros // what it bills cannot be counted: the worst it may, within the offer
		}
	} else {
		c.Over, cost = true, o.price.Micros
	}
	t.wallet.settle(o, &c, cost, t.now())
	t.reportCharge(c)
	if !c.Over {
		return resp, nil
	}
	resp.Body.Close()
	return nil, &pay.OverchargeError{URL: c.URL, Origin: c.Origin, Offered: o.price, Charged: c.Price, Raw: raw}
}

// required returns the error of a 402 answer asking raw, that the request
// was sent to with offer o.
func (t *Transport) required(req *http.Request, o offer, raw, code string) *pay.PaymentRequiredError {
	e := &pay.PaymentRequiredError{URL: req.URL.Redacted(), Origin: strings.Clone(o.origin), Raw: raw, Offered: o.price, CrawlerError: code}
	price, err := pay.ParsePrice(raw)
	e.Price = price
	p := t.wallet.policy
	switch {
	case p == nil:
		e.Reason = pay.ReasonNoPolicy
	case err != nil:
		e.Reason = pay.ReasonBadPrice
	case price.Currency != p.MaxPrice.Currency:
		e.Reason = pay.ReasonCurrency
	case price.Micros > p.MaxPrice.Micros:
		e.Reason = pay.ReasonAboveMax
	case o.paid:
		e.Reason = pay.ReasonPaid
	case price.Micros > o.price.Micros:
		e.Reason = pay.ReasonBudget
	default:
		e.Reason = pay.ReasonRefused
	}
	if t.Logger != nil && t.Logger.Enabled(context.Background(), slog.LevelDebug) {
		t.Logger.Debug("payment required, not paid", "url", e.URL, "price", raw, "reason", e.Reason.String(), "crawler_error", code)
	}
	return e
}

// reportCharge tells the Observer and the Logger of a charge.
func (t *Transport) reportCharge(c pay.Charge) {
	if t.Observer != nil && t.Observer.Charged != nil {
		t.Observer.Charged(c)
	}
	if t.Logger == nil {
		return
	}
	if c.Over {
		t.Logger.Warn("charged more than offered", "url", c.URL, "charged", c.Raw, "offered", c.Offered.String())
		return
	}
	t.Logger.Debug("page paid", "url", c.URL, "charged", c.Price.String())
}
