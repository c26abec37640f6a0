package usage

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// rslDoc is an RSL 1.0 licence file: the site's articles free for search
// and AI input, training on the research section paid, and AI training
// prohibited elsewhere.
const rslDoc = `<?xml version="1.0" encoding="UTF-8"?>
<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license>
      <permits type="usage">search ai-input</permits>
      <prohibits type="usage">ai-train</prohibits>
      <payment type="free"/>
    </license>
  </content>
  <content url="/research/" server="https://olp.example.com">
    <license>
      <permits type="usage">ai-train</permits>
      <permits type="user">non-commercial</permits>
      <prohibits type="geo">XX</prohibits>
      <payment type="training">
        <amount currency="USD">10.00</amount>
        <standard>https://example.com/terms</standard>
      </payment>
    </license>
  </content>
</rsl>`

func TestRSLEvidence(t *testing.T) {
	f, err := ParseRSL([]byte(rslDoc), "https://example.com/license.xml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		target string
		c      Category
		want   Verdict
		terms  string
	}{
		{"/news/1", Search, Allowed, "policy=https://example.com/license.xml rsl-payment=free"},
		{"https://example.com/news/1", AIInput, Allowed, "policy=https://example.com/license.xml rsl-payment=free"},
		{"/news/1", TrainAI, Disallowed, "policy=https://example.com/license.xml"},
		{"/news/1", Archive, Unknown, ""}, // neither permitted nor prohibited
		{"/news/1", Crawl, Unknown, ""},   // robots.txt's question
		// The longest matching content decides: training is paid there.
		{"/research/paper", TrainAI, Allowed, "policy=https://example.com/license.xml rsl-payment=training rsl-amount=10.00 USD rsl-standard=https://example.com/terms rsl-server=https://olp.example.com rsl-user=non-commercial rsl-geo-not=xx"},
		{"/research/paper", Search, Unknown, ""},
	}
	for _, tt := range tests {
		d := Decide(Query{Agent: "FooBot", URL: tt.target, Category: tt.c}, &Site{RSL: []*RSLFile{f}}, nil)
		if d.Verdict != tt.want || strings.Join(d.Conditions.Terms(), " ") != tt.terms {
			t.Errorf("%s %s: %s %q, want %s %q", tt.target, tt.c, d.Verdict, d.Conditions.Terms(), tt.want, tt.terms)
		}
		if tt.want != Unknown && d.Decisive.Source.Signal != RSL {
			t.Errorf("%s %s: decided by %v", tt.target, tt.c, d.Decisive.Source)
		}
	}
	d := Decide(Query{URL: "/x", Category: TrainAI}, &Site{RSL: []*RSLFile{f}}, nil)
	if got, want := d.String(), `train-ai disallowed by https://example.com/license.xml content 1 "<content url=\"/\"> prohibits ai-train"`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if !d.Conditions.License.Free() {
		t.Error("no terms should read as free")
	}
}

func TestRSLVocabulary(t *testing.T) {
	for _, tt := range []struct {
		value string
		c     Category
		want  Verdict
	}{
		{"all", Archive, Disallowed},
		{"all", Crawl, Unknown},
		{"ai-all", TrainAI, Disallowed},
		{"ai-all", AIInput, Disallowed},
		{"ai-all", Search, Unknown},
		{"ai-index", AIInput, Unknown}, // no category of ours
		{"train-ai", TrainAI, Unknown}, // an aipref label, not RSL's
		{"search, ai-train", TrainAI, Disallowed},
		{"SEARCH", Search, Disallowed},
	} {
		doc := `<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><prohibits type="usage">` + tt.value + `</prohibits></license></content></rsl>`
		f, err := ParseRSL([]byte(doc), "")
		if err != nil {
			t.Fatal(err)
		}
		if d := Decide(Query{URL: "/", Category: tt.c}, &Site{RSL: []*RSLFile{f}}, nil); d.Verdict != tt.want {
			t.Errorf("prohibits %q, %s: %s, want %s", tt.value, tt.c, d.Verdict, tt.want)
		}
	}
}

