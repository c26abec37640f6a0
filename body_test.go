package robotsguard_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/robotstest"
)

const codedRules = "User-agent: *\nDisallow: /private\n"

// compressed returns s written through the writer that newWriter makes.
func compressed(newWriter func(io.Writer) io.WriteCloser, s string) []byte {
	var b bytes.Buffer
	w := newWriter(&b)
	io.WriteString(w, s)
	w.Close()
	return b.Bytes()
}

func gzipped(s string) []byte {
	return compressed(func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }, s)
}

func zlibbed(s string) []byte {
	return compressed(func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }, s)
}

func deflated(s string) []byte {
	return compressed(func(w io.Writer) io.WriteCloser { fw, _ := flate.NewWriter(w, flate.DefaultCompression); return fw }, s)
}

// coded serves body with the given Content-Encoding, whatever the request
// asked for, as misconfigured servers and CDNs do.
func coded(encoding string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", encoding)
		w.Write(body)
	}
}

// TestContentCodings: a robots.txt whose content coding was not undone on
// the way (Base with compression off) is decoded when it can be; else it
// is unreachable. Read as text, it would hold no rules and allow
// everything.
func TestContentCodings(t *testing.T) {
	tests := []struct {
		name    string
		robots  http.HandlerFunc
		refused robotsguard.Reason // of /private
	}{
		{"gzip", coded("gzip", gzipped(codedRules)), robotsguard.ReasonRule},
		{"x-gzip", coded("x-gzip", gzipped(codedRules)), robotsguard.ReasonRule},
		{"deflate (zlib)", coded("deflate", zlibbed(codedRules)), robotsguard.ReasonRule},
		{"deflate (raw)", coded("deflate", deflated(codedRules)), robotsguard.ReasonRule},
		{"gzip twice", coded("gzip, gzip", gzipped(string(gzipped(codedRules)))), robotsguard.ReasonRule},
		{"identity", coded("identity", []byte(codedRules)), robotsguard.ReasonRule},
		{"br", coded("br", []byte("\x1b\x20\x00\xf8\xa5\x40\x02")), robotsguard.ReasonUnreachable},
		{"zstd", coded("zstd", []byte("\x28\xb5\x2f\xfd")), robotsguard.ReasonUnreachable},
		{"gzip that is not", coded("gzip", []byte(codedRules)), robotsguard.ReasonUnreachable},
		{"truncated gzip", coded("gzip", gzipped(codedRules)[:20]), robotsguard.ReasonUnreachable},
		{"three codings", coded("gzip, gzip, gzip", gzipped(string(gzipped(string(gzipped(codedRules)))))), robotsguard.ReasonUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(tr *robotsguard.Transport) {
				tr.Base = &http.Transport{DisableCompression: true}
				tr.RetryMax = -1
			})
			s := h.origin("")
			s.Fault("/robots.txt", robotstest.Handler(tc.robots))
			h.refused(s.URL+"/private", tc.refused)
			if n := count(s, "/private"); n != 0 {
				t.Errorf("origin got %d disallowed requests", n)
			}
		})
	}
}

// TestGzipBomb: a compressed robots.txt is read up to the size limit once
// decoded, whatever it would grow to.
func TestGzipBomb(t *testing.T) {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	io.WriteString(w, "User-agent: *\nDisallow: /early\n")
	zeros := make([]byte, 1<<20)
	for range 32 { // 32 MiB of comment bytes, 32 KiB compressed
		w.Write(zeros)
	}
	io.WriteString(w, "\nDisallow: /late\n")
	w.Close()
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Base = &http.Transport{DisableCompression: true} })
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(coded("gzip", b.Bytes())))
	h.refused(s.URL+"/early", robotsguard.ReasonRule)
	h.allowed(s.URL + "/late")
	snap := robotsOf(t, h, s.URL)
	if !snap.Rules.Truncated() {
		t.Error("the decoded body was not cut at the size limit")
	}
}

// TestTransparentGzip: with compression on (the default), net/http
// decodes a gzip body itself, and the rules apply.
func TestTransparentGzip(t *testing.T) {
	h := newHarness(t)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, codedRules)
			return
		}
		coded("gzip", gzipped(codedRules))(w, r)
	}))
	h.refused(s.URL+"/private", robotsguard.ReasonRule)
}

// TestBodyCap: only the parser's size limit of a robots.txt is read; a
// body that never ends does not hang the fetch, and rules past the limit
// are not applied.
func TestBodyCap(t *testing.T) {
	const total = 1 << 30 // what the server would send if it were read to the end
	type wrote struct {
		n   int64
		err error // the write that failed, nil if all of total went out
	}
	result := make(chan wrote, 1)
	h := newHarness(t)
	s := h.origin("")
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		// A client that stops reading without hanging up would block a
		// write for good: the deadline bounds the handler whatever the
		// Transport does.
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))
		// The first write holds a rule, 500 KiB of comments, a rule just
		// past them, and more comments: all of it in the stream before the
		// client can have read 500 KiB.
		var b strings.Builder
		b.WriteString("User-agent: *\nDisallow: /early\n")
		line := strings.Repeat("#", 1023) + "\n"
		for b.Len() < policy.DefaultMaxSize {
			b.WriteString(line)
		}
		b.WriteString("Disallow: /late\n")
		for b.Len() < 600<<10 {
			b.WriteString(line)
		}
		n, err := io.WriteString(w, b.String())
		written := int64(n)
		block := strings.Repeat(line, 64)
		for err == nil && written < total { // at most total/64 KiB writes
			n, err = io.WriteString(w, block)
			written += int64(n)
		}
		result <- wrote{written, err}
	}))
	h.refused(s.URL+"/early", robotsguard.ReasonRule)
	h.allowed(s.URL + "/late")
	got := <-result
	if got.err == nil {
		t.Errorf("the server wrote all of its %d bytes: the body was read to the end", got.n)
	}
	if errors.Is(got.err, os.ErrDeadlineExceeded) {
		t.Errorf("the server's writes blocked after %d bytes: the client stopped reading without hanging up", got.n)
	}
	if got.n >= total {
		t.Errorf("the server wrote %d bytes, want the client to hang up before %d", got.n, total)
	}
}
