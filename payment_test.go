package robotsguard_test

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/botauth"
	"github.com/robotsguard/robotsguard/pay"
	"github.com/robotsguard/robotsguard/robotstest"
)

// ppcSite is a site that charges crawlers as Cloudflare's pay-per-crawl
// does ("Crawl pages", "Error codes"): 402 with crawler-price to a request
// that offers nothing; 400 StrongAuthRequired to one that offers a price
// unsigned; 200 with crawler-charged to a signed one whose crawler-max-price
// (or crawler-exact-price) covers the price. Its lies are set by fields.
type ppcSite struct {
	price string // crawler-price, "USD 0.01"
	// Lies: charge, when set, is what it charges instead of the price;
	// unasked charges it without an offer; forever answers 402 to every
	// offer; cut sends half of a charged body and breaks the connection.
	charge  string
	unasked bool
	forever bool
	cut     bool
	// hold, when not nil, holds each offered request: arrived receives
	// its path, and the answer waits for hold to be closed.
	hold, arrived chan string

	mu      sync.Mutex
	offers  []string // the crawler-max-price of each request for a page, "" for none
	charged []string // what it charged, one entry a charge
}

func (s *ppcSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	max, exact := r.Header.Get("Crawler-Max-Price"), r.Header.Get("Crawler-Exact-Price")
	s.mu.Lock()
	s.offers = append(s.offers, max+exact)
	charge, unasked, forever, cut := s.charge, s.unasked, s.forever, s.cut
	s.mu.Unlock()
	fail := func(status int, code string) {
		w.Header().Set("Crawler-Price", s.price)
		if code != "" {
			w.Header().Set("Crawler-Error", code)
		}
		w.WriteHeader(status)
	}
	offer := max + exact
	switch {
	case max != "" && exact != "":
		fail(http.StatusBadRequest, "ConflictingPriceHeaders")
		return
	case offer == "" && !unasked:
		fail(http.StatusPaymentRequired, "")
		return
	case offer != "" && r.Header.Get("Signature") == "":
		fail(http.StatusBadRequest, "StrongAuthRequired")
		return
	case forever:
		fail(http.StatusPaymentRequired, "InvalidCrawlerMaxPrice")
		return
	}
	if offer != "" {
		o, err := pay.ParsePrice(offer)
		p := pay.MustParsePrice(s.price)
		if err != nil || o.Currency != p.Currency || o.Micros < p.Micros {
			fail(http.StatusPaymentRequired, "InvalidCrawlerMaxPrice")
			return
		}
		if s.hold != nil {
			s.arrived <- r.URL.Path
			<-s.hold
		}
	}
	if charge == "" {
		charge = s.price
	}
	s.mu.Lock()
	s.charged = append(s.charged, charge)
	s.mu.Unlock()
	w.Header().Set("Crawler-Charged", charge)
	if cut {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("half a page"))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	io.WriteString(w, "page "+r.URL.Path)
}

func (s *ppcSite) seen() (offers, charged []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.offers...), append([]string(nil), s.charged...)
}

// signer stands in for a Web Bot Auth signer (package botauth) as Base: it
// marks each request signed, and records the price it signed.
type signer struct {
	base   http.RoundTripper
	mu     sync.Mutex
	signed []string
}

func (s *signer) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Signature", "sig1=:fake:")
	s.mu.Lock()
	s.signed = append(s.signed, r.Header.Get("Crawler-Max-Price"))
	s.mu.Unlock()
	return s.base.RoundTrip(r)
}

// payHarness is a harness whose Base is a signer, with policy as its
// Payment, and whose charges are recorded.
type payHarness struct {
	*harness
	mu      sync.Mutex
	charges []pay.Charge
}

func newPayHarness(t *testing.T, policy *pay.Policy, configure ...func(*robotsguard.Transport)) *payHarness {
	ph := &payHarness{}
	ph.harness = newHarness(t, append([]func(*robotsguard.Transport){func(tr *robotsguard.Transport) {
		tr.Base = &signer{base: tr.Base}
		tr.Payment = policy
		tr.Observer = &robotsguard.Observer{Charged: func(c pay.Charge) {
			ph.mu.Lock()
			ph.charges = append(ph.charges, c)
			ph.mu.Unlock()
		}}
	}}, configure...)...)
	return ph
}

// site starts s, with a robots.txt that allows everything. (Not a
// robotstest.Origin: that records each answer whole before it is sent, and
// s must be able to break one on its way.)
func (h *payHarness) site(s *ppcSite) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nAllow: /\n")
			return
		}
		s.ServeHTTP(w, r)
	}))
	h.t.Cleanup(srv.Close)
	return srv
}

