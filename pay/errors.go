package pay

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrPaymentRequired is the error of every request answered 402 Payment
// Required with a crawler-price that the Transport did not pay:
// errors.Is(err, ErrPaymentRequired) holds, and errors.As finds a
// *PaymentRequiredError with the price and why it was not paid.
var ErrPaymentRequired = errors.New("robotsguard: payment required")

// ErrOvercharged is the error of a response charged more than the
// Transport offered (its crawler-charged above the crawler-max-price sent,
// in another currency, or unreadable), or charged when nothing was
// offered: errors.As finds an *OverchargeError.
var ErrOvercharged = errors.New("robotsguard: charged more than offered")

// Reason tells why a price was not paid.
type Reason uint8

const (
	// ReasonNoPolicy: the Transport has no Payment policy, and pays
	// nothing.
	ReasonNoPolicy Reason = iota + 1
	// ReasonBadPrice: the crawler-price cannot be read (see ParsePrice);
	// PaymentRequiredError.Raw holds it.
	ReasonBadPrice
	// ReasonCurrency: the price is in another currency than the
	// Policy's.
	ReasonCurrency
	// ReasonAboveMax: the price is above the Policy's MaxPrice.
	ReasonAboveMax
	// ReasonBudget: the price is above what is left of the Budget, or of
	// the origin's budget.
	ReasonBudget
	// ReasonPaid: the URL was charged within the Policy's RepayAfter, or
	// another request for it was being offered payment: it is not paid
	// twice.
	ReasonPaid
	// ReasonRefused: the Transport offered at least the price, and the
	// site answered 402 all the same (CrawlerError may say why: a
	// request that is not signed, for one).
	ReasonRefused
)

var reasonNames = [...]string{
	ReasonNoPolicy: "no payment policy",
	ReasonBadPrice: "price unreadable",
	ReasonCurrency: "price in another currency",
	ReasonAboveMax: "price above MaxPrice",
	ReasonBudget:   "budget spent",
	ReasonPaid:     "paid already",
	ReasonRefused:  "offer refused",
}

// String describes the reason in a few words.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// A PaymentRequiredError is a request answered 402 Payment Required with a
// crawler-price that was not paid. Nothing was charged; the response was
// closed, and the request is not sent again.
type PaymentRequiredError struct {
	URL    string // the request's URL, its password redacted
	Origin string // "https://example.com"
	// Price is the crawler-price asked (zero when Reason is
	// ReasonBadPrice), and Raw the field as received.
	Price Price
	Raw   string
	// Offered is the crawler-max-price sent, or the zero Price when
	// nothing was offered.
	Offered Price
	Reason  Reason
	// CrawlerError is the response's crawler-error field, the site's
	// code for what went wrong ("InvalidCrawlerMaxPrice"), or "".
	CrawlerError string
}

// Error says what the page costs, and why it was not paid.
func (e *PaymentRequiredError) Error() string {
	var asked string
	if e.Reason == ReasonBadPrice {
		asked = fmt.Sprintf("payment required at an unreadable price %q", clip(e.Raw))
	} else {
		asked = "payment required: " + e.Price.String()
	}
	msg := "robotsguard: " + asked + ", not paid: " + e.Reason.String()
	switch e.Reason {
	case ReasonBudget, ReasonRefused:
		if !e.Offered.IsZero() {
			msg += " (offered " + e.Offered.String() + ")"
		}
	}
	if e.CrawlerError != "" {
		msg += "; crawler-error " + strconv.Quote(clip(e.CrawlerError))
	}
	return msg
}

// Is reports whether target is ErrPaymentRequired.
func (e *PaymentRequiredError) Is(target error) bool { return target == ErrPaymentRequired }

// An OverchargeError is a response charged more than the Transport offered.
// The charge counts against the budgets, and is reported (Stats, the
// Observer) as any other; the response was closed.
type OverchargeError struct {
	URL    string
	Origin string
	// Offered is the crawler-max-price sent (the zero Price for none),
	// Charged the crawler-charged received (zero when unreadable), and Raw
	// the field as received.
	Offered, Charged Price
	Raw              string
}

// Error says what was offered and what was charged.
func (e *OverchargeError) Error() string {
	offered := "nothing"
	if !e.Offered.IsZero() {
		offered = e.Offered.String()
	}
	charged := e.Charged.String()
	if e.Charged.IsZero() {
		charged = strconv.Quote(clip(e.Raw))
	}
	return "robotsguard: " + e.Origin + " charged " + charged + " where " + offered + " was offered"
}

// Is reports whether target is ErrOvercharged.
func (e *OverchargeError) Is(target error) bool { return target == ErrOvercharged }

// A Charge is one response that carried crawler-charged: what the site
// says it bills for it.
type Charge struct {
	URL    string
	Origin string
	// Price is the amount charged (the zero Price when unreadable: Raw
	// holds it), and Offered the crawler-max-price sent.
	Price, Offered Price
	Raw            string
	// Over is true when Price is above Offered, in another currency, or
	// unreadable: the request also failed with an *OverchargeError.
	Over bool
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
