package acap_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/acap"
)

// The tests in this file are the examples of ACAP 1.1 part 1
// (../shared/specs/acap-1.1-part1-robots-txt.md), by section. Where an
// example is a lone field, it is put in a record for any crawler.

// overview is the example of section 2.1, as printed: its last field is a
// comment.
const overview = `##ACAP version=1.0
# Legacy robots.txt file content...

User-agent: *
Disallow: /

User-agent: named-crawler
Allow: /index.html
Allow: /public/
Allow: /promotion/
Allow: /news/

# Un-comment the line below, if crawlers capable of understanding
# ACAP records are to ignore conventional records
# ACAP-ignore-conventional-records

# ACAP local definitions
# Resources found in three directories are crawlable
ACAP-resource-set: crawlable /public/ /promotion/ /news/

# On this site 'cache' means 'preserve (store) until re-crawled'
ACAP-qualified-usage: cache preserve time-limit=until-recrawled

# The same usages are permitted for all resources in the specified
# resource set, so we can define a composite usage
ACAP-composite-usage: basic-usages crawl index present

# Crawlers in general are prohibited to crawl this site
ACAP-crawler: *
ACAP-disallow-crawl: /

# Named crawler may crawl, index and display the content of /public/ ...
ACAP-crawler: named-crawler
# All my usages are permitted for the specified resource set...
ACAP-allow-(basic-usages): the-acap:resource-set:crawlable
# which is equivalent to permitting the three separate usages, which are
# commented out here...
# ACAP-allow-crawl: the-acap:resource-set:crawlable
# ACAP-allow-index: the-acap:resource-set:crawlable
# ACAP-allow-present: the-acap:resource-set:crawlable
# ...but may only preserve copies in the locally-defined sense  
# ACAP-allow-(cache): the-acap:resource-set:crawable
`

func TestExampleOverview(t *testing.T) {
	p := acap.Parse([]byte(overview))
	checkProblems(t, p)
	if p.Version() != "" {
		t.Errorf("Version = %q: the ##ACAP comment of section 2.10.3 is a comment", p.Version())
	}
	check(t, p, []want{
		// The named crawler's composite usage permits crawl, index and
		// present of the resource set; it overrides the "*" record.
		{agent: "named-crawler", url: "/public/a.html", usage: acap.Crawl, permitted: true, line: 35},
		{agent: "Named-Crawler/2.0 (+https://example.com/bot)", url: "https://example.com/news/1", usage: acap.Crawl, permitted: true, line: 35},
		{agent: "named-crawler", url: "/public/a.html", usage: acap.Index, permitted: true, line: 35},
		{agent: "named-crawler", url: "/promotion/a", usage: acap.PresentSnippet, permitted: true, line: 35},
		// Elsewhere the "*" record's prohibition applies to it too.
		{agent: "named-crawler", url: "/private/a", usage: acap.Crawl, permitted: false, line: 30},
		// The conventional Allow: /index.html is narrower than the ACAP
		// prohibition of /, and they are pooled (reading 1).
		{agent: "named-crawler", url: "/index.html", usage: acap.Crawl, permitted: true, line: 8},
		// Preserving is permitted by default: the cache permission is a
		// comment.
		{agent: "named-crawler", url: "/public/a.html", usage: acap.Preserve, permitted: true},
		// Any other crawler may not crawl; the ACAP field and the
		// conventional Disallow: / agree, the ACAP field is reported.
		{agent: "otherbot", url: "/public/a.html", usage: acap.Crawl, permitted: false, line: 30},
		{agent: "otherbot", url: "/public/a.html", usage: acap.Index, permitted: true},
	})

	// Un-commented, the last field names a resource set that is not
	// defined (crawable): it is reported and ignored.
	p = acap.Parse([]byte(overview + "ACAP-allow-(cache): the-acap:resource-set:crawable\n"))
	checkProblems(t, p, 43)
	check(t, p, []want{{agent: "named-crawler", url: "/public/a.html", usage: acap.Preserve, permitted: true}})
	// Spelled right, it permits preserving until the resource is
	// re-crawled.
	p = acap.Parse([]byte(overview + "ACAP-allow-(cache): the-acap:resource-set:crawlable\n"))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "named-crawler", url: "/public/a.html", usage: acap.Preserve, permitted: true, line: 43, quals: "time-limit=until-recrawled"},
		{agent: "named-crawler", url: "/other/a.html", usage: acap.Preserve, permitted: true},
	})

	// With the directive of section 2.10.1 un-commented, the conventional
	// records are ignored: /index.html is no longer crawlable.
	p = acap.Parse([]byte(replaceLine(overview, 15, "ACAP-ignore-conventional-records")))
	checkProblems(t, p)
	if !p.IgnoresConventional() {
		t.Error("IgnoresConventional = false")
	}
	check(t, p, []want{
		{agent: "named-crawler", url: "/index.html", usage: acap.Crawl, permitted: false, line: 30},
		{agent: "named-crawler", url: "/public/a.html", usage: acap.Crawl, permitted: true, line: 35},
	})
}