// required asserts that url fails with a *pay.PaymentRequiredError for
// reason, and returns it.
func (h *payHarness) required(url string, reason pay.Reason) *pay.PaymentRequiredError {
	h.t.Helper()
	_, err := h.get(url)
	if !errors.Is(err, pay.ErrPaymentRequired) {
		h.t.Fatalf("GET %s: error %v, want ErrPaymentRequired", url, err)
	}
	var e *pay.PaymentRequiredError
	if !errors.As(err, &e) || e.Reason != reason {
		h.t.Fatalf("GET %s: %v (%#v), want reason %v", url, err, e, reason)
	}
	return e
}

func usd(s string) pay.Price { return pay.MustParsePrice("USD " + s) }

func payPolicy(max, budget string) *pay.Policy {
	return &pay.Policy{MaxPrice: usd(max), Budget: usd(budget)}
}

// By default nothing is paid: a 402 with a crawler-price fails with its
// price, once, and the caller's own offer is not sent.
func TestPaymentNotPaidByDefault(t *testing.T) {
	h := newPayHarness(t, nil)
	s := &ppcSite{price: "USD 0.01"}
	o := h.site(s)
	e := h.required(o.URL+"/a", pay.ReasonNoPolicy)
	if e.Price != usd("0.01") || e.Origin != o.URL || e.URL != o.URL+"/a" || !e.Offered.IsZero() {
		t.Errorf("error %#v", e)
	}
	if want := "robotsguard: payment required: USD 0.01, not paid: no payment policy"; e.Error() != want {
		t.Errorf("message %q, want %q", e.Error(), want)
	}

	req, _ := http.NewRequest(http.MethodGet, o.URL+"/b", nil)
	req.Header.Set("Crawler-Max-Price", "USD 1.00")
	req.Header.Set("Crawler-Exact-Price", "USD 0.01")
	if _, err := h.client.Do(req); !errors.Is(err, pay.ErrPaymentRequired) {
		t.Errorf("a request with price fields of its own: %v, want ErrPaymentRequired", err)
	}
	if req.Header.Get("Crawler-Max-Price") != "USD 1.00" {
		t.Error("the caller's request was changed")
	}
	offers, charged := s.seen()
	if fmt.Sprint(offers) != "[ ]" || len(charged) != 0 {
		t.Errorf("site saw offers %q and charged %q, want two requests without an offer", offers, charged)
	}
	if st := h.tr.Stats(); st.Charges != 0 || !st.Spent.IsZero() {
		t.Errorf("Stats %+v", st)
	}
}

// A 402 without pay-per-crawl fields is a response as any other.
func TestPayment402WithoutPriceIsAResponse(t *testing.T) {
	h := newPayHarness(t, nil)
	o := newOrigin(t, h.clock, "", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusPaymentRequired)
		io.WriteString(w, "subscribe")
	})
	resp, err := h.client.Get(o.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPaymentRequired || string(b) != "subscribe" {
		t.Errorf("got %d %q", resp.StatusCode, b)
	}
}

func TestPaymentPaysWithinMaxPrice(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "1"))
	s := &ppcSite{price: "USD 0.01"}
	o := h.site(s)
	if body, err := h.get(o.URL + "/a"); err != nil || body != "page /a" {
		t.Fatalf("GET: %q, %v", body, err)
	}
	offers, charged := s.seen()
	if fmt.Sprint(offers, charged) != "[USD 0.05] [USD 0.01]" {
		t.Errorf("site saw offers %q, charged %q", offers, charged)
	}
	if signed := h.tr.Base.(*signer).signed; signed[len(signed)-1] != "USD 0.05" {
		t.Errorf("the signer signed %q, want the offer", signed)
	}
	st := h.tr.Stats()
	if st.Charges != 1 || st.Overcharges != 0 || st.Spent != usd("0.01") {
		t.Errorf("Stats: %d charges, %d overcharges, spent %v", st.Charges, st.Overcharges, st.Spent)
	}
	want := pay.Charge{URL: o.URL + "/a", Origin: o.URL, Price: usd("0.01"), Offered: usd("0.05"), Raw: "USD 0.01"}
	if len(h.charges) != 1 || h.charges[0] != want {
		t.Errorf("Observer saw %+v, want %+v", h.charges, want)
	}
}

