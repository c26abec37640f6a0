// Package usage answers the question robots.txt was never enough for: may
// this agent use this page for this purpose? It reads every signal sites
// use to say so, the site-wide ones (robots.txt rules, ACAP records,
// Content-Usage and Content-Signal lines, tdmrep.json) and those of the page
// (X-Robots-Tag and Content-Usage headers, robots meta tags, TDMRep headers
// and meta tags), and weighs them into one Decision with every signal that
// spoke, its source and the conditions attached:
//
//	site := &usage.Site{RobotsURL: "https://example.com/robots.txt", Robots: usage.ParseRobots(body, "https://example.com/robots.txt")}
//	page, _ := usage.ReadResponse(resp, true) // headers, and the HTML head
//	d := usage.Decide(usage.Query{Agent: "FooBot/1.0", URL: resp.Request.URL.String(), Category: usage.TrainAI}, site, page)
//	if d.Verdict == usage.Disallowed {
//		log.Print(d) // train-ai disallowed by https://example.com/robots.txt line 4 "Content-Signal: search=yes, ai-train=no"
//	}
//
// A robotsguard.Transport gives the site's part from the robots.txt it
// already holds (Transport.Usage), and the command line's check -usage
// CATEGORY asks the same question of a list of URLs.
//
// # Categories
//
// A Category is one use of a page: crawl (fetch it), search (index it and
// show it in results), snippet (show a text snippet or preview), archive
// (keep a copy and show it), train-ai (train AI models), ai-input (give it
// to an AI model as input: retrieval, grounding, answers) and tdm (text and
// data mining). Each signal speaks of some of them:
//
//	signal                        crawl  search  snippet  archive  train-ai  ai-input  tdm
//	robots.txt Allow/Disallow     yes
//	ACAP 1.1 records              crawl  index   present- preserve, other    other     other
//	                                             snippet  present-
//	                                                      currentcopy
//	Content-Usage (aipref)               search                    train-ai
//	Content-Signal                       search                    ai-train  ai-input
//	X-Robots-Tag, robots meta            yes     yes      yes
//	TDMRep                                                         yes                 yes
//
// # Combining
//
// Decide gathers the evidence of every signal for the category asked, each
// Evidence saying Allowed, Disallowed, or only attaching conditions, and:
//
//   - the most restrictive verdict wins: any Disallowed disallows, else any
//     Allowed allows, else the verdict is Unknown. Unknown is not Allowed:
//     what to do when no signal speaks is the crawler's call;
//   - except where a signal defines its own precedence, which is applied
//     within the signal before the verdicts meet: TDMRep reads its file,
//     else the page's header, else its meta tags; ACAP's records override
//     one another as ACAP 1.1 says, giving one verdict per ACAP usage;
//   - the conditions of every evidence that does not disallow are merged,
//     the most restrictive of each kind kept (the shortest max-snippet, the
//     smallest preview, the earliest end);
//   - Decision.Decisive is the evidence the verdict rests on: the first
//     that disallowed or, failing that, the first that allowed, in the
//     order robots.txt rules, ACAP, robots.txt usage lines, page headers
//     and meta tags, TDMRep.
//
// The categories are independent: a robots.txt that disallows crawling a
// URL says nothing of training on a copy obtained elsewhere, and a page's
// noindex says nothing of crawling it. A crawler asks each question it
// acts on.
//
// The robots.txt's own status counts for crawl as RFC 9309 says (Site.Unread):
// an unavailable file (4xx) allows crawling, an unreachable one (5xx,
// network errors) disallows it.
package usage