func TestExampleCrawlerIdentification(t *testing.T) { // 2.3.1
	p := acap.Parse(file(
		"ACAP-crawler: searchbot",
		"ACAP-disallow-crawl: /private/",
		"ACAP-crawler: *",
		"ACAP-disallow-crawl: /tmp/",
	))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "searchbot", url: "/private/a", usage: acap.Crawl, permitted: false, line: 2},
		{agent: "SearchBot/1.0 (+https://search.example/bot)", url: "/private/a", usage: acap.Crawl, permitted: false, line: 2},
		{agent: "otherbot", url: "/private/a", usage: acap.Crawl, permitted: true},
		// The "*" record applies to searchbot too, for other resources.
		{agent: "searchbot", url: "/tmp/a", usage: acap.Crawl, permitted: false, line: 4},
		{agent: "otherbot", url: "/tmp/a", usage: acap.Crawl, permitted: false, line: 4},
	})

	// A record for "*" must not name other crawlers.
	p = acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-crawler: searchbot",
		"ACAP-disallow-crawl: /",
	))
	checkProblems(t, p, 2)
	check(t, p, []want{{agent: "otherbot", url: "/a", usage: acap.Crawl, permitted: false, line: 3}})
}

func TestExamplePermissionsReference(t *testing.T) { // 2.3.2
	p := acap.Parse(file(
		"ACAP-crawler: searchbot",
		"ACAP-permissions-reference: /searchbot.txt",
		"ACAP-disallow-crawl: /",
	))
	checkProblems(t, p, 3) // the record holds nothing but the reference
	refs := p.References()
	if len(refs) != 1 || refs[0].Locator != "/searchbot.txt" || refs[0].Line != 2 {
		t.Fatalf("References = %+v", refs)
	}
	base, _ := url.Parse("https://example.com/robots.txt")
	if u, err := refs[0].URL(base); err != nil || u.String() != "https://example.com/searchbot.txt" {
		t.Errorf("URL = %v, %v", u, err)
	}
	if !refs[0].AppliesTo("SearchBot/2.1") || refs[0].AppliesTo("otherbot") {
		t.Error("AppliesTo does not follow the record's crawlers")
	}

	q := p.Include(refs[0], file(
		"ACAP-version: 1.1",
		"ACAP-qualified-usage: short present-snippet max-length=20-words",
		"ACAP-crawler: *",
		"ACAP-disallow-crawl: /private/",
		"ACAP-allow-(short): /",
		"ACAP-crawler: searchbot",
		"ACAP-permissions-reference: /more.txt",
	))
	checkProblems(t, p, 3) // p is not modified
	probs := q.Problems()
	if len(probs) != 2 || probs[1].Source != "/searchbot.txt" || probs[1].Line != 7 {
		t.Errorf("Problems = %+v, want line 7 of /searchbot.txt: references do not chain", probs)
	}
	check(t, q, []want{
		{agent: "searchbot", url: "/private/a", usage: acap.Crawl, permitted: false, line: 4},
		{agent: "searchbot", url: "/a", usage: acap.PresentSnippet, permitted: true, line: 5, quals: "max-length=20-words"},
		// The resource's records apply only to the crawlers of the
		// record that refers to it.
		{agent: "otherbot", url: "/private/a", usage: acap.Crawl, permitted: true},
	})
	if d := q.Decide(acap.Query{Agent: "searchbot", URL: "/private/a", Usage: acap.Crawl}); d.Field.Source != "/searchbot.txt" {
		t.Errorf("Field.Source = %q", d.Field.Source)
	}
	check(t, p, []want{{agent: "searchbot", url: "/private/a", usage: acap.Crawl, permitted: true}})
}

