package pay_test

import (
	"fmt"

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
