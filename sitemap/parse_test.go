package sitemap_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/sitemap"
)

// collect returns the entries and errors of a parse.
func collect(p *sitemap.Parser, body string) (entries []sitemap.Entry, errs []error) {
	for e, err := range p.Parse(strings.NewReader(body)) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		entries = append(entries, e)
	}
	return entries, errs
}

func locs(entries []sitemap.Entry) string {
	var s []string
	for _, e := range entries {
		s = append(s, e.Loc)
	}
	return strings.Join(s, " ")
}

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
  xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
  xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>https://example.com/a?x=1&amp;y=2</loc>
    <lastmod>2024-03-01T10:20:30+01:00</lastmod>
    <changefreq>Daily</changefreq>
    <priority>0.8</priority>
    <image:image><image:loc>https://cdn.example.com/a.jpg</image:loc></image:image>
    <image:image><image:loc>https://cdn.example.com/b.jpg</image:loc></image:image>
    <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a"/>
    <news:news>
      <news:publication><news:name>The Times</news:name><news:language>en</news:language></news:publication>
      <news:publication_date>2024-03-01</news:publication_date>
      <news:title>A &amp; B</news:title>
    </news:news>
  </url>
  <url><loc> https://example.com/b </loc><lastmod>yesterday</lastmod></url>
</urlset>`

func TestURLSet(t *testing.T) {
	entries, errs := collect(&sitemap.Parser{}, urlset)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(entries) != 2 {
		t.Fatalf("got %d entries, want 2", len(entries))
	}
	a, b := entries[0], entries[1]
	if a.Loc != "https://example.com/a?x=1&y=2" || a.Kind != sitemap.URL {
		t.Errorf("loc %q kind %v", a.Loc, a.Kind)
	}
	if want := time.Date(2024, 3, 1, 9, 20, 30, 0, time.UTC); !a.LastMod.Equal(want) {
		t.Errorf("lastmod %v, want %v", a.LastMod, want)
	}
	if a.ChangeFreq != "daily" || a.Priority != 0.8 {
		t.Errorf("changefreq %q priority %v", a.ChangeFreq, a.Priority)
	}
	if len(a.Images) != 2 || a.Images[1].Loc != "https://cdn.example.com/b.jpg" {
		t.Errorf("images %v", a.Images)
	}
	if len(a.Alternates) != 1 || a.Alternates[0] != (sitemap.Alternate{Hreflang: "de", Href: "https://example.com/de/a"}) {
		t.Errorf("alternates %v", a.Alternates)
	}
	if n := a.News; n == nil || n.Name != "The Times" || n.Language != "en" || n.Title != "A & B" || n.Published.IsZero() {
		t.Errorf("news %+v", n)
	}
	// Lenient: white space trimmed, a bad date kept raw.
	if b.Loc != "https://example.com/b" || !b.LastMod.IsZero() || b.LastModRaw != "yesterday" || b.Priority != -1 {
		t.Errorf("second entry %+v", b)
	}
}

func TestIndex(t *testing.T) {
	entries, errs := collect(&sitemap.Parser{}, `<sitemapindex><sitemap><loc>https://example.com/s1.xml.gz</loc><lastmod>2024-01-02</lastmod></sitemap>
<sitemap><loc>https://example.com/s2.xml</loc></sitemap></sitemapindex>`)
	if len(errs) > 0 || len(entries) != 2 {
		t.Fatal(entries, errs)
	}
	for _, e := range entries {
		if e.Kind != sitemap.Index {
			t.Errorf("%s: kind %v, want sitemap", e.Loc, e.Kind)
		}
	}
	if entries[0].LastMod != time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC) {
		t.Errorf("lastmod %v", entries[0].LastMod)
	}
}

// Broken files real sites serve are read.
func TestLenient(t *testing.T) {
	for name, body := range map[string]string{
		"bom":            "\xEF\xBB\xBF<urlset><url><loc>https://example.com/1</loc></url></urlset>",
		"unescaped amp":  `<urlset><url><loc>https://example.com/1</loc><news><title>A&B</title></news></url></urlset>`,
		"html entity":    `<urlset><url><loc>https://example.com/1</loc><news><title>a&nbsp;b</title></news></url></urlset>`,
		"wrong ns":       `<s:urlset xmlns:s="http://www.google.com/schemas/sitemap/0.84"><s:url><s:loc>https://example.com/1</s:loc></s:url></s:urlset>`,
		"no ns":          `<urlset><url><loc>https://example.com/1</loc></url></urlset>`,
		"latin1 decl":    `<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>https://example.com/1</loc></url></urlset>`,
		"cdata":          `<urlset><url><loc><![CDATA[https://example.com/1]]></loc></url></urlset>`,
		"leading blanks": "\n\n  <urlset><url><loc>https://example.com/1</loc></url></urlset>",
		"unclosed end":   `<urlset><url><loc>https://example.com/1</loc></url>`,
	} {
		entries, _ := collect(&sitemap.Parser{}, body)
		if locs(entries) != "https://example.com/1" {
			t.Errorf("%s: got %q", name, locs(entries))
		}
	}
}