func TestExampleUsagePurpose(t *testing.T) { // 2.3.3
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-disallow-index: /",
		"ACAP-usage-purpose: news",
		"ACAP-allow-index: /",
		"ACAP-usage-purpose: http://news.search.* /",
		"ACAP-allow-index: /",
		"ACAP-usage-purpose: http://the-acap.org/usage-purpose-categories#preservation",
		"ACAP-allow-preserve: /",
		"ACAP-disallow-preserve: /private/",
	))
	// The stray space makes line 5 no pattern: its sub-record applies to
	// no purpose.
	checkProblems(t, p, 5)
	check(t, p, []want{
		{agent: "bot", url: "/a", usage: acap.Index, permitted: false, line: 2},
		// The sub-record's field overrides the record's.
		{agent: "bot", url: "/a", usage: acap.Index, purpose: "news", permitted: true, line: 4},
		{agent: "bot", url: "/a", usage: acap.Index, purpose: "NEWS", permitted: true, line: 4},
		// Patterns match a prefix, as resource path patterns do.
		{agent: "bot", url: "/a", usage: acap.Index, purpose: "newsletter", permitted: true, line: 4},
		{agent: "bot", url: "/a", usage: acap.Index, purpose: "http://news.search.example/", permitted: false, line: 2},
		// "#preservation" starts a comment: the pattern is what precedes it.
		{agent: "bot", url: "/a", usage: acap.Preserve, purpose: "http://the-acap.org/usage-purpose-categories#preservation", permitted: true, line: 8},
		{agent: "bot", url: "/private/a", usage: acap.Preserve, purpose: "http://the-acap.org/usage-purpose-categories#archive", permitted: false, line: 9},
		{agent: "bot", url: "/a", usage: acap.Preserve, permitted: true},
	})
}

func TestExamplePermissions(t *testing.T) { // 2.4.1.1, 2.4.2, 2.5.1
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-allow-index: /news/",
		"ACAP-disallow-crawl: /private/",
	))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/news/a", usage: acap.Index, permitted: true, line: 2},
		{agent: "bot", url: "/other", usage: acap.Index, permitted: true},
		{agent: "bot", url: "/private/a", usage: acap.Crawl, permitted: false, line: 3},
		// ACAP patterns ignore case (section 2.9).
		{agent: "bot", url: "/PRIVATE/a", usage: acap.Crawl, permitted: false, line: 3},
		{agent: "bot", url: "/private/a", usage: acap.Index, permitted: true},
	})
}

func TestExampleQualifiedPermission(t *testing.T) { // 2.4.1.2
	// until-recrawl is not a valid time-limit (until-recrawled is). In a
	// file without ACAP-version 1.1 the field is ignored (section 2.8).
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-allow-preserve: /news/ time-limit=until-recrawl",
	))
	checkProblems(t, p, 2)
	check(t, p, []want{{agent: "bot", url: "/news/a", usage: acap.Preserve, permitted: true}})

	// In an ACAP 1.1 file, a crawler that cannot interpret it reads it as
	// a prohibition of the same usage (section 2.4.3).
	p = acap.Parse(file(
		"ACAP-version: 1.1",
		"ACAP-crawler: *",
		"ACAP-allow-preserve: /news/ time-limit=until-recrawl",
	))
	checkProblems(t, p, 3)
	d := p.Decide(acap.Query{Agent: "bot", URL: "/news/a", Usage: acap.Preserve})
	if d.Permitted || !d.Field.FellBack || d.Field.Line != 3 {
		t.Errorf("got %v, want a prohibition by the fallback of line 3", d)
	}
}

func TestExampleLocalUsage(t *testing.T) { // 2.4.1.3
	p := acap.Parse(file(
		"ACAP-qualified-usage: my-local-usage index time-limit=3-days",
		"ACAP-crawler: *",
		"ACAP-allow-(my-local-usage): /special/*.htm",
		"ACAP-allow-(my-local-usage): /other/ time-limit=5-days",
	))
	checkProblems(t, p, 4) // no qualifiers with a locally-defined usage
	check(t, p, []want{
		{agent: "bot", url: "/special/a.htm", usage: acap.Index, permitted: true, line: 3, quals: "time-limit=3-days"},
		{agent: "bot", url: "/special/x/A.HTM", usage: acap.Index, permitted: true, line: 3, quals: "time-limit=3-days"},
		{agent: "bot", url: "/special/a.gif", usage: acap.Index, permitted: true},
	})
}

