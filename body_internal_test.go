package robotsguard

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
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

// TestBodyBufferNotShared: the body a state keeps whole is its own, also
// when keeping bodies whole began while it was read into a buffer that a
// dropped body gives back.
func TestBodyBufferNotShared(t *testing.T) {
	var tr *Transport
	bodies := map[string][]byte{}
	base := roundTripper(func(req *http.Request) (*http.Response, error) {
		body := bodies[req.URL.Host]
		if req.URL.Path != "/robots.txt" {
			body = []byte("ok")
		}
		var r io.Reader = bytes.NewReader(body)
		if req.URL.Host == "o10.example" {
			// Served robots.txt files are kept whole from the end of
			// this body on, as after a first request for a /robots.txt.
			r = io.MultiReader(r, flipReader{&tr.servesRobots})
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Cache-Control": {"max-age=86400"}},
			Body: io.NopCloser(r), ContentLength: int64(len(body)), Request: req}, nil
	})
	for i := range 20 {
		bodies[fmt.Sprintf("o%d.example", i)] = robotsOfSize(200+40*i, i)
	}
	tr = &Transport{Base: base, UserAgent: "TestBot/1.0"}
	crawlOrigins(t, tr, 20)
	// Another Transport's fetches take the buffers given back.
	crawlOrigins(t, &Transport{Base: memRoundTripper{bytes.Repeat([]byte("#"), 100)}, UserAgent: "TestBot/1.0"}, 20)
	for i := range 20 {
		host := fmt.Sprintf("o%d.example", i)
		st := tr.cached(stateKey{origin: origin{host: host}})
		if i < 10 {
			if !st.bodyless {
				t.Errorf("%s: body kept, want dropped", host)
			}
			continue
		}
		if e, whole := st.whole(); !whole || !bytes.Equal(e.Body, bodies[host]) {
			t.Errorf("%s: body %q (whole %v), want %q", host, e.Body, whole, bodies[host])
		}
	}
}

// flipReader sets b at its end, which it is.
type flipReader struct{ b *atomic.Bool }

func (f flipReader) Read([]byte) (int, error) {
	f.b.Store(true)
	return 0, io.EOF
}
