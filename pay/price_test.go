package pay_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/pay"
)

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want pay.Price
	}{
		{"USD 0.01", pay.Price{Currency: "USD", Micros: 10_000}}, // Cloudflare's example
		{"USD 1", pay.Price{Currency: "USD", Micros: 1_000_000}},
		{"usd 1.5", pay.Price{Currency: "USD", Micros: 1_500_000}},
		{"  EUR\t 0.000001 ", pay.Price{Currency: "EUR", Micros: 1}},
		{"USD 0.00", pay.Price{Currency: "USD"}},
		{"USD 0.0100000000", pay.Price{Currency: "USD", Micros: 10_000}},
		{"JPY 999999999999.999999", pay.Price{Currency: "JPY", Micros: 999_999_999_999_999_999}},
	} {
		got, err := pay.ParsePrice(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParsePrice(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParsePriceRejects(t *testing.T) {
	for _, in := range []string{
		"", "USD", "0.01", "USD0.01", "US 0.01", "USDX 0.01", "U$D 0.01", "USD -0.01", "USD +0.01",
		"USD .5", "USD 1.", "USD 1e3", "USD 1,000", "USD 0.0000001", "USD 1000000000000",
		"USD 0.01 extra", "USD 0x10", "USD ０.01", "USD 1..2", "1 USD",
	} {
		p, err := pay.ParsePrice(in)
		if !errors.Is(err, pay.ErrBadPrice) {
			t.Errorf("ParsePrice(%q) = %+v, %v; want ErrBadPrice", in, p, err)
		} else if !strings.HasPrefix(err.Error(), "robotsguard: ") {
			t.Errorf("ParsePrice(%q): message %q", in, err)
		}
	}
}

func TestPriceString(t *testing.T) {
	for _, tc := range []struct {
		p    pay.Price
		want string
	}{
		{pay.Price{Currency: "USD", Micros: 10_000}, "USD 0.01"},
		{pay.Price{Currency: "USD", Micros: 1_000_000}, "USD 1.00"},
		{pay.Price{Currency: "EUR", Micros: 1_234_567}, "EUR 1.234567"},
		{pay.Price{Currency: "USD", Micros: -10_000}, "USD -0.01"},
		{pay.Price{}, "XXX 0.00"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// FuzzParsePrice: a header value never panics; a price read writes back
// to a value that reads as the same price.
func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"USD 0.01", "usd 1", "EUR\t0.000001", "USD 999999999999.999999", "USD 1.0000000", "USD .5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := pay.ParsePrice(s)
		if err != nil {
			if !errors.Is(err, pay.ErrBadPrice) {
				t.Fatalf("ParsePrice(%q): %v does not match ErrBadPrice", s, err)
			}
			return
		}
		if p.Micros < 0 || len(p.Currency) != 3 {
			t.Fatalf("ParsePrice(%q) = %+v", s, p)
		}
		q, err := pay.ParsePrice(p.String())
		if err != nil || q != p {
			t.Fatalf("ParsePrice(%q) = %+v, written %q, read back %+v, %v", s, p, p.String(), q, err)
		}
	})
}
