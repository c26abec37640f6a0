package usage

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// failAfter returns data, then err for every further read.
type failAfter struct {
	data string
	err  error
}

func (f *failAfter) Read(b []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(b, f.data)
	f.data = f.data[n:]
	return n, nil
}

var errRead = errors.New("connection reset")

func readHTMLString(t *testing.T, s string, limit int64) *Page {
	t.Helper()
	p, err := ReadHTML(strings.NewReader(s), limit)
	if err != nil {
		t.Fatalf("ReadHTML: %v", err)
	}
	return p
}

// Google Search Central, "Using the robots meta tag": the tag belongs in the
// head, and (updated 2026-03-24) Google Search respects one in the body too.
func TestReadHTMLSpecUsingTheRobotsMetaTag(t *testing.T) {
	b, err := os.ReadFile("testdata/xrobots/spec-robots-meta.html")
	if err != nil {
		t.Fatal(err)
	}
	p := readHTMLString(t, string(b), 0)
	want := []Meta{{"robots", "noindex", false}, {"robots", "nosnippet", true}}
	if !reflect.DeepEqual(p.Meta, want) || p.HTMLTruncated {
		t.Errorf("Meta = %v, truncated %v; want %v", p.Meta, p.HTMLTruncated, want)
	}
	if p.Header == nil || len(p.Header) != 0 {
		t.Errorf("Header = %v, want empty", p.Header)
	}
}

// Google Search Central, "Using the robots meta tag": several tags for
// several crawlers; both name and content are case-insensitive. Scripts and
// styles are not markup, and http-equiv="X-Robots-Tag" is not read.
func TestReadHTMLSpecSeveralCrawlers(t *testing.T) {
	b, err := os.ReadFile("testdata/xrobots/googlebot-news.html")
	if err != nil {
		t.Fatal(err)
	}
	p := readHTMLString(t, string(b), 0)
	want := []Meta{
		{"viewport", "width=device-width, initial-scale=1", false},
		{"googlebot", "noindex", false},
		{"googlebot-news", "nosnippet", false},
		{"robots", "max-snippet:20, max-image-preview:large", false},
		{"description", "A page with meta tags for several crawlers", false},
		{"tdm-reservation", "1", false},
	}
	if !reflect.DeepEqual(p.Meta, want) {
		t.Errorf("Meta =\n%v\nwant\n%v", p.Meta, want)
	}
}

func TestReadHTMLNames(t *testing.T) {
	for _, tc := range []struct {
		html string
		want []Meta
	}{
		{`<meta name=" GoogleBot " content=" noindex ">`, []Meta{{"googlebot", "noindex", false}}},
		{`<meta content="noindex" name="robots"/>`, []Meta{{"robots", "noindex", false}}},
		{`<meta name="TDM-Policy" content="https://example.com/policy.json">`, []Meta{{"tdm-policy", "https://example.com/policy.json", false}}},
		{`<meta name="robots" content="noindex&#44;nofollow">`, []Meta{{"robots", "noindex,nofollow", false}}},
		{`<meta name=robots content=noindex>`, []Meta{{"robots", "noindex", false}}},
		{`<meta name="robots" content="noindex" name="googlebot" content="all">`, []Meta{{"robots", "noindex", false}}},
		{`<meta name="robots">`, nil},                               // no content
		{`<meta name="og:title" content="x">`, nil},                 // not a product token
		{`<meta name="google bot" content="noindex">`, nil},         // not a product token
		{`<meta property="robots" content="noindex">`, nil},         // not a name
		{`<meta http-equiv="X-Robots-Tag" content="noindex">`, nil}, // no engine documents it
		{`<!-- <meta name="robots" content="noindex"> -->`, nil},
		{`<title><meta name="robots" content="noindex"></title>`, nil},
		{`<noscript><meta name="robots" content="noindex"></noscript>`, nil},
	} {
		p := readHTMLString(t, "<html><head>"+tc.html+"</head><body></body></html>", 0)
		if !reflect.DeepEqual(p.Meta, tc.want) {
			t.Errorf("%s: Meta = %v, want %v", tc.html, p.Meta, tc.want)
		}
	}
}