func TestPaymentAboveMaxPriceNotPaid(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "1"))
	s := &ppcSite{price: "USD 0.10"}
	o := h.site(s)
	e := h.required(o.URL+"/a", pay.ReasonAboveMax)
	if e.Price != usd("0.10") || e.Offered != usd("0.05") || e.CrawlerError != "InvalidCrawlerMaxPrice" {
		t.Errorf("error %#v", e)
	}
	if offers, charged := s.seen(); len(offers) != 1 || len(charged) != 0 {
		t.Errorf("site saw offers %q, charged %q: want one request, not charged", offers, charged)
	}
}

func TestPaymentOtherCurrencyNotPaid(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "1"))
	o := h.site(&ppcSite{price: "EUR 0.01"})
	h.required(o.URL+"/a", pay.ReasonCurrency)
}

// The budget is spent offer by offer: what is left is offered, and once
// nothing is, nothing is paid.
func TestPaymentBudget(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "0.03"))
	s := &ppcSite{price: "USD 0.01"}
	o := h.site(s)
	for _, p := range []string{"/a", "/b", "/c"} {
		if _, err := h.get(o.URL + p); err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
	}
	e := h.required(o.URL+"/d", pay.ReasonBudget)
	if !e.Offered.IsZero() {
		t.Errorf("offered %v with the budget spent", e.Offered)
	}
	offers, charged := s.seen()
	if fmt.Sprint(offers) != "[USD 0.03 USD 0.02 USD 0.01 ]" || len(charged) != 3 {
		t.Errorf("site saw offers %q, charged %q", offers, charged)
	}
	if st := h.tr.Stats(); st.Spent != usd("0.03") || st.Charges != 3 {
		t.Errorf("Stats: spent %v in %d charges", st.Spent, st.Charges)
	}
}

func TestPaymentOriginBudget(t *testing.T) {
	p := payPolicy("0.05", "1")
	p.OriginBudget = func(string) pay.Price { return usd("0.01") }
	h := newPayHarness(t, p)
	a, b := h.site(&ppcSite{price: "USD 0.01"}), h.site(&ppcSite{price: "USD 0.01"})
	h.allowed(a.URL + "/1")
	h.required(a.URL+"/2", pay.ReasonBudget)
	h.allowed(b.URL + "/1")
	if st := h.tr.Stats(); st.Spent != usd("0.02") {
		t.Errorf("spent %v, want USD 0.02", st.Spent)
	}
}

// Concurrent requests cannot spend more than the budget: each offer is
// taken out of it before the request is sent.
func TestPaymentBudgetConcurrent(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.01", "0.10"), func(tr *robotsguard.Transport) { tr.NoPacing = true })
	s := &ppcSite{price: "USD 0.01"}
	o := h.site(s)
	const n = 40
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := h.get(fmt.Sprintf("%s/%d", o.URL, i))
			errs <- err
		}()
	}
	paid := 0
	for range n {
		err := <-errs
		var e *pay.PaymentRequiredError
		switch {
		case err == nil:
			paid++
		case errors.As(err, &e) && e.Reason == pay.ReasonBudget:
		default:
			t.Errorf("GET: %v", err)
		}
	}
	_, charged := s.seen()
	if paid != 10 || len(charged) != 10 {
		t.Errorf("%d pages paid, %d charged; want 10 of each", paid, len(charged))
	}
	if st := h.tr.Stats(); st.Spent != usd("0.10") || st.Charges != 10 {
		t.Errorf("Stats: spent %v in %d charges", st.Spent, st.Charges)
	}
}

// A site that charges more than it was offered: the request fails, and the
// charge counts all the same.
func TestPaymentOvercharged(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "0.20"))
	s := &ppcSite{price: "USD 0.01", charge: "USD 0.15"}
	o := h.site(s)
	_, err := h.get(o.URL + "/a")
	var e *pay.OverchargeError
	if !errors.Is(err, pay.ErrOvercharged) || !errors.As(err, &e) {
		t.Fatalf("GET: %v, want an OverchargeError", err)
	}
	if e.Charged != usd("0.15") || e.Offered != usd("0.05") || e.Origin != o.URL {
		t.Errorf("error %#v", e)
	}
	st := h.tr.Stats()
	if st.Charges != 1 || st.Overcharges != 1 || st.Spent != usd("0.15") {
		t.Errorf("Stats: %d charges, %d overcharges, spent %v", st.Charges, st.Overcharges, st.Spent)
	}
	if len(h.charges) != 1 || !h.charges[0].Over {
		t.Errorf("Observer saw %+v", h.charges)
	}
	// 0.05 is left: it is what the next request is offered.
	s.mu.Lock()
	s.charge = ""
	s.mu.Unlock()
	h.allowed(o.URL + "/b")
	if offers, _ := s.seen(); offers[1] != "USD 0.05" {
		t.Errorf("second offer %q, want USD 0.05", offers[1])
	}
}