func TestExampleResourceSet(t *testing.T) { // 2.4.5, 2.7.3
	p := acap.Parse(file(
		"ACAP-resource-set: indexable /public/ /news/ /promote/",
		"ACAP-resource-set: images *.gif *.jpg *.png",
		"ACAP-crawler: *",
		"ACAP-allow-index: the-acap:resource-set:indexable",
		"ACAP-disallow-index: the-acap:resource-set:images",
	))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/news/a.html", usage: acap.Index, permitted: true, line: 4},
		{agent: "bot", url: "/promote/", usage: acap.Index, permitted: true, line: 4},
		{agent: "bot", url: "/a/b.GIF", usage: acap.Index, permitted: false, line: 5},
		{agent: "bot", url: "/a/b.html", usage: acap.Index, permitted: true},
		// "/news/" is narrower than "*.png": at their first character, a
		// literal against '*'.
		{agent: "bot", url: "/news/a.png", usage: acap.Index, permitted: true, line: 4},
	})
}

func TestExampleTimeLimit(t *testing.T) { // 2.5.3.1, 2.5.4.1, 2.5.5.2
	fields := []string{
		"ACAP-crawler: *",
		"ACAP-allow-index: /public/ time-limit=until-recrawled",
		"ACAP-allow-index: /news/2007/ time-limit=until-2007-12-31",
		"ACAP-allow-index: /current-news/ time-limit=3-days",
		"ACAP-allow-index: /current-news/ time-limit=until-recrawled time-limit=3-days",
		"ACAP-allow-preserve: /public/ time-limit=until-recrawled",
		"ACAP-allow-preserve: /news/2007/ time-limit=until-2007-12-31",
		"ACAP-allow-preserve: /current-news/ time-limit=3-days",
		"ACAP-allow-preserve: /current-news/ time-limit=until-recrawled time-limit=3-days",
		"ACAP-allow-present: /public/ time-limit=until-recrawled",
		"ACAP-allow-present-snippet: /news/2007/ time-limit=3-days",
		"ACAP-allow-present-currentcopy: /news/ time-limit=until-recrawled time-limit=3-days",
	}
	// Without ACAP-version 1.1, the [V1.1] examples (two time-limits) are
	// ignored.
	p := acap.Parse(file(fields...))
	checkProblems(t, p, 5, 9, 12)
	check(t, p, []want{
		{agent: "bot", url: "/public/a", usage: acap.Index, permitted: true, line: 2, quals: "time-limit=until-recrawled"},
		{agent: "bot", url: "/news/2007/a", usage: acap.Index, permitted: true, line: 3, quals: "time-limit=until-2007-12-31"},
		{agent: "bot", url: "/current-news/a", usage: acap.Index, permitted: true, line: 4, quals: "time-limit=3-days"},
		{agent: "bot", url: "/public/a", usage: acap.Preserve, permitted: true, line: 6, quals: "time-limit=until-recrawled"},
		{agent: "bot", url: "/news/2007/a", usage: acap.Preserve, permitted: true, line: 7, quals: "time-limit=until-2007-12-31"},
		{agent: "bot", url: "/current-news/a", usage: acap.Preserve, permitted: true, line: 8, quals: "time-limit=3-days"},
		// present covers present-thumbnail.
		{agent: "bot", url: "/public/a", usage: acap.PresentThumbnail, permitted: true, line: 10, quals: "time-limit=until-recrawled"},
		{agent: "bot", url: "/news/2007/a", usage: acap.PresentSnippet, permitted: true, line: 11, quals: "time-limit=3-days"},
		{agent: "bot", url: "/news/a", usage: acap.PresentCurrentCopy, permitted: true},
	})

	// With it, they count; two permissions of the same pattern are both
	// narrowest, and the qualifiers of both count: until-recrawled with n-days
	// is one of the significant combinations.
	p = acap.Parse(file(append([]string{"ACAP-version: 1.1"}, fields...)...))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/current-news/a", usage: acap.Index, permitted: true, line: 5, quals: "time-limit=3-days time-limit=until-recrawled"},
		{agent: "bot", url: "/news/a", usage: acap.PresentCurrentCopy, permitted: true, line: 13, quals: "time-limit=until-recrawled time-limit=3-days"},
	})

	// Deadline gives the end of dated and counted limits.
	first := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		value string
		want  time.Time
		ok    bool
	}{
		{"until-2007-12-31", time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"3-days", first.AddDate(0, 0, 3), true},
		{"until-recrawled", time.Time{}, false},
		{"plus-terms", time.Time{}, false},
	} {
		got, ok := acap.Qualifier{Type: "time-limit", Value: tc.value}.Deadline(first)
		if !got.Equal(tc.want) || ok != tc.ok {
			t.Errorf("Deadline(%s) = %v, %v; want %v, %v", tc.value, got, ok, tc.want, tc.ok)
		}
	}
}