// The head ends at <body>, or the start tag of an element that cannot stand
// in a head. A meta tag between </head> and <body> is in the head of the
// document an HTML parser builds (the "after head" insertion mode puts it
// there), and a noscript or div there starts the body, whose robots meta
// tags count too (a noscript's content is text).
func TestReadHTMLMetaAfterHeadEndTag(t *testing.T) {
	for doc, want := range map[string][]Meta{
		`<html><head><title>t</title></head><meta name="robots" content="noindex"><body><p>x`:                      {{"robots", "noindex", false}},
		`<head></head>` + "\n" + `<link rel=icon href=/i><meta name="googlebot" content="nosnippet"></head><body>`: {{"googlebot", "nosnippet", false}},
		`<head></head><noscript><meta name="robots" content="noindex"></noscript>`:                                 nil,
		`<head></head><div><meta name="robots" content="noindex">`:                                                 {{"robots", "noindex", true}},
	} {
		p := readHTMLString(t, doc, 0)
		if !reflect.DeepEqual(p.Meta, want) {
			t.Errorf("%s: Meta = %v, want %v", doc, p.Meta, want)
		}
	}
}

// Google Search Central (updated 2026-03-24): Google Search respects robots
// meta tags in the body. They are read wherever the body holds them, up to
// the bound; TDMRep's tags count in the head only.
func TestReadHTMLBodyRobotsMeta(t *testing.T) {
	for doc, want := range map[string][]Meta{
		`<html><head><meta name="robots" content="noindex"></head><body><meta name="googlebot" content="nosnippet">`:   {{"robots", "noindex", false}, {"googlebot", "nosnippet", true}},
		`<meta name="robots" content="noindex"><div><p>x</p><meta name="robots" content="noarchive"></div>`:            {{"robots", "noindex", false}, {"robots", "noarchive", true}},
		`<meta name="robots" content="noindex"></html><meta name="robots" content="noai">`:                             {{"robots", "noindex", false}, {"robots", "noai", true}},
		`<body><meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://e/p">`:                nil,
		`<body><script>"<meta name=robots content=noindex>"</script><textarea><meta name=robots content=x></textarea>`: nil,
	} {
		p := readHTMLString(t, doc, 0)
		if !reflect.DeepEqual(p.Meta, want) || p.HTMLTruncated {
			t.Errorf("%s: Meta = %v, truncated %v; want %v", doc, p.Meta, p.HTMLTruncated, want)
		}
	}
	// A read error in the body is returned, with the head's tags.
	p, err := ReadHTML(&failAfter{data: `<meta name="robots" content="noindex"><body><p>`, err: errRead}, 0)
	if !errors.Is(err, errRead) || len(p.Meta) != 1 {
		t.Errorf("error in the body: %v, %v", err, p.Meta)
	}
}