// A charge in another currency than offered, or one that cannot be read,
// costs the budget the whole offer.
func TestPaymentOverchargedUnreadable(t *testing.T) {
	for _, charge := range []string{"EUR 0.01", "free!"} {
		h := newPayHarness(t, payPolicy("0.05", "0.05"))
		o := h.site(&ppcSite{price: "USD 0.01", charge: charge})
		if _, err := h.get(o.URL + "/a"); !errors.Is(err, pay.ErrOvercharged) {
			t.Errorf("charged %q: %v, want ErrOvercharged", charge, err)
		}
		h.required(o.URL+"/b", pay.ReasonBudget)
	}
}

// A site that charges without an offer is reported, and fails the request.
func TestPaymentChargedUnasked(t *testing.T) {
	h := newPayHarness(t, nil)
	o := h.site(&ppcSite{price: "USD 0.01", unasked: true})
	_, err := h.get(o.URL + "/a")
	var e *pay.OverchargeError
	if !errors.As(err, &e) || !e.Offered.IsZero() || e.Charged != usd("0.01") {
		t.Fatalf("GET: %v, want an OverchargeError of nothing offered", err)
	}
	if want := "robotsguard: " + o.URL + " charged USD 0.01 where nothing was offered"; err.Error() != "Get \""+o.URL+"/a\": "+want {
		t.Errorf("message %q", err)
	}
	if st := h.tr.Stats(); st.Charges != 1 || st.Overcharges != 1 {
		t.Errorf("Stats %+v", st)
	}
}

// A site that answers 402 to every offer: the request fails once, is not
// sent again, and the offer returns to the budget.
func TestPayment402Forever(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "0.05"))
	s := &ppcSite{price: "USD 0.01", forever: true}
	o := h.site(s)
	for _, p := range []string{"/a", "/b"} {
		e := h.required(o.URL+p, pay.ReasonRefused)
		if e.Offered != usd("0.05") || e.CrawlerError != "InvalidCrawlerMaxPrice" {
			t.Errorf("error %#v", e)
		}
	}
	if offers, charged := s.seen(); fmt.Sprint(offers) != "[USD 0.05 USD 0.05]" || len(charged) != 0 {
		t.Errorf("site saw offers %q, charged %q", offers, charged)
	}
}

// A retry of a charged request is not paid twice: the body of a charged
// page breaks, the caller asks again, and the retry goes without an offer
// until RepayAfter has passed.
func TestPaymentRetryNotPaidTwice(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "1"))
	s := &ppcSite{price: "USD 0.01", cut: true}
	o := h.site(s)
	if _, err := h.get(o.URL + "/a"); err == nil {
		t.Fatal("the cut body read whole")
	}
	h.required(o.URL+"/a", pay.ReasonPaid)
	h.clock.Advance(pay.DefaultRepayAfter)
	s.mu.Lock()
	s.cut = false
	s.mu.Unlock()
	h.allowed(o.URL + "/a")
	offers, charged := s.seen()
	if fmt.Sprint(offers) != "[USD 0.05  USD 0.05]" || len(charged) != 2 {
		t.Errorf("site saw offers %q, charged %q", offers, charged)
	}
	if st := h.tr.Stats(); st.Spent != usd("0.02") {
		t.Errorf("spent %v", st.Spent)
	}
}

// Two requests for one URL at once: only one is offered payment.
func TestPaymentConcurrentDuplicateNotPaidTwice(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "1"), func(tr *robotsguard.Transport) { tr.NoPacing = true })
	s := &ppcSite{price: "USD 0.01", hold: make(chan string), arrived: make(chan string)}
	o := h.site(s)
	first := make(chan error)
	go func() {
		_, err := h.get(o.URL + "/a")
		first <- err
	}()
	<-s.arrived
	h.required(o.URL+"/a", pay.ReasonPaid)
	close(s.hold)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if _, charged := s.seen(); len(charged) != 1 {
		t.Errorf("charged %q, want once", charged)
	}
}

// With RepayAfter negative, every request is offered payment.
func TestPaymentRepayAfterNegative(t *testing.T) {
	p := payPolicy("0.05", "1")
	p.RepayAfter = -1
	h := newPayHarness(t, p)
	s := &ppcSite{price: "USD 0.01"}
	o := h.site(s)
	h.allowed(o.URL + "/a")
	h.allowed(o.URL + "/a")
	if _, charged := s.seen(); len(charged) != 2 {
		t.Errorf("charged %q, want twice", charged)
	}
}