func TestExampleMustUseResource(t *testing.T) { // 2.5.3.2, 2.5.5.3
	fields := []string{
		"ACAP-crawler: *",
		"ACAP-allow-index: /page-image.pdf must-use-resource=/page-image-index.txt",
		"ACAP-allow-index: /articles/ must-use-resource=the-acap:extract:class:abstract",
		"ACAP-allow-index /articles/ must-use-resource=the-acap:extract:taglist:p,h1,h2",
		"ACAP-allow-present-thumbnail: /book/pages/ must-use-resource=/book/cover.jpg",
		"ACAP-allow-index: /news/ must-use-resource=the-acap:extract:taglist:p,h1,h2",
	}
	// Line 4 lacks its colon; line 6 (line 4 with a colon) uses a [V1.1]
	// value, so needs ACAP-version 1.1.
	p := acap.Parse(file(fields...))
	checkProblems(t, p, 4, 6)
	check(t, p, []want{
		{agent: "bot", url: "/page-image.pdf", usage: acap.Index, permitted: true, line: 2, quals: "must-use-resource=/page-image-index.txt"},
		{agent: "bot", url: "/articles/1", usage: acap.Index, permitted: true, line: 3, quals: "must-use-resource=the-acap:extract:class:abstract"},
		{agent: "bot", url: "/book/pages/7", usage: acap.PresentThumbnail, permitted: true, line: 5, quals: "must-use-resource=/book/cover.jpg"},
		{agent: "bot", url: "/book/pages/7", usage: acap.PresentSnippet, permitted: true},
		{agent: "bot", url: "/news/a", usage: acap.Index, permitted: true},
	})
	p = acap.Parse(file(append([]string{"ACAP-version: 1.1"}, fields...)...))
	checkProblems(t, p, 5)
	check(t, p, []want{
		{agent: "bot", url: "/news/a", usage: acap.Index, permitted: true, line: 7, quals: "must-use-resource=the-acap:extract:taglist:p,h1,h2"},
	})
}

func TestExamplePresent(t *testing.T) { // 2.5.5, 2.5.5.1
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-allow-present: /public/",
		"ACAP-disallow-present-original: /",
		"ACAP-allow-present-snippet: /public/",
		"ACAP-disallow-present-thumbnail: /public/",
	))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/public/a", usage: acap.Present, permitted: true, line: 2},
		{agent: "bot", url: "/public/a", usage: acap.PresentLink, permitted: true, line: 2},
		// Snippets may be presented, thumbnails not: the fields of the
		// same pattern are pooled with the present permission, and the
		// conflict cannot be decided for thumbnails.
		{agent: "bot", url: "/public/a", usage: acap.PresentSnippet, permitted: true, line: 2},
		{agent: "bot", url: "/public/a", usage: acap.PresentThumbnail, permitted: false, reason: acap.BasisConflict},
		// /public/ is narrower than /: the present permission wins.
		{agent: "bot", url: "/public/a", usage: acap.PresentOriginal, permitted: true, line: 2},
		{agent: "bot", url: "/other", usage: acap.PresentOriginal, permitted: false, line: 3},
		{agent: "bot", url: "/other", usage: acap.PresentSnippet, permitted: true},
	})
}