func TestParseRSLForms(t *testing.T) {
	feed := `<rss version="2.0" xmlns:rsl="https://rslstandard.org/rsl"><channel><item>
<title>t</title><rsl:content url="https://example.com/a"><rsl:license><rsl:prohibits type="usage">ai-train</rsl:prohibits></rsl:license></rsl:content>
</item></channel></rss>`
	f, err := ParseRSL([]byte(feed), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Content("https://example.com/a"); !ok {
		t.Error("a feed's content is not read")
	}
	if _, ok := f.Content("https://other.example/a"); ok {
		t.Error("a full URL matched another host")
	}
	if _, err := ParseRSL([]byte("<html><body>no</body></html>"), ""); !errors.Is(err, ErrRSL) {
		t.Errorf("an HTML page: %v", err)
	}
	if _, err := ParseRSL([]byte(`<rsl xmlns="https://rslstandard.org/rsl"><content url="/"`), ""); !errors.Is(err, ErrRSL) {
		t.Errorf("broken XML: %v", err)
	}
	// Bounds: a deep document is refused, a long one read in part.
	deep := `<rsl xmlns="https://rslstandard.org/rsl">` + strings.Repeat("<x>", 100) + strings.Repeat("</x>", 100) + `</rsl>`
	if _, err := ParseRSL([]byte(deep), ""); !errors.Is(err, ErrRSL) {
		t.Errorf("deep: %v", err)
	}
	// Contents past the bound are skipped whole, however many: the document
	// does not break off.
	many := `<rsl xmlns="https://rslstandard.org/rsl">` + strings.Repeat(`<content url="/"><license><permits>search</permits></license></content>`, maxRSLContents+100) + `</rsl>`
	f, err = ParseRSL([]byte(many), "")
	if err != nil || len(f.Contents) != maxRSLContents {
		t.Fatalf("many: %v, %d contents", err, len(f.Contents))
	}
	if ps, n := f.Problems(); n != 100 || len(ps) != maxRSLProblems || !strings.HasPrefix(ps[0], "more than 1024 <content>") {
		t.Errorf("many: %d problems (%d kept)", n, len(ps))
	}
}

func TestRobotsLicenses(t *testing.T) {
	body := "License: https://example.com/license.xml\nUser-agent: *\nDisallow: /x\nlicense : https://cdn.example/l.xml # c\nLicense: /relative.xml\nLicensed: https://no/\n"
	want := []string{"https://example.com/license.xml", "https://cdn.example/l.xml"}
	if got := RobotsLicenses([]byte(body)); !reflect.DeepEqual(got, want) {
		t.Errorf("RobotsLicenses = %q, want %q", got, want)
	}
	if got := RobotsLicenses([]byte("User-agent: *\nDisallow:\n")); got != nil {
		t.Errorf("no License line: %q", got)
	}
}

func TestLicenseLinks(t *testing.T) {
	h := http.Header{"Link": {
		`<https://example.com/a.css>; rel=stylesheet, </license.xml>; rel="license"; type="application/rsl+xml"`,
		`<https://creativecommons.org/licenses/by/4.0/>; rel="license"`, // not RSL
	}}
	base, _ := url.Parse("https://example.com/dir/page")
	if got, want := LicenseLinks(h, base), []string{"https://example.com/license.xml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("LicenseLinks = %q, want %q", got, want)
	}
	if got := LicenseLinks(h, nil); got != nil {
		t.Errorf("a relative link without a base: %q", got)
	}
}

func TestCheckLicense(t *testing.T) {
	req := &http.Request{URL: &url.URL{Scheme: "https", Host: "example.com", Path: "/a"}}
	resp := &http.Response{StatusCode: 402, Request: req, Header: http.Header{
		"Www-Authenticate": {`Basic realm="x", License error="invalid_request", error_description="Access requires a license"`},
		"Link":             {`<https://example.com/license.xml>; rel="license"; type="application/rsl+xml"`},
	}}
	err := CheckLicense(resp)
	var le *LicenseRequiredError
	if !errors.As(err, &le) || !errors.Is(err, ErrLicenseRequired) {
		t.Fatalf("CheckLicense = %v", err)
	}
	if le.License != "https://example.com/license.xml" || le.Params["error"] != "invalid_request" || le.Status != 402 {
		t.Errorf("%+v", le)
	}
	if got, want := err.Error(), "robotsguard: https://example.com/a: status 402: an RSL licence token is required (WWW-Authenticate: License); licence https://example.com/license.xml: Access requires a license"; got != want {
		t.Errorf("Error() = %s\nwant %s", got, want)
	}
	for _, r := range []*http.Response{
		{StatusCode: 403, Header: resp.Header},
		{StatusCode: 401, Header: http.Header{"Www-Authenticate": {`Basic realm="license"`}}},
	} {
		if err := CheckLicense(r); err != nil {
			t.Errorf("status %d %q: %v", r.StatusCode, r.Header.Get("Www-Authenticate"), err)
		}
	}
	// The challenge's own license parameter, when no Link names one.
	r := &http.Response{StatusCode: 401, Request: req, Header: http.Header{"Www-Authenticate": {`License license="/license.xml"`}}}
	if errors.As(CheckLicense(r), &le); le.License != "https://example.com/license.xml" {
		t.Errorf("license parameter: %q", le.License)
	}
}

func TestSetLicenseToken(t *testing.T) {
	h := http.Header{}
	if err := SetLicenseToken(h, "eyJhbGciOi.J9-_x=="); err != nil || h.Get("Authorization") != "License eyJhbGciOi.J9-_x==" {
		t.Errorf("%v %q", err, h.Get("Authorization"))
	}
	for _, bad := range []string{"", "a b", "a\r\nX: y", "==", "a=b"} {
		if err := SetLicenseToken(http.Header{}, bad); !errors.Is(err, ErrLicenseToken) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
