package pay_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/pay"
)

func ExampleParsePrice() {
	p, err := pay.ParsePrice("USD 0.01") // a crawler-price field
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Currency, p.Micros, p)
	_, err = pay.ParsePrice("USD 1e-2")
	fmt.Println(err)
	// Output:
	// USD 10000 USD 0.01
	// robotsguard: malformed price "USD 1e-2": the amount is not a decimal number
}

// A Transport with a Policy pays a page that charges crawlers, and counts
// what it spent; one without pays nothing.
func Example_policy() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
		case r.Header.Get("Crawler-Max-Price") == "": // a price is asked
			w.Header().Set("Crawler-Price", "USD 0.01")
			w.WriteHeader(http.StatusPaymentRequired)
		default: // signed, and offered enough
			w.Header().Set("Crawler-Charged", "USD 0.01")
			io.WriteString(w, "the article")
		}
	}))
	defer site.Close()

	free := &robotsguard.Transport{UserAgent: "FooBot/1.0", NoPacing: true}
	_, err := (&http.Client{Transport: free}).Get(site.URL + "/article")
	var pr *pay.PaymentRequiredError
	if errors.As(err, &pr) {
		fmt.Println("not paid:", pr.Price, pr.Reason)
	}

	paying := &robotsguard.Transport{
		UserAgent: "FooBot/1.0", NoPacing: true,
		Base: signer{}, // a Web Bot Auth signer, in a real crawler
		Payment: &pay.Policy{
			MaxPrice: pay.MustParsePrice("USD 0.02"),
			Budget:   pay.MustParsePrice("USD 5"),
		},
		Observer: &robotsguard.Observer{Charged: func(c pay.Charge) {
			fmt.Println("charged", c.Price, "offered", c.Offered)
		}},
	}
	resp, err := (&http.Client{Transport: paying}).Get(site.URL + "/article")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Printf("%s; spent %v\n", body, paying.Stats().Spent)
	// Output:
	// not paid: USD 0.01 no payment policy
	// charged USD 0.01 offered USD 0.02
	// the article; spent USD 0.01
}

// signer stands in for a Web Bot Auth signer.
type signer struct{}

func (signer) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Signature", "sig1=:…:")
	return http.DefaultTransport.RoundTrip(r)
}