func TestExamplePresentQualifiers(t *testing.T) { // 2.5.5.4 to 2.5.5.8
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-allow-present-snippet: /news/ max-length=250-chars",
		"ACAP-allow-present: /public/ prohibited-modification=annotation",
		"ACAP-allow-present-currentcopy: /public/ prohibited-modification=style",
		"ACAP-allow-present-currentcopy: /public/copies/ prohibited-modification=format prohibited-modification=translation",
		"ACAP-allow-present-currentcopy: /public/ctx/ prohibited-context=within-user-frame",
		"ACAP-allow-present-original: /public/ required-context=within-original-frame",
		"ACAP-allow-present-oldcopy: /public/ prohibited-modification=format prohibited-modification=any",
		"ACAP-allow-present-link: /news/ max-length=250-chars",
		"ACAP-allow-present-oldcopy: /public/old/ prohibited-modification=format prohibited-modification=any",
	))
	// max-length does not qualify present-link (Annex A).
	checkProblems(t, p, 9)
	check(t, p, []want{
		{agent: "bot", url: "/news/a", usage: acap.PresentSnippet, permitted: true, line: 2, quals: "max-length=250-chars"},
		{agent: "bot", url: "/public/a", usage: acap.PresentThumbnail, permitted: true, line: 3, quals: "prohibited-modification=annotation"},
		// Two permissions, /public/ for present and for present-currentcopy:
		// both are narrowest, the qualifiers of both count.
		{agent: "bot", url: "/public/a", usage: acap.PresentCurrentCopy, permitted: true, line: 3, quals: "prohibited-modification=annotation prohibited-modification=style"},
		{agent: "bot", url: "/public/copies/a", usage: acap.PresentCurrentCopy, permitted: true, line: 5, quals: "prohibited-modification=format prohibited-modification=translation"},
		{agent: "bot", url: "/public/ctx/a", usage: acap.PresentCurrentCopy, permitted: true, line: 6, quals: "prohibited-context=within-user-frame"},
		{agent: "bot", url: "/public/a", usage: acap.PresentOriginal, permitted: true, line: 3, quals: "prohibited-modification=annotation required-context=within-original-frame"},
		// Within a field, any overrides the other prohibited
		// modifications; across fields, every qualifier counts.
		{agent: "bot", url: "/public/a", usage: acap.PresentOldCopy, permitted: true, line: 3, quals: "prohibited-modification=annotation prohibited-modification=any"},
		{agent: "bot", url: "/public/old/a", usage: acap.PresentOldCopy, permitted: true, line: 10, quals: "prohibited-modification=any"},
	})
}

func TestExampleTargetCondition(t *testing.T) { // 2.5.5.9
	values := []string{
		"ipaddressrangelist:1.2.3.1-1.2.3.50,1.2.4.1-1.2.2.255",
		"ipaddressmasklist:10.1.1.0/0.0.0.255",
		"permitteddomainlist:be,fr",
		"prohibiteddomainlist:be,fr",
		"permittedcountrylist:BE,FR",
		"prohibitedcountrylist:BE,FR",
		"rulesref:http://www.mydomain.com/content-rules/",
	}
	for _, v := range values {
		body := file("ACAP-version: 1.1", "ACAP-crawler: *", "ACAP-allow-present: /x/ target-condition="+v)
		p := acap.Parse(body)
		checkProblems(t, p)
		check(t, p, []want{{agent: "bot", url: "/x/1", usage: acap.Present, permitted: true, line: 3, quals: "target-condition=" + v}})
		// A [V1.1] qualifier: ignored without ACAP-version 1.1.
		checkProblems(t, acap.Parse(body[len("ACAP-version: 1.1\n"):]), 2)
	}
	// Combined, all conditions apply; a rulesref that is not alone is
	// ignored.
	p := acap.Parse(file("ACAP-version: 1.1", "ACAP-crawler: *",
		"ACAP-allow-present: /x/ target-condition=permittedcountrylist:BE,FR target-condition=rulesref:http://a.example/ target-condition=prohibiteddomainlist:be"))
	check(t, p, []want{{agent: "bot", url: "/x/1", usage: acap.Present, permitted: true, line: 3,
		quals: "target-condition=permittedcountrylist:BE,FR target-condition=prohibiteddomainlist:be"}})
	// An invalid value falls back to a prohibition (section 2.4.3).
	p = acap.Parse(file("ACAP-version: 1.1", "ACAP-crawler: *", "ACAP-allow-present: /x/ target-condition=ipaddressrangelist:1.2.3"))
	checkProblems(t, p, 3)
	check(t, p, []want{{agent: "bot", url: "/x/1", usage: acap.Present, permitted: false, line: 3}})
}