func TestText(t *testing.T) {
	entries, errs := collect(&sitemap.Parser{}, "https://example.com/1\r\n\n  https://example.com/2  \nnot a url\n/relative\nftp://example.com/x\nhttps://example.com/3")
	if got := locs(entries); got != "https://example.com/1 https://example.com/2 https://example.com/3" {
		t.Errorf("got %q", got)
	}
	if len(errs) != 3 {
		t.Fatalf("errors %v, want 3", errs)
	}
	for _, err := range errs {
		var se *sitemap.Error
		if !errors.Is(err, sitemap.ErrInvalidURL) || !errors.As(err, &se) || se.Line == 0 {
			t.Errorf("%v: want ErrInvalidURL with a line", err)
		}
	}
}

func TestFeeds(t *testing.T) {
	rss := `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://example.com/</link>
<item><title>one</title><link>https://example.com/1</link><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item>
<item><link>https://example.com/2</link></item></channel></rss>`
	atom := `<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://example.com/"/>
<entry><link rel="edit" href="https://example.com/edit/1"/><link href="https://example.com/1"/><updated>2003-12-13T18:30:02Z</updated></entry>
<entry><link rel="alternate" href="https://example.com/2"/></entry></feed>`
	for name, body := range map[string]string{"rss": rss, "atom": atom} {
		entries, errs := collect(&sitemap.Parser{}, body)
		if len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
		if got := locs(entries); got != "https://example.com/1 https://example.com/2" {
			t.Errorf("%s: got %q", name, got)
		}
		if len(entries) > 0 && entries[0].LastMod.IsZero() {
			t.Errorf("%s: no date from %q", name, entries[0].LastModRaw)
		}
	}
}

func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

func TestGzip(t *testing.T) {
	for name, body := range map[string]string{
		"xml":  gz(`<urlset><url><loc>https://example.com/1</loc></url></urlset>`),
		"text": gz("https://example.com/1\n"),
	} {
		entries, errs := collect(&sitemap.Parser{}, body)
		if len(errs) > 0 || locs(entries) != "https://example.com/1" {
			t.Errorf("%s: %q %v", name, locs(entries), errs)
		}
	}
	// A truncated stream: the entries before stand, then ErrMalformed.
	full := gz("https://example.com/1\nhttps://example.com/2\n" + strings.Repeat("https://example.com/x\n", 1000))
	_, errs := collect(&sitemap.Parser{}, full[:len(full)-20])
	if len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrMalformed) {
		t.Errorf("truncated gzip: %v, want ErrMalformed", errs)
	}
}

// A gzip bomb stops at MaxBytes, whatever it would inflate to.
func TestGzipBomb(t *testing.T) {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write([]byte("<urlset>"))
	zeros := make([]byte, 1<<20)
	for range 64 {
		w.Write(zeros) // 64 MiB of NULs, 64 KiB compressed
	}
	w.Close()
	_, errs := collect(&sitemap.Parser{MaxBytes: 1 << 20}, b.String())
	if len(errs) != 1 || !errors.Is(errs[len(errs)-1], sitemap.ErrTooLarge) && !errors.Is(errs[len(errs)-1], sitemap.ErrMalformed) {
		t.Errorf("bomb: %v, want ErrTooLarge or ErrMalformed", errs)
	}
}

