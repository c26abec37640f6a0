package pay

import (
	"errors"
	"fmt"
	"time"
)

// DefaultRepayAfter is the time for which a URL charged once is not offered
// payment again (see Policy.RepayAfter).
const DefaultRepayAfter = 10 * time.Minute

// A Policy says what a robotsguard.Transport may pay for pages (its Payment
// field). A Transport without one pays nothing. A Policy is a value: the
// Transport keeps the accounts of what it spent, and the Policy can be
// shared by several Transports, each with budgets of its own.
type Policy struct {
	// MaxPrice is the most paid for one request: the Transport sends
	// it as crawler-max-price, less when a budget has less left. A page
	// priced in another currency is never paid. Required.
	MaxPrice Price

	// Budget is the most the Transport pays in all, in MaxPrice's
	// currency; when what is left is less than a page's price, that
	// page is not paid. Required (Validate): a crawl never spends
	// without bound.
	Budget Price

	// OriginBudget, if not nil, returns the most the Transport pays to
	// one origin ("https://example.com") in all, in MaxPrice's currency;
	// the zero Price pays it nothing. It is called before each offer, so
	// it must be quick and safe for concurrent use. Nil means no budget
	// per origin, only Budget.
	OriginBudget func(origin string) Price

	// RepayAfter is how long a URL (and method) charged once is not
	// offered payment again, so that a retry of a charged request (by
	// an http.Client wrapper, a crawler's queue, or a concurrent
	// duplicate) is not paid twice: it is sent without an offer, and a
	// 402 answer fails with ReasonPaid. Zero means DefaultRepayAfter;
	// negative means the Transport remembers no charge: every request
	// is offered payment, but for one whose URL another request is
	// being offered at the same time.
	RepayAfter time.Duration
}

// Validate returns an error when p cannot pay anything as written: no
// MaxPrice or no Budget, or a Budget in another currency. A Transport whose Policy
// fails it sends nothing and fails each request with that error.
func (p *Policy) Validate() error {
	switch {
	case !validCurrency(p.MaxPrice.Currency):
		return fmt.Errorf("%w: MaxPrice has no currency code of three capital letters (%q)", ErrPolicy, p.MaxPrice.Currency)
	case p.MaxPrice.Micros <= 0:
		return fmt.Errorf("%w: MaxPrice is %v: set a price above zero", ErrPolicy, p.MaxPrice)
	case p.Budget.Currency != p.MaxPrice.Currency:
		return fmt.Errorf("%w: Budget %v is not an amount of %s, MaxPrice's currency", ErrPolicy, p.Budget, p.MaxPrice.Currency)
	case p.Budget.Micros <= 0:
		return fmt.Errorf("%w: Budget is %v: set the most to spend in all", ErrPolicy, p.Budget)
	}
	return nil
}

// ErrPolicy is the error of a Policy that does not validate.
var ErrPolicy = errors.New("robotsguard: invalid payment policy")

func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := range len(c) {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}