func TestExampleOther(t *testing.T) { // 2.5.6, 2.5.6.1
	p := acap.Parse(file(
		"ACAP-version: 1.1",
		"ACAP-crawler: *",
		"ACAP-disallow-other: /public/",
		"ACAP-allow-index: /public/",
		"ACAP-allow-crawl: /public/",
		"ACAP-allow-other: /public/open/ usage-ref=the-acap:terms-link:https://example.com/terms",
		"ACAP-allow-other: /public/x/",
	))
	checkProblems(t, p, 7) // other is permitted only with usage-ref
	check(t, p, []want{
		// Usages permitted explicitly stay permitted...
		{agent: "bot", url: "/public/a", usage: acap.Index, permitted: true, line: 4},
		{agent: "bot", url: "/public/a", usage: acap.Crawl, permitted: true, line: 5},
		// ...every other one is prohibited.
		{agent: "bot", url: "/public/a", usage: acap.Preserve, permitted: false, line: 3},
		{agent: "bot", url: "/public/a", usage: acap.PresentSnippet, permitted: false, line: 3},
		{agent: "bot", url: "/public/a", usage: acap.Other, permitted: false, line: 3},
		{agent: "bot", url: "/public/open/a", usage: acap.Other, permitted: true, line: 6, quals: "usage-ref=the-acap:terms-link:https://example.com/terms"},
		{agent: "bot", url: "/public/x/a", usage: acap.Other, permitted: false, line: 3},
		{agent: "bot", url: "/elsewhere", usage: acap.Preserve, permitted: true},
	})
}

func TestExampleActionRequest(t *testing.T) { // 2.6
	p := acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-request-take-down: /news/bad-story.htm",
		"ACAP-crawler: searchbot",
		"ACAP-request-re-crawl: /news/fixed-story.htm",
		"ACAP-usage-purpose: news",
		"ACAP-allow-index: /",
		"ACAP-request-re-crawl: /news/other.htm",
	))
	checkProblems(t, p, 7) // not in a sub-record
	got := p.Actions("searchbot")
	want := []acap.Action{
		{Kind: "take-down", Path: "/news/bad-story.htm", Line: 2},
		{Kind: "re-crawl", Path: "/news/fixed-story.htm", Line: 4},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Actions(searchbot) = %+v, want %+v", got, want)
	}
	if got := p.Actions("otherbot"); len(got) != 1 || got[0] != want[0] {
		t.Errorf("Actions(otherbot) = %+v", got)
	}
}

func TestExampleDefinitions(t *testing.T) { // 2.7.1, 2.7.2
	// As printed, each definition spans two lines: invalid, and the
	// fields that use them name undefined usages.
	p := acap.Parse(file(
		"ACAP-qualified-usage:",
		"my-present-snippet present-snippet time-limit=5-days max-length=250-chars",
		"ACAP-qualified-usage:",
		"present-30-word-snippet present-snippet max-length=30-words",
		"ACAP-composite-usage:",
		"my-default-present (present-30-word-snippet) present-thumbnail",
		"ACAP-crawler: *",
		"ACAP-allow-(my-present-snippet): /public/",
		"ACAP-allow-(my-default-present): /public/",
	))
	checkProblems(t, p, 1, 3, 5, 8, 9)

	p = acap.Parse(file(
		"ACAP-qualified-usage: my-present-snippet present-snippet time-limit=5-days max-length=250-chars",
		"ACAP-qualified-usage: present-30-word-snippet present-snippet max-length=30-words",
		"ACAP-composite-usage: my-default-present (present-30-word-snippet) present-thumbnail",
		"ACAP-crawler: *",
		"ACAP-allow-(my-present-snippet): /public/",
		"ACAP-allow-(my-default-present): /special/",
	))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/public/a", usage: acap.PresentSnippet, permitted: true, line: 5, quals: "time-limit=5-days max-length=250-chars"},
		{agent: "bot", url: "/special/a", usage: acap.PresentSnippet, permitted: true, line: 6, quals: "max-length=30-words"},
		{agent: "bot", url: "/special/a", usage: acap.PresentThumbnail, permitted: true, line: 6},
		{agent: "bot", url: "/special/a", usage: acap.PresentOriginal, permitted: true},
	})
}

