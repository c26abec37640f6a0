package usage

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// FuzzDecide weighs every signal read from untrusted input: a robots.txt
// (rules, ACAP records, usage lines), a tdmrep.json, response header fields
// and an HTML head. Whatever they hold, the decision is the most
// restrictive of its evidence, every evidence speaks of the category asked
// and names its signal, and nothing panics.
func FuzzDecide(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /private/\nContent-Signal: search=yes, ai-train=no\nContent-Usage: /a/ train-ai=y\n"),
		[]byte(`[{"location": "/*", "tdm-reservation": 1, "tdm-policy": "https://example.com/p"}]`),
		"googlebot: noindex, max-snippet:20", "train-ai=n", "1",
		[]byte(`<html><head><meta name="robots" content="nosnippet"><meta name="tdm-reservation" content="0"></head>`),
		"FooBot/1.0", "/a/b", uint8(4))
	f.Add([]byte("ACAP-crawler: *\nACAP-disallow-other: /\nACAP-allow-present-snippet: / max-length=20-chars\n"), []byte("[]"),
		"unavailable_after: 2020-01-01", "", "", []byte("<meta name=foobot content=noai>"), "foobot", "/", uint8(1))
	f.Fuzz(func(t *testing.T, robots, tdm []byte, xrt, cu, tdmHeader string, html []byte, agent, path string, cat uint8) {
		cats := Categories()
		c := cats[int(cat)%len(cats)]
		site := &Site{RobotsURL: "https://example.com/robots.txt", Rules: policy.Parse(robots), Robots: ParseRobots(robots, "https://example.com/robots.txt")}
		if ap := acap.Parse(robots); ap.HasRecords() {
			site.ACAP = ap
		}
		if f, err := ParseTDMRep(tdm, "https://example.com"+TDMRepPath); err == nil {
			site.TDMRep = f
		}
		page, err := ReadHTML(bytes.NewReader(html), 4096)
		if err != nil {
			t.Fatalf("ReadHTML from memory: %v", err)
		}
		page.Header = ReadHeader(http.Header{"X-Robots-Tag": {xrt}, "Content-Usage": {cu}, "Tdm-Reservation": {tdmHeader}}).Header
		now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
		d := Decide(Query{Agent: agent, URL: path, Category: c, Now: now}, site, page)
		want := Unknown
		for _, e := range d.Evidence {
			if e.Category != c {
				t.Fatalf("evidence of %s in a decision on %s: %v", e.Category, c, e)
			}
			if e.Source.Signal < RobotsRules || e.Source.Signal > TDMRep || e.Source.Place < InFile || e.Source.Place > InMeta {
				t.Fatalf("evidence without a source: %+v", e.Source)
			}
			if len(e.Source.Text) > 200 {
				t.Fatalf("source text of %d bytes", len(e.Source.Text))
			}
			switch {
			case e.Verdict == Disallowed:
				want = Disallowed
			case e.Verdict == Allowed && want == Unknown:
				want = Allowed
			}
		}
		if d.Verdict != want {
			t.Fatalf("verdict %v, the evidence says %v: %v", d.Verdict, want, d.Evidence)
		}
		if d.Verdict != Unknown && d.Decisive.Verdict != d.Verdict {
			t.Fatalf("decisive evidence %v for verdict %v", d.Decisive, d.Verdict)
		}
		if c == Crawl && page != nil && len(d.Evidence) > 0 {
			for _, e := range d.Evidence {
				if e.Source.Place != InFile {
					t.Fatalf("a page's %s decides crawling: %v", e.Source.Signal, e)
				}
			}
		}
		_ = d.String()
		_ = d.Conditions.String()
	})
}
