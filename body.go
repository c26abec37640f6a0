package robotsguard

import (
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// maxCodings is the number of content codings a robots.txt may be served
// with, one over another.
const maxCodings = 2

// readBody reads at most max+1 bytes of the body of resp, a robots.txt
// response, so that the parser knows when the file was cut: the rest is
// never downloaded. A body with content codings that were not undone on
// the way (Base with compression off, or a coding it does not handle) is
// decoded when the coding is gzip or deflate, within the same bound, and
// what the decoder reads is bounded too. Any other coding is an error: the
// body cannot be read as text, and read anyway it would hold no rules and
// allow everything.
func readBody(resp *http.Response, max int) ([]byte, error) {
	codings := contentCodings(resp)
	if len(codings) > maxCodings {
		return nil, fmt.Errorf("robotsguard: robots.txt served with %d content codings (%s), more than %d", len(codings), strings.Join(codings, ", "), maxCodings)
	}
	// A compressed file is smaller than the file, except for a few bytes
	// of framing: so much compressed input is enough for max bytes of
	// text, and no more is read whatever the decoder asks.
	var r io.Reader = io.LimitReader(resp.Body, int64(max)+int64(max)/8+4096)
	if len(codings) == 0 {
		r = resp.Body
	}
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	for i := len(codings) - 1; i >= 0; i-- { // the last coding applied is undone first
		switch codings[i] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, fmt.Errorf("robotsguard: reading gzip-coded robots.txt: %w", err)
			}
			closers = append(closers, zr)
			r = zr
		case "deflate":
			dr, err := deflateReader(r)
			if err != nil {
				return nil, fmt.Errorf("robotsguard: reading deflate-coded robots.txt: %w", err)
			}
			closers = append(closers, dr)
			r = dr
		default:
			return nil, fmt.Errorf("robotsguard: robots.txt served with content coding %q, which cannot be decoded", codings[i])
		}
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		if len(codings) > 0 && !errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("decoding %s: %w", strings.Join(codings, ", "), err)
		}
		return nil, fmt.Errorf("robotsguard: reading body: %w", err)
	}
	return b, nil
}

// contentCodings returns the content codings of resp's body, in the order
// they were applied, without identity: none when the body was decoded on
// the way (net/http's transparent gzip sets Uncompressed).
func contentCodings(resp *http.Response) []string {
	if resp.Uncompressed {
		return nil
	}
	var out []string
	for _, v := range resp.Header.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

// deflateReader reads the "deflate" content coding, which RFC 9110
// §8.4.1.2 defines as a zlib stream; some servers send raw deflate data
// instead, which is read as such.
func deflateReader(r io.Reader) (io.ReadCloser, error) {
	var head [2]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && n == 0 {
		return nil, err
	}
	r = io.MultiReader(strings.NewReader(string(head[:n])), r)
	// A zlib header: compression method 8, and a check over both bytes.
	if n == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(r)
	}
	return flate.NewReader(r), nil
}

// readBody reads the body of resp as readBody does. A body without content
// codings is read into one buffer: of the size it says, when it says one,
// grown when the server sends more or does not say. The buffer is buf's,
// when buf is not nil, and buf then holds it (grown) for putBodyBuf.
func (t *Transport) readBody(resp *http.Response, buf *[]byte) ([]byte, error) {
	limit := t.maxSize()
	n := resp.ContentLength
	if n > int64(limit) || len(resp.Header["Content-Encoding"]) > 0 && !resp.Uncompressed {
		return readBody(resp, limit)
	}
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	switch {
	case int64(cap(b)) <= n:
		b = make([]byte, 0, n+1) // room to see the end without growing
	case cap(b) == 0:
		b = make([]byte, 0, 512)
	}
	for len(b) <= limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the server sent more than it said
		}
		m, err := resp.Body.Read(b[len(b):min(cap(b), limit+1)])
		b = b[:len(b)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("robotsguard: reading body: %w", err)
		}
	}
	if buf != nil {
		*buf = b[:0]
	}
	return b, nil
}

// bodyBufs holds the buffers that the bodies of robots.txt files are read
// into when no state keeps them: the state of a file keeps its parsed
// rules, so that its body is garbage once parsed. Buffers larger than
// maxBodyBuf are left to the collector.
var bodyBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxBodyBuf = 64 << 10

// getBodyBuf returns a buffer of bodyBufs.
func getBodyBuf() *[]byte { return bodyBufs.Get().(*[]byte) }

// putBodyBuf gives buf, whose contents nothing holds any more, back to
// bodyBufs. A nil buf is ignored.
func putBodyBuf(buf *[]byte) {
	if buf == nil {
		return
	}
	if cap(*buf) > maxBodyBuf {
		*buf = nil
	}
	bodyBufs.Put(buf)
}