func TestReadHTMLLimit(t *testing.T) {
	script := "<script>" + strings.Repeat("x", 300<<10) + "</script>"
	doc := `<html><head><meta name="googlebot" content="nosnippet">` + script + `<meta name="robots" content="noindex"></head><body>` + strings.Repeat("y", 1<<20)
	for _, tc := range []struct {
		limit, max int64
		truncated  bool
		n          int
	}{
		{0, DefaultMaxHTMLBytes, true, 1},
		{-1, DefaultMaxHTMLBytes, true, 1},
		{100, 100, true, 1},
		{20, 20, true, 0},
		{400 << 10, 400 << 10, true, 2}, // the body runs past the bound
	} {
		cr := &countingReader{r: strings.NewReader(doc)}
		p, err := ReadHTML(cr, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if cr.n > tc.max {
			t.Errorf("limit %d: read %d bytes, more than %d", tc.limit, cr.n, tc.max)
		}
		if p.HTMLTruncated != tc.truncated || len(p.Meta) != tc.n {
			t.Errorf("limit %d: truncated %v with %d meta tags, want %v with %d", tc.limit, p.HTMLTruncated, len(p.Meta), tc.truncated, tc.n)
		}
	}
	// A document that ends, head and all, within the limit is not truncated.
	if p := readHTMLString(t, `<meta name="robots" content="noindex">`, 1000); p.HTMLTruncated {
		t.Error("short document reported truncated")
	}
}

func TestReadHTMLMaxMeta(t *testing.T) {
	doc := strings.Repeat(`<meta name="robots" content="all">`, maxHTMLMeta+10)
	p := readHTMLString(t, doc, int64(len(doc)+1))
	if len(p.Meta) != maxHTMLMeta || !p.HTMLTruncated {
		t.Errorf("%d meta tags, truncated %v; want %d, true", len(p.Meta), p.HTMLTruncated, maxHTMLMeta)
	}
	long := `<meta name="robots" content="` + strings.Repeat("a", 2*maxHTMLContent) + `">`
	p = readHTMLString(t, long, 0)
	if len(p.Meta) != 1 || len(p.Meta[0].Content) != maxHTMLContent {
		t.Errorf("long content: %d tags", len(p.Meta))
	}
}

// A read error is returned, wrapped, with what was read before it.
func TestReadHTMLError(t *testing.T) {
	p, err := ReadHTML(&failAfter{data: `<head><meta name="robots" content="noindex"><meta name="x"`, err: errRead}, 0)
	if !errors.Is(err, errRead) || !strings.HasPrefix(err.Error(), "robotsguard: ") {
		t.Errorf("err = %v, want a robotsguard: error wrapping %v", err, errRead)
	}
	if want := []Meta{{"robots", "noindex", false}}; p == nil || !reflect.DeepEqual(p.Meta, want) {
		t.Errorf("page = %+v, want the meta tags read before the error", p)
	}
}

func FuzzReadHTML(f *testing.F) {
	for _, name := range []string{"testdata/xrobots/spec-robots-meta.html", "testdata/xrobots/googlebot-news.html"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(0))
		f.Add(b, uint16(100))
	}
	f.Add([]byte(`<html><head><meta name="googlebot" content="noindex"><meta name="googlebot-news" content="nosnippet"></head>`), uint16(50))
	f.Add([]byte(`<meta name="robots" content="noindex"><script>"</head>"</script><meta name=googlebot content=nosnippet>`), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		cr := &countingReader{r: bytes.NewReader(data)}
		p, err := ReadHTML(cr, int64(limit))
		if err != nil {
			t.Fatal(err)
		}
		max := int64(limit)
		if max == 0 {
			max = DefaultMaxHTMLBytes
		}
		if cr.n > max {
			t.Fatalf("read %d bytes, limit %d", cr.n, max)
		}
		if len(p.Meta) > maxHTMLMeta {
			t.Fatalf("%d meta tags", len(p.Meta))
		}
		for _, m := range p.Meta {
			if !signalMetaName(m.Name) || m.Name != strings.ToLower(m.Name) || len(m.Content) > maxHTMLContent ||
				m.InBody && strings.HasPrefix(m.Name, "tdm-") {
				t.Fatalf("meta %v", m)
			}
		}
		// Every meta tag read stands in the document, and the body's
		// search finds all of them: a document with no "<meta" has none.
		if !hasMetaTag(data) && len(p.Meta) > 0 {
			t.Fatalf("meta tags %v in a document without one", p.Meta)
		}
		// A naive reading: a document that opens with a robots meta tag
		// has it first.
		if bytes.HasPrefix(data, []byte(`<meta name="robots" content="noindex">`)) && (limit == 0 || limit >= 64) {
			if len(p.Meta) == 0 || p.Meta[0] != (Meta{"robots", "noindex", false}) {
				t.Fatalf("leading robots tag not read: %v", p.Meta)
			}
		}
		// ReadResponse puts back exactly what it read.
		resp := &http.Response{Header: http.Header{"Content-Type": {"text/html"}}, Body: io.NopCloser(bytes.NewReader(data))}
		p2, err := ReadResponse(resp, true)
		if err != nil {
			t.Fatal(err)
		}
		back, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("body read back differs (%v)", err)
		}
		if limit == 0 && !reflect.DeepEqual(p.Meta, p2.Meta) {
			t.Fatalf("ReadHTML %v, ReadResponse %v", p.Meta, p2.Meta)
		}
	})
}

func BenchmarkReadHTML(b *testing.B) {
	doc, err := os.ReadFile("testdata/xrobots/googlebot-news.html")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadHTML(bytes.NewReader(doc), 0); err != nil {
			b.Fatal(err)
		}
	}
}
