package sitemap_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/sitemap"
)

// Fuzz targets: each parser reads untrusted files. None may panic, and
// whatever the input: every entry returned without error has an absolute
// http(s) URL of fewer than 2,048 characters within the scope, no more
// entries are returned than MaxURLs, and nothing follows the error that
// ends a file.

// fuzzScope is the scope of the fuzzed files: the sitemap at
// https://example.com/s/sitemap.xml.
var fuzzScope = &url.URL{Scheme: "https", Host: "example.com", Path: "/s/"}

func checkParse(t *testing.T, body []byte) {
	p := &sitemap.Parser{MaxURLs: 200, MaxBytes: 1 << 20, Scope: []*url.URL{fuzzScope}}
	ok, ended := 0, false
	for e, err := range p.Parse(bytes.NewReader(body)) {
		if ended {
			t.Fatalf("an entry after the error that ended the file: %+v, %v", e, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "robotsguard: sitemap") {
				t.Errorf("message %q", err)
			}
			if !errors.Is(err, sitemap.ErrInvalidURL) && !errors.Is(err, sitemap.ErrOutOfScope) {
				ended = true
			}
			continue
		}
		ok++
		u, perr := url.Parse(e.Loc)
		if perr != nil || len(e.Loc) >= 2048 || (u.Scheme != "http" && u.Scheme != "https" && !strings.EqualFold(u.Scheme, "https") && !strings.EqualFold(u.Scheme, "http")) || u.Host == "" {
			t.Fatalf("entry returned with URL %q", e.Loc)
		}
		if !strings.EqualFold(u.Hostname(), "example.com") || !strings.HasPrefix(u.EscapedPath(), "/s/") {
			t.Fatalf("entry out of scope returned: %q", e.Loc)
		}
		if len(e.Images) > 1000 || len(e.Alternates) > 1000 {
			t.Fatalf("%d images, %d alternates", len(e.Images), len(e.Alternates))
		}
		if e.Priority != -1 && (e.Priority < 0 || e.Priority > 1) {
			t.Fatalf("priority %v", e.Priority)
		}
	}
	if ok > p.MaxURLs {
		t.Fatalf("%d entries, MaxURLs %d", ok, p.MaxURLs)
	}
}

func FuzzXML(f *testing.F) {
	for _, s := range []string{
		urlset,
		`<sitemapindex><sitemap><loc>https://example.com/s/1.xml</loc></sitemap></sitemapindex>`,
		`<urlset><url><loc>https://example.com/s/a?b=1&c</loc><lastmod>2024-01-02T03:04:05.123+02:00</lastmod><priority>1.0</priority></url></urlset>`,
		`<!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>&a;&a;</loc></url></urlset>`,
		`<urlset><url><url><loc>https://example.com/s/1</loc></url><image><loc>https://example.com/s/i</loc></image></url></urlset>`,
	} {
		f.Add(strings.TrimPrefix(s, "<"))
	}
	f.Fuzz(func(t *testing.T, s string) { checkParse(t, []byte("<"+s)) })
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"https://example.com/s/1\nhttps://example.com/s/2\r\n", "\n\n  https://example.com/x\n", "/s/relative\nhttps://EXAMPLE.com:443/s/%zz\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkParse(t, []byte("https://example.com/s/0\n"+s)) })
}

func FuzzFeed(f *testing.F) {
	f.Add(false, `<item><link>https://example.com/s/1</link><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item></channel></rss>`)
	f.Add(true, `<entry><link href="https://example.com/s/1"/><updated>2003-12-13T18:30:02Z</updated></entry></feed>`)
	f.Add(false, `<item><link href="https://example.com/s/2" rel="alternate"/></item>`)
	f.Fuzz(func(t *testing.T, atom bool, s string) {
		head := `<rss version="2.0"><channel>`
		if atom {
			head = `<feed xmlns="http://www.w3.org/2005/Atom">`
		}
		checkParse(t, []byte(head+s))
	})
}

func FuzzGzip(f *testing.F) {
	for _, s := range []string{urlset, "https://example.com/s/1\n", "<rss><channel><item><link>https://example.com/s/1</link></item></channel></rss>"} {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		f.Add(b.Bytes()[2:])
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkParse(t, append([]byte{0x1f, 0x8b}, b...)) })
}
