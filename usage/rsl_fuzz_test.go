package usage

import (
	"bytes"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// FuzzParseRSL: any document parses without panicking within its bounds,
// and every Evidence it gives speaks of the category asked, names the
// document, and allows only with the licence's terms attached.
func FuzzParseRSL(f *testing.F) {
	for _, s := range []string{
		rslDoc,
		`<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">all</permits></license></content></rsl>`,
		`<rss xmlns:rsl="https://rslstandard.org/rsl"><channel><item><rsl:content url="https://example.com/a"><rsl:license><rsl:prohibits>ai-all</rsl:prohibits></rsl:license></rsl:content></item></channel></rss>`,
		`<rsl><content url="*.pdf$"><license><permits>search,ai-input</permits><payment type="purchase"><amount currency="EUR">1</amount></payment></license></content></rsl>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">ai-train<b/>search</permits></license></content>`,
		`<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><!DOCTYPE x [<!ENTITY a "b">]>&a;</content></rsl>`,
	} {
		f.Add(s, "/a/b.pdf")
	}
	f.Fuzz(func(t *testing.T, doc, target string) {
		rf, err := ParseRSL([]byte(doc), "https://example.com/license.xml")
		if err != nil {
			if rf != nil {
				t.Fatal("an error with a file")
			}
			return
		}
		if len(rf.Contents) > maxRSLContents {
			t.Fatalf("%d contents", len(rf.Contents))
		}
		n := 0
		for _, c := range rf.Contents {
			n += len(c.Licenses)
			if len(c.URL) > maxRSLText || len(c.Server) > maxRSLText {
				t.Fatal("an attribute past the bound")
			}
		}
		if n > maxRSLLicenses {
			t.Fatalf("%d licenses", n)
		}
		if ps, total := rf.Problems(); len(ps) > maxRSLProblems || total < len(ps) {
			t.Fatalf("problems %d of %d", len(ps), total)
		}
		for _, c := range Categories() {
			for _, e := range rf.Evidence(target, c) {
				if e.Category != c || e.Source.Signal != RSL || e.Source.URL != rf.URL || e.Conditions.Policy != rf.URL {
					t.Fatalf("evidence %+v for %s", e, c)
				}
				if e.Verdict == Allowed && e.Conditions.License == nil || e.Verdict == Disallowed && e.Conditions.License != nil {
					t.Fatalf("evidence %+v: licence terms", e)
				}
				if c == Crawl {
					t.Fatal("RSL spoke of crawl")
				}
			}
		}
	})
}

// FuzzLicenseLinks: Link fields give at most 8 licences, each an absolute
// http(s) URL, and never panic.
func FuzzLicenseLinks(f *testing.F) {
	for _, s := range []string{
		`<https://example.com/license.xml>; rel="license"; type="application/rsl+xml"`,
		`</l.xml>; rel="next license"; type=application/rsl+xml, <https://x/>; rel=license`,
		`<a>;rel="license;type=x", <b>; type="application/rsl+xml; charset=utf-8"; rel=LICENSE`,
		`<https://e/>; rel="lic\"ense"; type="`,
	} {
		f.Add(s)
	}
	base, _ := url.Parse("https://example.com/dir/page")
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{"Link": {v, v}}
		for _, b := range []*url.URL{nil, base} {
			ls := LicenseLinks(h, b)
			if len(ls) > maxRSLLinks {
				t.Fatalf("%d links", len(ls))
			}
			for _, l := range ls {
				if licenseURL(l) != l {
					t.Fatalf("%q is not an absolute http(s) URL", l)
				}
			}
		}
	})
}

// FuzzLicenseChallenge: WWW-Authenticate fields never panic, keep at most
// 16 parameters, and a License challenge is found only when the field
// names the scheme.
func FuzzLicenseChallenge(f *testing.F) {
	for _, s := range []string{
		`License error="invalid_request", error_description="Access to this resource requires a valid license"`,
		`Basic realm="x", License license="https://example.com/license.xml"`,
		`Bearer abc==, License`,
		`License realm="a,b", error=invalid_token, Newauth x=1`,
		`License abc==`,
	} {
		f.Add(s, 402)
	}
	f.Fuzz(func(t *testing.T, v string, status int) {
		resp := &http.Response{StatusCode: status, Header: http.Header{"Www-Authenticate": {v}},
			Request: &http.Request{URL: &url.URL{Scheme: "https", Host: "example.com", Path: "/a"}}}
		err := CheckLicense(resp)
		if err == nil {
			return
		}
		le, ok := err.(*LicenseRequiredError)
		if !ok || status != 401 && status != 402 {
			t.Fatalf("%v for status %d", err, status)
		}
		if len(le.Params) > maxAuthParams {
			t.Fatalf("%d params", len(le.Params))
		}
		if !strings.Contains(strings.ToLower(v), "license") {
			t.Fatalf("a License challenge in %q", v)
		}
		if le.License != "" && licenseURL(le.License) != le.License {
			t.Fatalf("licence %q", le.License)
		}
		_ = le.Error()
	})
}

// robotsLicensesRef is RobotsLicenses as first written, its lines split
// and trimmed with the general functions of package bytes: the oracle of
// FuzzRobotsLicenses.
func robotsLicensesRef(body []byte) []string {
	if len(body) > policy.DefaultMaxSize {
		body = body[:policy.DefaultMaxSize]
	}
	var out []string
	for len(body) > 0 && len(out) < maxRSLLinks {
		line := body
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if u := licenseLine(bytes.TrimLeft(line, " \t\ufeff")); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// FuzzRobotsLicenses: RobotsLicenses finds what the plain reading of the
// lines finds, on any body.
func FuzzRobotsLicenses(f *testing.F) {
	for _, s := range []string{
		"License: https://example.com/license.xml\nUser-agent: *\nDisallow: /x\nlicense : https://cdn.example/l.xml # c\nLicense: /relative.xml\nLicensed: https://no/\n",
		"\ufeff\ufeff  LICENSE:https://a.example/\r\rlicense: https://b.example/x\r\n\tLicense\t:\thttps://c.example/ #",
		"User-agent: *\nDisallow: /\n# License: https://commented.example/\n",
		"L\nLi\nlicensE: https://short.example/\nlicenſe: https://long-s.example/\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, want := RobotsLicenses(body), robotsLicensesRef(body)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("RobotsLicenses(%q) = %q, the plain reading %q", body, got, want)
		}
	})
}

// BenchmarkRobotsLicenses reads a file of many lines that end at CR alone
// (no LF in 500 KiB), where finding each line's end must not scan the rest
// of the body again, and a file of the usual size.
func BenchmarkRobotsLicenses(b *testing.B) {
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"cr-only-500KiB", bytes.Repeat([]byte("Disallow: /a\r"), 500<<10/13)},
		{"usual", []byte("User-agent: *\nDisallow: /search\nDisallow: /cart\nAllow: /\n\nUser-agent: Bot\nDisallow: /\n\nLicense: https://example.com/license.xml\nSitemap: https://example.com/sitemap.xml\n")},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for i := 0; i < b.N; i++ {
				RobotsLicenses(c.body)
			}
		})
	}
}
