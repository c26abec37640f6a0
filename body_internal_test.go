package robotsguard

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"
)

// FuzzReadBody: a robots.txt body, with any content codings, never panics
// the reader and never yields more than the size limit and one byte.
func FuzzReadBody(f *testing.F) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	io.WriteString(w, "User-agent: *\nDisallow: /x\n")
	w.Close()
	f.Add("gzip", gz.Bytes())
	f.Add("deflate", []byte("x\x9c+-N-\xd2MLO\xcd+\xb1R\xd0\xe2\x02\x00"))
	f.Add("deflate, gzip", gz.Bytes())
	f.Add("identity", []byte("User-agent: *\n"))
	f.Add("br", []byte{0x1b})
	f.Fuzz(func(t *testing.T, coding string, body []byte) {
		const max = 1 << 10
		resp := &http.Response{Header: http.Header{"Content-Encoding": {coding}}, Body: io.NopCloser(bytes.NewReader(body))}
		b, err := readBody(resp, max)
		if err == nil && len(b) > max+1 {
			t.Fatalf("read %d bytes, limit %d", len(b), max+1)
		}
		if err != nil && b != nil {
			t.Fatalf("bytes with an error: %v", err)
		}
		if len(contentCodings(resp)) == 0 && err == nil && !bytes.Equal(b, body[:min(len(body), max+1)]) {
			t.Fatal("an uncoded body was changed")
		}
	})
}
