// Package pay holds the types of pay-per-crawl for a robotsguard.Transport:
// the Policy that lets it pay for pages, the Price it pays in, and the
// errors and reports of what it was asked and charged.
//
// Some sites charge crawlers per page (Cloudflare's pay per crawl,
// developers.cloudflare.com/ai-crawl-control, "Crawl pages"): a page
// answers 402 Payment Required with the field crawler-price ("USD 0.01");
// a crawler that will pay sends crawler-max-price (or crawler-exact-price)
// with its request, signed (Web Bot Auth), and the page comes with
// crawler-charged, the amount billed. Errors carry a crawler-error code
// ("Error codes"). A page is billed each time it is fetched ("FAQ").
//
// A Transport pays nothing unless its Payment field holds a Policy: a 402
// with a crawler-price fails with a *PaymentRequiredError, which holds the
// price, and the request is not sent again:
//
//	resp, err := client.Get("https://example.com/article")
//	var pr *pay.PaymentRequiredError
//	if errors.As(err, &pr) {
//		log.Printf("%s costs %v (%v)", pr.URL, pr.Price, pr.Reason)
//	}
//
// With a Policy, it offers a price up to MaxPrice, within a Budget (and a
// budget per origin), and reports each charge (robotsguard.Observer's
// Charged, Stats.Spent):
//
//	t := &robotsguard.Transport{
//		UserAgent: "FooBot/1.0 (+https://example.com/bot)",
//		Base:      signer.RoundTripper(nil), // a botauth.Signer: it covers crawler-max-price
//		Payment: &pay.Policy{
//			MaxPrice: pay.MustParsePrice("USD 0.02"),
//			Budget:   pay.MustParsePrice("USD 50"),
//		},
//	}
//
// # Guarantees
//
//   - Nothing is paid unasked: only the Policy offers, and a request's own
//     crawler-max-price and crawler-exact-price are dropped. A price in
//     another currency than MaxPrice's is never offered.
//   - Never above MaxPrice, never beyond the budgets: each offer is taken out
//     of them before the request is sent, so concurrent requests cannot
//     overspend, and what was not charged returns to them on the answer.
//   - A site that charges more than it was offered (or charges unasked, or
//     in another currency) fails the request with an *OverchargeError; the
//     charge still counts against the budgets and in Stats.
//   - Not paid twice: a URL charged once is not offered payment again for
//     RepayAfter (ten minutes by default), whoever retries it, nor while
//     another request for it is being offered. Its retry fails with
//     ReasonPaid instead. A response lost before its header arrived (the
//     connection broke) is not known to be charged: its retry is offered
//     payment.
//
// Money is exact: a Price is an integer of micro-units (millionths) of its
// currency, never a float.
package pay
