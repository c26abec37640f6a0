package usage

import (
	"bytes"
	"strings"
	"testing"
)

// BenchmarkReadHTMLBody: a page with a short head and a 100 KiB body.
func BenchmarkReadHTMLBody(b *testing.B) {
	doc := []byte(`<!doctype html><html><head><title>t</title><meta name="robots" content="max-snippet:50"></head><body>` +
		strings.Repeat(`<p class="x">Lorem ipsum dolor sit amet, <a href="/a">consectetur</a> adipiscing elit.</p>`+"\n", 1200) + `</body></html>`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadHTML(bytes.NewReader(doc), 0); err != nil {
			b.Fatal(err)
		}
	}
}