func TestExampleVersion(t *testing.T) { // 2.8
	v11 := "ACAP-allow-index: /a/ time-limit=until-recrawled time-limit=3-days"
	for _, tc := range []struct {
		name    string
		lines   []string
		version string
		records bool
		problem []int
		index   want
	}{
		{"1.1", []string{"ACAP-version: 1.1", "ACAP-crawler: *", v11}, "1.1", true, nil,
			want{permitted: true, line: 3, quals: "time-limit=until-recrawled time-limit=3-days"}},
		{"later minor", []string{"ACAP-version: 1.4", "ACAP-crawler: *", v11}, "1.4", true, nil,
			want{permitted: true, line: 3, quals: "time-limit=until-recrawled time-limit=3-days"}},
		{"1.0", []string{"ACAP-version: 1.0", "ACAP-crawler: *", v11}, "1.0", true, []int{3}, want{permitted: true}},
		{"absent", []string{"ACAP-crawler: *", v11}, "", true, []int{2}, want{permitted: true}},
		{"not first", []string{"ACAP-crawler: *", "ACAP-version: 1.1", v11}, "", true, []int{2, 3}, want{permitted: true}},
		{"comment", []string{"##ACAP version=1.1", "ACAP-crawler: *", v11}, "", true, []int{3}, want{permitted: true}},
		{"major 2", []string{"ACAP-version: 2.0", "ACAP-crawler: *", "ACAP-disallow-index: /"}, "2.0", false, []int{1}, want{permitted: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := acap.Parse(file(tc.lines...))
			if p.Version() != tc.version || p.HasRecords() != tc.records {
				t.Errorf("Version, HasRecords = %q, %v; want %q, %v", p.Version(), p.HasRecords(), tc.version, tc.records)
			}
			checkProblems(t, p, tc.problem...)
			w := tc.index
			w.agent, w.url, w.usage = "bot", "/a/b", acap.Index
			check(t, p, []want{w})
		})
	}
}

func TestExampleConventional(t *testing.T) { // 2.10
	// ACAP-ignore-conventional-records must come before the ACAP fields
	// (reading 7).
	p := acap.Parse(file(
		"User-agent: *",
		"Disallow: /",
		"ACAP-crawler: *",
		"ACAP-disallow-crawl: /private/",
		"ACAP-ignore-conventional-records",
	))
	checkProblems(t, p, 5)
	check(t, p, []want{{agent: "bot", url: "/public", usage: acap.Crawl, permitted: false, line: 2}})

	// Conventional fields within an ACAP record are ignored (2.10.2).
	p = acap.Parse(file(
		"ACAP-crawler: *",
		"ACAP-allow-crawl: /",
		"Disallow: /x",
		"User-agent: *",
		"Disallow: /y",
	))
	checkProblems(t, p, 3)
	check(t, p, []want{
		{agent: "bot", url: "/x", usage: acap.Crawl, permitted: true, line: 2},
		{agent: "bot", url: "/y", usage: acap.Crawl, permitted: false, line: 5},
	})

	// The same pattern with conflicting verdicts: the conventional field
	// is ignored. Different patterns are pooled (reading 1).
	p = acap.Parse(file(
		"User-agent: *",
		"Disallow: /news/",
		"Disallow: /news/archive/",
		"Allow: /blog/",
		"",
		"ACAP-crawler: *",
		"ACAP-allow-crawl: /news/",
		"ACAP-disallow-crawl: /blog/",
		"ACAP-disallow-crawl: /Private/",
	))
	checkProblems(t, p)
	check(t, p, []want{
		{agent: "bot", url: "/news/a", usage: acap.Crawl, permitted: true, line: 7},
		{agent: "bot", url: "/news/archive/a", usage: acap.Crawl, permitted: false, line: 3},
		{agent: "bot", url: "/blog/a", usage: acap.Crawl, permitted: false, line: 8},
		// ACAP patterns ignore case, conventional ones do not.
		{agent: "bot", url: "/private/a", usage: acap.Crawl, permitted: false, line: 9},
		// A conventional Disallow concerns crawling only (reading 8).
		{agent: "bot", url: "/news/archive/a", usage: acap.Index, permitted: true},
	})
}
