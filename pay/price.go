package pay

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Micro is the number of micro-units in one unit of a currency: a Price of
// 0.01 USD has Micros 10_000.
const Micro = 1_000_000

// maxUnits bounds the whole units of a price read from a header (twelve
// digits): their micro-units fit an int64 with room for sums.
const maxUnits = 999_999_999_999

// A Price is an amount of money in one currency, exactly: Micros millionths
// of a unit of Currency. Money is never a float here: "USD 0.01" is
// Price{Currency: "USD", Micros: 10_000}.
type Price struct {
	Currency string // an ISO 4217 code: three capital letters, "USD"
	Micros   int64
}

// ErrBadPrice is the error of a price that cannot be read: a header value
// that is not a currency code and a decimal amount (see ParsePrice).
var ErrBadPrice = errors.New("robotsguard: malformed price")

// ParsePrice reads a price as pay-per-crawl writes it in its header fields
// (crawler-price, crawler-max-price, crawler-exact-price, crawler-charged:
// "USD 0.01", Cloudflare, "Crawl pages"; "InvalidCrawlerPriceValue" in
// "Error codes"): a currency code of three letters, spaces, and a
// non-negative decimal amount with at most six significant fractional
// digits and twelve whole ones. Space around the value is ignored, and the
// code is read case-insensitively (it is returned in capitals); nothing
// else is accepted: no sign, exponent, grouping or missing digits. The error
// matches ErrBadPrice and quotes the start of s.
func ParsePrice(s string) (Price, error) {
	v := strings.Trim(s, " \t")
	i := strings.IndexAny(v, " \t")
	if i != 3 {
		return Price{}, badPrice(s, "want a currency code of three letters, a space and an amount")
	}
	var c [3]byte
	for i := range c {
		b := v[i] &^ 0x20 // upper case, for letters
		if b < 'A' || b > 'Z' {
			return Price{}, badPrice(s, "the currency code is not three letters")
		}
		c[i] = b
	}
	amount := strings.TrimLeft(v[3:], " \t")
	whole, frac, dot := strings.Cut(amount, ".")
	if whole == "" || dot && frac == "" {
		return Price{}, badPrice(s, "the amount is not a decimal number")
	}
	var units, micros int64
	for i := 0; i < len(whole); i++ {
		d := whole[i]
		if d < '0' || d > '9' {
			return Price{}, badPrice(s, "the amount is not a decimal number")
		}
		if units = units*10 + int64(d-'0'); units > maxUnits {
			return Price{}, badPrice(s, "the amount is too large")
		}
	}
	for i := 0; i < len(frac); i++ {
		d := frac[i]
		if d < '0' || d > '9' {
			return Price{}, badPrice(s, "the amount is not a decimal number")
		}
		if i >= 6 {
			if d != '0' {
				return Price{}, badPrice(s, "the amount has more than six fractional digits")
			}
			continue
		}
		micros = micros*10 + int64(d-'0')
	}
	for i := min(len(frac), 6); i < 6; i++ {
		micros *= 10
	}
	return Price{Currency: currency(c), Micros: units*Micro + micros}, nil
}

// currency returns the code c as a string, without allocating for the
// common ones.
func currency(c [3]byte) string {
	switch string(c[:]) {
	case "USD":
		return "USD"
	case "EUR":
		return "EUR"
	case "GBP":
		return "GBP"
	}
	return string(c[:])
}

func badPrice(s, why string) error {
	return fmt.Errorf("%w %q: %s", ErrBadPrice, clip(s), why)
}

// MustParsePrice is ParsePrice for prices written in a program: it panics
// when s cannot be read.
func MustParsePrice(s string) Price {
	p, err := ParsePrice(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String writes p as the header fields do: "USD 0.01", with at least two
// fractional digits and no trailing zeros beyond them.
func (p Price) String() string {
	m := p.Micros
	sign := ""
	if m < 0 {
		sign, m = "-", -m // only sums and differences go below zero
	}
	frac := strconv.FormatInt(Micro+m%Micro, 10)[1:] // six digits
	frac = strings.TrimRight(frac, "0")
	for len(frac) < 2 {
		frac += "0"
	}
	cur := p.Currency
	if cur == "" {
		cur = "XXX" // ISO 4217: no currency
	}
	return cur + " " + sign + strconv.FormatInt(m/Micro, 10) + "." + frac
}

// IsZero reports whether p is the zero Price: no currency and no amount.
func (p Price) IsZero() bool { return p == Price{} }
