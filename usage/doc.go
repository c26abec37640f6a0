// Package usage answers the question robots.txt was never enough for: may
// this agent use this page for this purpose? It reads every signal sites
// use to say so, the site-wide ones (robots.txt rules, ACAP records,
// Content-Usage and Content-Signal lines, tdmrep.json) and those of the page
// (X-Robots-Tag and Content-Usage headers, robots meta tags, TDMRep headers
// and meta tags), and weighs them into one Decision with every signal that
// spoke, its source and the conditions attached:
//
//	site := &usage.Site{RobotsURL: "https://example.com/robots.txt", Robots: usage.ParseRobots(body, "https://example.com/robots.txt")}
//	page, _ := usage.ReadResponse(resp, true) // headers, and the HTML's meta tags
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
//	Content-Usage (aipref)               search                    train-ai  ai-use
//	Content-Signal                       search                    ai-train  ai-input
//	X-Robots-Tag, robots meta            yes     yes      yes      noai      nosnippet
//	TDMRep                                                         yes                 yes
//	RSL (all, ai-all, …)                 search  all      all      ai-train  ai-input  all
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
//     within the signal before the verdicts meet: in TDMRep, the page's
//     meta tags supersede its header fields, which supersede the site's
//     file, so TDMRep gives one evidence at most; ACAP's records override
//     one another as ACAP 1.1 says, giving one verdict per ACAP usage;
//   - the conditions of every evidence that does not disallow are merged,
//     the most restrictive of each kind kept (the shortest max-snippet, the
//     smallest preview, the earliest end); a disallowed use keeps only the
//     Policy (tdm-policy), which says how a licence can be had;
//   - Decision.Decisive is the evidence the verdict rests on: the first
//     that disallowed or, failing that, the first that allowed, in the
//     order robots.txt rules, ACAP, robots.txt usage lines, page headers
//     and meta tags, TDMRep, RSL.
//
// The categories are independent: a robots.txt that disallows crawling a
// URL says nothing of training on a copy obtained elsewhere, and a page's
// noindex says nothing of crawling it. A crawler asks each question it
// acts on.
//
// The robots.txt's own status counts for crawl as RFC 9309 says (Site.Unread):
// an unavailable file (4xx) allows crawling, an unreachable one (5xx,
// network errors) disallows it.
//
// # Robots.txt rules and ACAP
//
// Status: RFC 9309 (standard) for Allow and Disallow, which speak of crawl
// only, read by package policy; a robots.txt that is unavailable (4xx)
// allows crawling and one that is unreachable disallows it (Site.Unread).
// ACAP 1.1 (an industry specification of 2009, no longer maintained) is read
// by package acap; its usages map onto the categories as the table above
// shows: crawl is crawl, index is search, present-snippet is snippet,
// preserve and present-currentcopy are archive (both must be permitted),
// and ACAP's "other" usage, which stands for every usage ACAP does not name,
// is train-ai, ai-input and tdm (our reading: ACAP predates them). An ACAP
// usage no field speaks of gives no evidence, except crawl, which ACAP then
// permits. A permission's qualifiers are Conditions.ACAP. With ACAP records,
// the ACAP policy, which pools the conventional records, decides crawl in
// place of the Allow and Disallow lines, as the Transport does.
//
// # Content-Usage (IETF AI Preferences)
//
// Status: draft. The vocabulary read is draft-ietf-aipref-vocab-08 (14
// September 2026); the attachment is draft-ietf-aipref-attach-05 (19 August
// 2026). Both say their text does not yet have the working group's
// consensus, and may change.
//
// A statement of preference is an RFC 9651 Dictionary such as
// "train-ai=n, ai-use=n, search=y", read by ParsePreferences. The
// vocabulary has three labels (-08 §6.1): train-ai (AI Training, §4.1:
// modifying the learned parameters of a generative AI model) is train-ai,
// ai-use (AI Use, §4.2, new in -08: input to a generative AI model of an
// asset the user did not provide directly, training excluded) is ai-input,
// and search (§4.3) is search. No category nests in another (§5: a
// category without a preference is unknown, whatever the others say).
// Search overrides the other categories for a use that qualifies as Search
// (§4.3): processing internal to a search application, including training
// models used only for it, and no summaries. A crawler whose use is that
// asks search, which train-ai=n and ai-use=n do not disallow; search=y
// allows neither train-ai nor ai-input. The Token y allows, n disallows,
// and anything else says nothing (§6.5). When a key appears twice, the last
// one counts (§6.5.1). Unknown labels and all parameters are ignored (§6.4),
// among them the labels of earlier drafts that -08 does not define: tdm,
// ai, genai, inference, all, bots, train-genai and ai-output. A value that
// does not parse says nothing at all.
//
// The Content-Usage header field applies to the response's content
// (attach-05 §2); all its fields form one Dictionary. In robots.txt (§3), "Content-Usage: [path] prefs"
// is a rule of its group, and the agent's groups are chosen as for Allow and
// Disallow. The longest matching path decides, with its whole statement:
// categories it does not mention stay unknown. Rules of equal length each
// apply, and the most restrictive wins. Preferences cover only the paths
// the file's rules let the agent crawl. The drafts set no precedence
// between the header and the file: the most restrictive wins, as -08 §5.1
// combines statements.
//
// # Content-Signal
//
// Status: vendor convention (contentsignals.org, Cloudflare's Content
// Signals Policy, September 2025). "Content-Signal: search=yes,
// ai-input=no, ai-train=no" is a rule of its group, chosen and matched like
// Content-Usage (an optional leading path is read the same way). search is
// search, ai-input is ai-input, ai-train is train-ai. A missing key says
// nothing, and a key given twice disallows if either value is no.
// Cloudflare's managed robots.txt also writes use= (as in
// "search=yes,ai-train=no,use=reference"): "how AI systems may consume the
// content" (immediate, reference or full; the file's own comment), "the
// maximum level at which their content may be used", reference and full
// "from least to most permissive" (Cloudflare changelog, 31 August 2026,
// "Crawl endpoint now respects the Content Signals use directive"). It
// names no category, so it decides none: it is reported as a condition
// (Conditions.ContentUse, "use=reference") on the evidence of each
// category the line is asked of, one that decides nothing when the line
// names no key of that category. Our reading ranks immediate below
// reference; given twice, the least permissive counts. Unlike
// Content-Usage, a Content-Signal covers the paths the file disallows too:
// the policy makes its signals reservations of rights over the site's
// content (Article 4 of EU Directive 2019/790), which a copy obtained
// elsewhere is still subject to.
//
// # X-Robots-Tag and robots meta tags
//
// Status: vendor convention: Google Search Central, "Robots meta tag,
// data-nosnippet, and X-Robots-Tag specifications" (read 2025; its update
// of 2026-03-24, which says Google Search respects robots meta tags in the
// body section too, as the issue that asked for it quotes it: the stored
// copy of the page predates it), followed by Bing, which adds nocache; noai
// is a vendor convention (DeviantArt, 2022).
//
// X-Robots-Tag fields and <meta name="robots"> address every crawler;
// "AGENT: rules" in a field, and <meta name="AGENT">, address the crawler
// whose product token is AGENT (compared without regard to case). The part
// before a colon names an agent when it is not a directive. All fields, tags
// and comma-separated directives that address the agent combine; the most
// restrictive applies (Google: "the sum of the negative rules").
//
//   - noindex, none: search disallowed
//   - unavailable_after:DATE: search until DATE (Conditions.NotAfter), then
//     disallowed; RFC 822, RFC 850, asctime and ISO 8601 dates, UTC when no
//     zone is given; a date not read is ignored, as Google does
//   - nofollow, noimageindex, notranslate, indexifembedded: search conditions
//   - nosnippet, max-snippet:0: snippet and ai-input disallowed (Google applies
//     snippet controls to its AI features); max-snippet:N: Conditions.MaxSnippet
//   - max-image-preview, max-video-preview: search and snippet conditions
//   - noarchive, nocache: archive disallowed; noai: train-ai disallowed
//   - all, index, follow, unknown directives: no evidence
//
// The signal never allows outright. ReadHTML reads the robots meta tags of
// the head and of the body alike (Meta.InBody), as Google now does, up to
// DefaultMaxHTMLBytes of the document; <meta http-equiv="X-Robots-Tag"> is
// not read, as no engine documents it. ReadResponse reads a response's
// header fields and, when asked, its HTML, and puts the bytes it read back
// into the body. When the document runs past the bound
// (Page.HTMLTruncated), Decide adds an evidence that says so and decides
// nothing: the verdict stands on the signals seen.
//
// # TDMRep
//
// Status: community report: the TDM Reservation Protocol, a W3C Community
// Group final report (TDMRep CG, 2024), not a W3C standard. A site declares
// tdm-reservation (1: text and data mining rights are reserved, the opt-out
// of Article 4 of EU Directive 2019/790; 0: they are not) and optionally
// tdm-policy (the URL of the terms on which a licence can be had), in
// /.well-known/tdmrep.json (ParseTDMRep), in tdm-reservation and tdm-policy
// response header fields, and in HTML meta tags of the same names.
//
// A reservation of 1 disallows tdm, with Conditions.Policy set to the
// tdm-policy; 0 allows it. By our reading it also speaks of train-ai, with
// the same verdict: training is text and data mining in the sense of the
// Directive, to which the AI Act (Regulation 2024/1689) refers. It says
// nothing of the other categories.
//
// In the file, the first rule whose location matches the URL decides ("the
// most specific match is the first in sequence"); locations are matched as
// robots.txt patterns, as the report borrows them. Header fields supersede
// the file and meta tags supersede both, property by property. A value other
// than 0 or 1 is a protocol error: the reservation is unset there and
// supersedes nothing. A file that cannot be had (any failure, as the report
// says) means the site does not use the protocol. With no file, no matching
// rule and no valid field or tag, TDMRep says nothing (Unknown).
//
// # RSL
//
// Status: industry specification: Really Simple Licensing 1.0
// (RSL-SPEC-1.0, a Recommendation of the RSL Technical Steering Committee,
// published 2025-11-06; errata at rslstandard.org/rsl/errata). A site
// names its licence documents in robots.txt "License: URL" lines, which
// belong to no group and apply to every agent (RobotsLicenses), and a page
// may name its own in a Link header field with rel="license" and
// type="application/rsl+xml" (LicenseLinks, Page.Licenses). ParseRSL reads
// a document (a licence file, or a feed whose items hold rsl:content), with
// encoding/xml, bounded (MaxRSLSize, element counts and nesting).
//
// Each <content url> holds the licences its assets are offered under; the
// url is a path pattern matched as in robots.txt (RFC 9309, with * and $)
// or a full URL. Of the <content> elements that match a URL, the one with
// the longest path pattern decides (our reading: the specification asks
// each to name distinct assets, and a site that nests them means the more
// specific). For each of its <license> elements, a <prohibits
// type="usage"> value that speaks of the category disallows it, and
// otherwise a <permits type="usage"> value that does allows it, on the
// licence's terms: Conditions.License holds the <payment> (its type, free
// when absent, amounts, standard and custom offers), the <content>'s
// licence server (a licence token must then be obtained even when free),
// and the user and geo permits and prohibits; Conditions.Policy names the
// document, where a licence is had. A use a licence neither permits nor
// prohibits gets no evidence from it: it is not licensed, which is not a
// prohibition. The usage values map onto the categories as the table
// shows: search is search, ai-train is train-ai, ai-input is ai-input,
// ai-all is both, and all is every category but crawl (fetching is
// robots.txt's question, and that of the licence token). ai-index (an index
// for AI applications) has no category of its own and speaks of none.
// Values are separated by spaces (RSL 1.0) or commas (its drafts), and
// unknown values say nothing. Each document gives its own evidence, and
// the most restrictive verdict wins, as for every signal.
//
// A site that enforces its licences answers a request without a valid
// licence token with status 401 or 402 and a WWW-Authenticate challenge
// of the License scheme: CheckLicense turns such a response into a
// *LicenseRequiredError naming the licence. A crawler that holds a token
// from the licence server presents it with SetLicenseToken, as
// "Authorization: License TOKEN".
package usage