func TestLimits(t *testing.T) {
	body := "<urlset>" + strings.Repeat("<url><loc>https://example.com/p</loc></url>", 10) + "</urlset>"
	entries, errs := collect(&sitemap.Parser{MaxURLs: 4}, body)
	if len(entries) != 4 || len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrTooManyURLs) {
		t.Errorf("MaxURLs 4: %d entries, %v", len(entries), errs)
	}
	entries, errs = collect(&sitemap.Parser{MaxBytes: 100}, body)
	if len(entries) == 10 || len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrTooLarge) {
		t.Errorf("MaxBytes 100: %d entries, %v", len(entries), errs)
	}
	// One element larger than 64 KiB is refused before it is held whole.
	huge := "<urlset><url><loc>https://example.com/" + strings.Repeat("a", 1<<20) + "</loc></url></urlset>"
	_, errs = collect(&sitemap.Parser{}, huge)
	if len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrTooLarge) {
		t.Errorf("huge element: %v, want ErrTooLarge", errs)
	}
	// A <loc> of 2,048 characters or more is no URL.
	long := "<urlset><url><loc>https://example.com/" + strings.Repeat("a", 2100) + "</loc></url></urlset>"
	_, errs = collect(&sitemap.Parser{}, long)
	if len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrInvalidURL) {
		t.Errorf("long loc: %v, want ErrInvalidURL", errs)
	}
}

func TestNotSitemap(t *testing.T) {
	for _, body := range []string{
		"<!DOCTYPE html><html><body>Not found</body></html>",
		`<?xml version="1.0"?><note>x</note>`,
	} {
		entries, errs := collect(&sitemap.Parser{}, body)
		if len(entries) > 0 || len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrNotSitemap) {
			t.Errorf("%q: %v %v, want ErrNotSitemap", body, entries, errs)
		}
	}
	_, errs := collect(&sitemap.Parser{}, "<urlset><url><loc>https://example.com/1</loc></url><<<")
	if len(errs) != 1 || !errors.Is(errs[0], sitemap.ErrMalformed) {
		t.Errorf("broken XML: %v, want ErrMalformed", errs)
	}
}

func TestScope(t *testing.T) {
	sm, _ := url.Parse("https://Example.com:443/catalog/sitemap.xml")
	p := &sitemap.Parser{Scope: []*url.URL{sitemap.Dir(sm)}}
	body := "https://example.com/catalog/a\nhttps://EXAMPLE.com/catalog/b\nhttps://example.com/other\nhttp://example.com/catalog/c\nhttps://sub.example.com/catalog/d\nhttps://example.com:8443/catalog/e\n"
	entries, errs := collect(p, body)
	if got := locs(entries); got != "https://example.com/catalog/a https://EXAMPLE.com/catalog/b" {
		t.Errorf("in scope: %q", got)
	}
	if len(errs) != 4 {
		t.Fatalf("errors %v, want 4", errs)
	}
	for _, err := range errs {
		if !errors.Is(err, sitemap.ErrOutOfScope) {
			t.Errorf("%v: want ErrOutOfScope", err)
		}
	}
	// The robots.txt's grant covers the whole origin.
	p.Scope = append(p.Scope, sitemap.Root(sm))
	if entries, _ := collect(p, body); len(entries) != 3 {
		t.Errorf("with the origin's grant: %q", locs(entries))
	}
}

// Breaking out of the loop stops the parse.
func TestStop(t *testing.T) {
	n := 0
	for range sitemap.Parse(strings.NewReader(strings.Repeat("https://example.com/\n", 100))) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("ran %d times", n)
	}
}

// <lastmod> in each W3C Datetime granularity (Sitemaps 0.9), with the
// slips real files make, and the RFC 822 dates of RSS.
func TestLastMod(t *testing.T) {
	for raw, want := range map[string]time.Time{
		"2024":                           time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		"2024-05":                        time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC),
		"2024-05-06":                     time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC),
		"2024-05-06T07:08+02:00":         time.Date(2024, 5, 6, 5, 8, 0, 0, time.UTC),
		"2024-05-06T07:08:09Z":           time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		"2024-05-06T07:08:09.5-01:00":    time.Date(2024, 5, 6, 8, 8, 9, 5e8, time.UTC),
		"2024-05-06T07:08:09":            time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		"2024-05-06 07:08:09":            time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		"2024-05-06T07:08:09+0200":       time.Date(2024, 5, 6, 5, 8, 9, 0, time.UTC),
		"Mon, 06 May 2024 07:08:09 GMT":  time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		"Mon, 6 May 2024 07:08:09 +0000": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		"06/05/2024":                     {},
		"soon":                           {},
	} {
		entries, _ := collect(&sitemap.Parser{}, "<urlset><url><loc>https://example.com/</loc><lastmod>"+raw+"</lastmod></url></urlset>")
		if len(entries) != 1 {
			t.Fatalf("%q: %d entries", raw, len(entries))
		}
		if got := entries[0]; !got.LastMod.Equal(want) || got.LastModRaw != raw {
			t.Errorf("%q: LastMod %v (raw %q), want %v", raw, got.LastMod, got.LastModRaw, want)
		}
	}
}