// Without a signer, the site refuses the offer; the answer is a response.
func TestPaymentUnsigned(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "1"), func(tr *robotsguard.Transport) { tr.Base = tr.Base.(*signer).base })
	o := h.site(&ppcSite{price: "USD 0.01"})
	resp, err := h.client.Get(o.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Crawler-Error") != "StrongAuthRequired" {
		t.Errorf("got %d %q", resp.StatusCode, resp.Header.Get("Crawler-Error"))
	}
	if st := h.tr.Stats(); st.Charges != 0 || !st.Spent.IsZero() && st.Spent.Micros != 0 {
		t.Errorf("Stats %+v", st)
	}
}

func TestPaymentInvalidPolicy(t *testing.T) {
	for _, p := range []*pay.Policy{
		{Budget: usd("1")},
		{MaxPrice: pay.Price{Currency: "usd", Micros: 1}, Budget: usd("1")},
		{MaxPrice: usd("0.01"), Budget: pay.MustParsePrice("EUR 1")},
		{MaxPrice: usd("0.01")},
		{MaxPrice: usd("0.01"), Budget: usd("0")},
	} {
		h := newPayHarness(t, p)
		s := &ppcSite{price: "USD 0.01"}
		o := h.site(s)
		if _, err := h.get(o.URL + "/a"); !errors.Is(err, pay.ErrPolicy) {
			t.Errorf("%+v: %v, want ErrPolicy", p, err)
		}
		if offers, _ := s.seen(); len(offers) != 0 {
			t.Errorf("%+v: sent %q", p, offers)
		}
	}
}

// A site that charges the largest amount it can write, again and again,
// does not wrap the accounts around: the budget stays spent.
func TestPaymentOverchargedWithoutBound(t *testing.T) {
	h := newPayHarness(t, payPolicy("0.05", "1"), func(tr *robotsguard.Transport) { tr.NoPacing = true })
	s := &ppcSite{price: "USD 0.01", charge: "USD 999999999999.999999", unasked: true}
	o := h.site(s)
	for i := range 12 {
		if _, err := h.get(fmt.Sprintf("%s/%d", o.URL, i)); !errors.Is(err, pay.ErrOvercharged) {
			t.Fatalf("GET %d: %v", i, err)
		}
	}
	if offers, _ := s.seen(); offers[0] != "USD 0.05" || offers[len(offers)-1] != "" {
		t.Errorf("offers %q: want the first only", offers)
	}
	if st := h.tr.Stats(); st.Spent.Micros != math.MaxInt64 || st.Overcharges != 12 {
		t.Errorf("Stats: spent %v, %d overcharges", st.Spent, st.Overcharges)
	}
	s.mu.Lock()
	s.unasked, s.charge = false, ""
	s.mu.Unlock()
	h.required(o.URL+"/last", pay.ReasonBudget)
}

// With botauth's Signer as Base, the offer reaches the site signed: a site
// that verifies the signature, and that it covers crawler-max-price,
// charges; a relay that raises the offer breaks the signature.
func TestPaymentSignedByBotauth(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	s := &ppcSite{price: "USD 0.01"}
	var raised atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			return
		}
		if r.Header.Get("Crawler-Max-Price") != "" {
			if raised.Load() {
				r.Header.Set("Crawler-Max-Price", "USD 9.00") // as a relay would
			}
			_, err := robotstest.VerifySignature(r, time.Now(), key.Public().(ed25519.PublicKey))
			if err != nil || !strings.Contains(r.Header.Get("Signature-Input"), `"crawler-max-price"`) {
				w.Header().Set("Crawler-Error", "InvalidSignature")
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			r.Header.Set("Signature", "verified") // for ppcSite
		}
		s.ServeHTTP(w, r)
	}))
	defer site.Close()
	signer := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example"}
	tr := &robotsguard.Transport{
		UserAgent: "TestBot/1.0", NoPacing: true, Base: signer.RoundTripper(nil),
		Payment: payPolicy("0.05", "1"),
	}
	client := &http.Client{Transport: tr}
	resp, err := client.Get(site.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Crawler-Charged") != "USD 0.01" {
		t.Fatalf("got %d, crawler-error %q", resp.StatusCode, resp.Header.Get("Crawler-Error"))
	}
	raised.Store(true)
	resp, err = client.Get(site.URL + "/b")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a raised offer: %d, want the signature refused", resp.StatusCode)
	}
	if st := tr.Stats(); st.Charges != 1 || st.Spent != usd("0.01") {
		t.Errorf("Stats: %d charges, spent %v", st.Charges, st.Spent)
	}
}
