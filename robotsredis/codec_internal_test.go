package robotsredis

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/cache"
)

// corpusEntries returns entries, in the root's encoding, of the robots.txt
// files of the shared corpus's robots/ (nil when it is not there), each
// with the caching fields a response commonly carries.
func corpusEntries(t testing.TB) [][]byte {
	files, _ := filepath.Glob("../../shared/corpus/robots/*.txt")
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entryOf(t, b))
	}
	return out
}

func entryOf(t testing.TB, body []byte) []byte {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	e := &cache.Entry{Status: 200, Body: body, Requested: now, Received: now.Add(80 * time.Millisecond),
		Header: http.Header{"Cache-Control": {"max-age=86400"}, "Date": {now.Format(http.TimeFormat)},
			"Last-Modified": {now.Add(-900 * time.Hour).Format(http.TimeFormat)}, "Etag": {`"5e1f-61a2b3c4d5e6f"`}}}
	b, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValueRoundTrip: every entry decodes to itself, compressed when that
// makes it shorter, and stored as it is when too long to compress. The
// corpus's files, all of them unless -short.
func TestValueRoundTrip(t *testing.T) {
	entries := corpusEntries(t)
	if testing.Short() { // as CI runs it under the race detector: one file in 16
		for i := range len(entries) / 16 {
			entries[i] = entries[i*16]
		}
		entries = entries[:len(entries)/16]
	}
	entries = append(entries, nil, []byte("RG"), []byte("x"), entryOf(t, nil),
		entryOf(t, bytes.Repeat([]byte("Disallow: /a\n"), maxEntry/13)), // over maxEntry
		bytes.Repeat([]byte{0}, maxEntry))
	var in, out int
	for _, e := range entries {
		v := encodeValue(e)
		if !bytes.HasPrefix(v, []byte(valueMagic)) {
			t.Fatalf("%q… stored without the header", v[:min(len(v), 8)])
		}
		if v[2] == formatFlate && len(e) > maxEntry {
			t.Errorf("an entry of %d bytes deflated: it would not decode", len(e))
		}
		if len(e) > 64 && len(e) <= maxEntry && v[2] != formatFlate {
			t.Errorf("an entry of %d bytes stored as it is", len(e))
		}
		d, err := decodeValue(v)
		if err != nil || !bytes.Equal(d, e) {
			t.Fatalf("entry of %d bytes: decoded %d bytes, %v", len(e), len(d), err)
		}
		in += len(e)
		out += len(v)
	}
	t.Logf("%d entries: %d bytes, %d stored (%.1f%%)", len(entries), in, out, 100*float64(out)/float64(in))
}

// TestValueOlder: a value a Fleet stored before entries were compressed
// (the root's encoding, "RG" and its version) is handed back as it is;
// values in a format this version does not know, and values that do not
// decode, fail, never decoding to anything else.
func TestValueOlder(t *testing.T) {
	e := entryOf(t, []byte("User-agent: *\nDisallow: /private\n"))
	if d, err := decodeValue(e); err != nil || !bytes.Equal(d, e) {
		t.Fatalf("an entry of the last version: %q, %v", d, err)
	}
	v := encodeValue(e)
	for _, c := range []struct {
		name string
		v    []byte
		want error
	}{
		{"later format", append([]byte("RZ\x02"), v[3:]...), errFormat},
		{"later format, empty", []byte("RZ\xff"), errFormat},
		{"no header", []byte("RZ\x01"), errCorrupt},
		{"length over maxEntry", binary.AppendUvarint([]byte("RZ\x01"), maxEntry+1), errCorrupt},
		{"truncated", v[:len(v)-1], errCorrupt},
		{"byte after the stream", append(bytes.Clone(v), 0), errCorrupt},
		{"checksum", func() []byte { w := bytes.Clone(v); w[len(w)/2] ^= 0x20; return w }(), errCorrupt},
		{"length one less", relength(t, e, len(e)-1), errCorrupt},
		{"length one more", relength(t, e, len(e)+1), errCorrupt},
	} {
		d, err := decodeValue(c.v)
		if !errors.Is(err, c.want) || d != nil {
			t.Errorf("%s: %q, %v; want %v", c.name, d, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "robotsredis: ") {
			t.Errorf("%s: error %q", c.name, err)
		}
	}
}

// relength returns the value of e with a header that says n bytes.
func relength(t *testing.T, e []byte, n int) []byte {
	v := encodeValue(e)
	_, k := binary.Uvarint(v[3:])
	out := binary.AppendUvarint([]byte("RZ\x01"), uint64(n))
	return append(out, v[3+k:]...)
}

// TestValueBomb: a value that inflates to more than it says (here 16 MiB
// of zeros in 16 KiB) stops at what its header says, at most maxEntry:
// the work and the memory of decoding are bounded.
func TestValueBomb(t *testing.T) {
	var z bytes.Buffer
	w, _ := flate.NewWriterDict(&z, flate.BestCompression, []byte(dict1))
	zero := make([]byte, 1<<20)
	for range 16 {
		w.Write(zero)
	}
	w.Close()
	v := binary.AppendUvarint([]byte("RZ\x01"), maxEntry)
	v = binary.LittleEndian.AppendUint32(v, crc32.Checksum(make([]byte, maxEntry), castagnoli))
	v = append(v, z.Bytes()...)
	allocs := testing.AllocsPerRun(1, func() {
		if d, err := decodeValue(v); !errors.Is(err, errCorrupt) || d != nil {
			t.Fatalf("a bomb: %d bytes, %v", len(d), err)
		}
	})
	t.Logf("%d bytes deflated: refused, %v allocations", len(z.Bytes()), allocs)
}

// FuzzDecodeValue: whatever Redis holds, decodeValue does not panic, does
// not produce more than maxEntry bytes from a value it did not write as
// it is, and what encodeValue writes decodes to itself.
func FuzzDecodeValue(f *testing.F) {
	e := entryOf(f, []byte("User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"))
	for _, s := range [][]byte{e, encodeValue(e), encodeValue(nil), []byte("RZ\x00"), []byte("RZ\x02x"),
		binary.AppendUvarint([]byte("RZ\x01"), maxEntry)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodeValue(b)
		switch {
		case err != nil && d != nil:
			t.Fatalf("%d bytes and an error %v", len(d), err)
		case err == nil && bytes.HasPrefix(b, []byte("RZ\x01")) && len(d) > maxEntry:
			t.Fatalf("%d bytes decoded", len(d))
		}
		if len(b) > 16<<10 {
			return // deflating at the best level is slow: the round trip of long values is TestValueRoundTrip's
		}
		if d, err := decodeValue(encodeValue(b)); err != nil || !bytes.Equal(d, b) {
			t.Fatalf("round trip: %d bytes for %d, %v", len(d), len(b), err)
		}
	})
}

// BenchmarkValue: encoding and decoding the entries of the corpus's
// robots/, in turn.
func BenchmarkValue(b *testing.B) {
	entries := corpusEntries(b)
	if len(entries) == 0 {
		b.Skip("no corpus")
	}
	var in, out int
	for _, e := range entries {
		in += len(e)
		out += len(encodeValue(e))
	}
	b.Run("encode", func(b *testing.B) {
		for i := range b.N {
			encodeValue(entries[i%len(entries)])
		}
		b.ReportMetric(float64(out)/float64(in), "ratio")
	})
	values := make([][]byte, len(entries))
	for i, e := range entries {
		values[i] = encodeValue(e)
	}
	b.Run("decode", func(b *testing.B) {
		for i := range b.N {
			if _, err := decodeValue(values[i%len(values)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
