// Package acap reads the ACAP 1.1 extensions of robots.txt (Automated
// Content Access Protocol, part 1, 2009) and answers the question they
// exist for: may this crawler use this resource for this usage, and on
// what conditions?
//
//	p := acap.Parse(body)
//	d := p.Decide(acap.Query{Agent: "NewsBot/1.0", URL: "https://example.com/news/1", Usage: acap.PresentSnippet})
//	if d.Permitted {
//		// present a snippet, honouring every one of d.Qualifiers (e.g. max-length=250-chars)
//	}
//	fmt.Println(d) // permitted by "ACAP-allow-present-snippet: /news/ max-length=250-chars" (line 12) max-length=250-chars
//
// Parse reads every field of section 2 with the grammar of section 3:
// crawler records (ACAP-crawler) and their sub-records (ACAP-usage-purpose);
// permissions and prohibitions (ACAP-allow-<usage>, ACAP-disallow-<usage>)
// for crawl, follow, index, preserve, present and every present-<type>,
// other, and locally defined (name) usages; every qualifier with its value
// range and its rules for repetition; the definitions ACAP-qualified-usage,
// ACAP-composite-usage and ACAP-resource-set; ACAP-version;
// ACAP-ignore-conventional-records; the action requests
// ACAP-request-take-down and ACAP-request-re-crawl (Policy.Actions, which
// returns only requests that locate a single resource by a path relative to
// the document root: no pattern, resource set, other host or empty value);
// and
// ACAP-permissions-reference (Policy.References, Policy.Include). A field
// that cannot be interpreted is ignored, or read as a prohibition where
// section 2.4.3 says so, and Policy.Problems says which and why (with a
// ProblemKind for programs). Policy.Definitions gives the resource sets,
// qualified and composite usages back as they were read.
//
// Parse reads the file in one scan (policy.Parser.Scan, RFC9309 dialect),
// which also builds its conventional records. Parser.ParseAlong passes
// that scan on to a policy.LineHandler too: with a policy.Builder, one
// pass over the file gives both the Policy and the policy.Robots.
//
// # Deciding
//
// Policy.Decide takes the fields of every record addressed to the agent
// (a crawler name with the product token of Query.Agent, ignoring case:
// see Query) or to any crawler, and of their sub-records whose usage purpose pattern
// matches Query.Purpose. A field applies when its usage is the one asked
// about (present applies to every present-<type>) and one of its resource
// path patterns matches the URL's path. Then:
//
//   - Sub-record fields override their record's fields, and fields of a
//     record naming the crawler override those of a record for any crawler,
//     for the same usage (section 2.2.1).
//   - Of the fields left, those of narrowest scope decide (section 2.4.6):
//     patterns are compared character by character, and where they first
//     differ a pattern that has run out is wider than any other, a final
//     '$' wider than anything else, '*' wider than a literal. Permissions
//     and prohibitions of narrowest scope that disagree, or identical
//     patterns with both verdicts, cannot be decided: the usage is
//     prohibited (Basis BasisConflict).
//   - Fields of usage other apply only when no field of the usage asked
//     about does: ACAP-disallow-other prohibits every usage not permitted
//     explicitly (section 2.5.6).
//   - No field at all: permitted (section 2.4.3, NOTE).
//
// The decision's Qualifiers are those of the narrowest permissions; the
// crawler must honour them all. A crawler that cannot honour some, or
// cannot act on a prohibition of some usage, says so with Query.Honours
// and Query.Interprets, and the fallback of section 2.4.3 applies: a
// permission with a qualifier it cannot honour is a prohibition of the
// same usage; a prohibition it cannot act on is one of the basic usage
// (present-snippet becomes present), and one of a basic or the general
// usage is one of crawl. Qualifier.Deadline turns time limits into times.
//
// Matching follows section 2.9: '*' matches any sequence, a final '$' the
// end of the path, patterns match a prefix of the path (or of the purpose),
// and case is ignored. Paths are compared in RFC 9309's canonical
// percent-encoding, as package policy compares them.
//
// # Versions and conventional records
//
// Without an ACAP-version field, a field that uses a feature ACAP 1.1
// added (marked [V1.1]: two time-limits, target-condition, usage-ref, a
// repeated qualifier other than prohibited-modification, new qualifier
// values) is ignored, and so is a field
// with a qualifier that cannot be read, as the fallback is itself a 1.1
// feature. ACAP-version 1.m with m ≥ 1 allows them; another major version
// makes every ACAP field ignored, leaving the conventional records
// (section 2.8). ACAP-version must be the first ACAP field; the
// "##ACAP version=1.1" comment of section 2.10.3 is a comment.
//
// Conventional User-agent/Allow/Disallow records count for crawl unless
// the file holds ACAP-ignore-conventional-records before its other ACAP
// fields (section 2.10). They are read as RFC 9309 says (group selection by
// product token, longest match, case-sensitive patterns); the rule that
// decides among them is pooled with the ACAP crawl fields and compared by
// scope. A conventional rule with the same pattern as an ACAP crawl field
// of the other verdict is ignored. Allow and Disallow lines inside an ACAP
// record are ignored.
//
// # Readings
//
// Where ACAP 1.1 is ambiguous, the package reads it as follows.
//
//  1. Conventional Allow/Disallow and ACAP fields with different patterns
//     that both match are pooled and compared by scope (2.4.6); 2.10.2
//     settles only identical patterns, where the conventional field is
//     ignored.
//  2. "Matching the same resource(s)" in the overrides of 2.2.1 means the
//     same resource (both fields match the URL), not identical patterns.
//  3. A named record's record-level field against a "*" record's
//     sub-record field: neither override applies, so it is a conflict,
//     prohibited when 2.4.6 cannot decide it. A named record's sub-record
//     field is more specific on both counts than a "*" record's
//     record-level field, and overrides it.
//  4. The third fallback bullet of 2.4.3 reads as turning a prohibition
//     into a crawl permission; it is read as a crawl prohibition.
//  5. Fallback steps apply repeatedly: a permission that became a
//     present-snippet prohibition the crawler cannot act on becomes a
//     present prohibition.
//  6. time-limit=plus-terms followed by another time-limit: plus-terms is
//     dropped.
//  7. ACAP-ignore-conventional-records after ACAP fields is ignored.
//  8. A conventional Disallow prohibits crawl only (2.5.1 NOTE allows
//     index too).
//  9. A composite usage that names a qualified usage defined after it is
//     invalid as a whole.
//
// And where the text is silent:
//
//  10. Overrides compare the usages as written (a present field and a
//     present-snippet field are not "the same usage type", so they
//     conflict rather than override), and they are applied before the
//     fallback: a field the crawler cannot act on is still overridden by a
//     more specific one of its usage.
//  11. A field that falls back to another usage (a present-snippet
//     prohibition read as one of present, or of crawl) still prohibits the
//     usage it was written for.
//  12. Scope alone decides conflicts: a more specific usage does not make
//     a field narrower.
//  13. Of several permissions of narrowest scope, the crawler must honour
//     the qualifiers of them all; the rules for repeating a qualifier
//     (section 2.5) apply within one field.
//  14. The fallback for qualifiers and usages a crawler declares it cannot
//     handle applies in every file, not only in ACAP 1.1 files, so that a
//     permission the crawler cannot honour never becomes one it takes.
//  15. A User-agent line starts a conventional group but does not end an
//     ACAP record: only an ACAP-crawler line or the end of the file does.
//  16. must-include-resource qualifies present, present-snippet and
//     present-oldsnippet only, as Annex A lists; its plus-terms value is
//     not marked [V1.1] in section 2.5.5.6, unlike the other plus-terms
//     values, so a file without ACAP-version may use it.
//  17. A permissions reference's records apply only to crawlers that the
//     referring record names; its own permissions references are ignored
//     and the rest of it is read; without an ACAP-version of its own it is
//     read as the referring file's version says. A reference that cannot
//     be read is the caller's to treat as unreachable (the transport
//     disallows crawling, as for robots.txt).
//
// And where a file breaks the grammar, so that no field permits more than
// it says:
//
//  18. A prohibition with words after its resource specification is read
//     for that resource alone, without qualifiers; one naming a locally
//     defined usage prohibits each of its usages. A permission that
//     breaks the grammar is ignored (or, when its qualifiers cannot be
//     read, is a prohibition, by 2.4.3). A field that names a resource set
//     that is not defined applies to no resource, permission and
//     prohibition alike: a set that is not defined has no members, and the
//     replacements of 2.4.3 keep "the same resource specification", never
//     widening it. (This package once read such a prohibition as one of
//     every resource, so that one typo, like the document's own
//     "crawable", prohibited the whole site for the usage.)
//  19. An ACAP-crawler record that names both "*" and a crawler is a
//     record for any crawler, whatever the order of its lines.
//  20. An occurrence of a qualifier that the rules for repetition ignore
//     (a third time-limit, a second max-length) is not read, so its value
//     does not matter. A field, qualified usage, or usage of a composite
//     usage with more than 32 qualifiers cannot be interpreted (fields hold
//     a few; the bound keeps definitions cheap to read).
//
// The document's examples have typos, which the package does not correct:
// time-limit=until-recrawl (2.4.1.2) is not a valid value; the [V1.1]
// "ACAP-allow-index /articles/ must-use-resource=…" example lacks its
// colon; "http://news.search.* /" has a stray space, and the '#' of
// "…categories#preservation" starts a comment; "crawable" in 2.1 names an
// undefined resource set; the definitions of 2.7.1 and 2.7.2 are printed
// over two lines, and each definition must be one line. Every example of
// the document is a test of this package.
//
// # Cost
//
// Parse reads at most Parser.MaxSize bytes (500 KiB by default) in time
// and memory linear in the file; a resource set or definition that many
// fields name is held once. Decide reads the fields of the records that
// apply to the agent, and matches against the path the distinct patterns
// of the fields whose usage concerns the query (a resource set's patterns
// once per call, however many fields name it), each match taking time
// linear in the pattern and the path; it then compares the patterns that
// match by scope, in the time of sorting them. The path is made canonical
// once, for the ACAP fields and the conventional records alike: the rules
// of the agent's conventional group are compiled, once per agent, by the
// matcher package policy uses, and decide that path without reading it
// again.
//
// Fields that say the same (same pattern, usages, verdicts and qualifiers)
// are read once, however many times a file repeats them. A pattern that
// more than eight different fields name (different qualifiers, say) is
// read, when Query.Interprets is nil, as one aggregate per usage and
// verdict, whose qualifiers are listed once, on the first decision that
// reads them, and shared by every decision after it (Decision.Qualifiers);
// the lists a Policy keeps hold at most as many qualifiers as its file
// does, past which a list is built by each decision that reads it. Query.Honours is asked about 1,024 qualifiers at most. A
// conflict lists its first sixteen fields, built without reading the
// others.
//
// On this package's benchmarks (go test -bench . ./acap), a crawl of a
// real ACAP file is decided in well under a microsecond without
// allocating, and files built to be slow (500 KiB of wildcards,
// definitions, resource sets, qualifiers or fields) parse in at most tens
// of milliseconds and decide in at most tens of microseconds. A Policy is
// immutable and safe for concurrent use.
package acap
