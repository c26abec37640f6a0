package usage

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// closeCounter is a body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func TestReadResponseServer(t *testing.T) {
	body := `<!DOCTYPE html><html><head><meta name="robots" content="noindex"></head><body>` +
		strings.Repeat("<p>text</p>\n", 50000) + `</body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Add("X-Robots-Tag", "googlebot: nosnippet")
		w.Header().Set("Server", "test")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/page?q=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p, err := ReadResponse(resp, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != srv.URL+"/page?q=1" {
		t.Errorf("URL = %q", p.URL)
	}
	if want := []string{"googlebot: nosnippet"}; !reflect.DeepEqual(p.Header.Values("X-Robots-Tag"), want) || p.Header.Get("Server") != "" {
		t.Errorf("Header = %v", p.Header)
	}
	if want := []Meta{{"robots", "noindex", false}}; !reflect.DeepEqual(p.Meta, want) {
		t.Errorf("Meta = %v, want %v", p.Meta, want)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != body {
		t.Errorf("the caller read %d bytes after ReadResponse, not the %d of the body", len(got), len(body))
	}
}

// The caller reads exactly the original body after ReadResponse, whatever its
// length against the bound, and Close closes the original body once.
func TestReadResponseRestoresBody(t *testing.T) {
	for _, n := range []int{0, 10, DefaultMaxHTMLBytes - 1, DefaultMaxHTMLBytes, DefaultMaxHTMLBytes + 1, 3 * DefaultMaxHTMLBytes} {
		body := make([]byte, n)
		for i := range body {
			body[i] = "<head>meta robots x\n"[i%20]
		}
		orig := &closeCounter{Reader: bytes.NewReader(body)}
		resp := &http.Response{
			Header: http.Header{"Content-Type": {"text/html"}},
			Body:   orig,
		}
		if _, err := ReadResponse(resp, true); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%d bytes: read %d bytes back (err %v)", n, len(got), err)
		}
		if err := resp.Body.Close(); err != nil || orig.closed != 1 {
			t.Errorf("%d bytes: Close closed the original %d times (err %v)", n, orig.closed, err)
		}
	}
}

// The body is left alone when html is false, or the response is not an HTML
// document the client can read as is.
func TestReadResponseLeavesBody(t *testing.T) {
	for _, tc := range []struct {
		html   bool
		header http.Header
	}{
		{false, http.Header{"Content-Type": {"text/html"}}},
		{true, http.Header{"Content-Type": {"application/pdf"}}},
		{true, http.Header{}},
		{true, http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}},
		{true, http.Header{"Content-Type": {"text/plain"}}},
	} {
		orig := &closeCounter{Reader: strings.NewReader(`<meta name="robots" content="noindex">`)}
		resp := &http.Response{Header: tc.header, Body: orig}
		p, err := ReadResponse(resp, tc.html)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Body != io.ReadCloser(orig) || len(p.Meta) != 0 {
			t.Errorf("html %v, %v: body replaced or read (%v)", tc.html, tc.header, p.Meta)
		}
	}
	for _, ct := range []string{"text/html", "TEXT/HTML; charset=iso-8859-1", "application/xhtml+xml", "text/html; charset", "text/html"} {
		h := http.Header{"Content-Type": {ct}, "Content-Encoding": {"identity"}}
		if !htmlResponse(h) {
			t.Errorf("%q, identity: not read as HTML", ct)
		}
	}
	// No body at all.
	if p, err := ReadResponse(&http.Response{Header: http.Header{"Content-Type": {"text/html"}}}, true); err != nil || len(p.Meta) != 0 {
		t.Errorf("no body: %v, %v", p, err)
	}
}

// A body error is returned, wrapped, with the page read so far; the bytes
// read before it are put back, and the error comes after them.
func TestReadResponseBodyError(t *testing.T) {
	data := `<html><head><meta name="robots" content="noarchive"><meta name=`
	resp := &http.Response{
		Header: http.Header{"Content-Type": {"text/html"}},
		Body:   io.NopCloser(&failAfter{data: data, err: errRead}),
	}
	p, err := ReadResponse(resp, true)
	if !errors.Is(err, errRead) || !strings.HasPrefix(err.Error(), "robotsguard: ") || strings.Count(err.Error(), "robotsguard:") != 1 {
		t.Errorf("err = %v, want a robotsguard: error wrapping %v", err, errRead)
	}
	if want := []Meta{{"robots", "noarchive", false}}; !reflect.DeepEqual(p.Meta, want) {
		t.Errorf("Meta = %v, want %v", p.Meta, want)
	}
	got, err := io.ReadAll(resp.Body)
	if string(got) != data || !errors.Is(err, errRead) {
		t.Errorf("read back %q, %v; want %q, %v", got, err, data, errRead)
	}
}
