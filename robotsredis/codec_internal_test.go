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
		if v[2] != formatRaw && len(e) > maxEntry {
			t.Errorf("an entry of %d bytes deflated: it would not decode", len(e))
		}
		if len(e) > 64 && len(e) <= maxEntry && v[2] == formatRaw {
			t.Errorf("an entry of %d bytes stored as it is", len(e))
		}
		if bytes.HasPrefix(e, []byte("RG\x02")) && len(e) <= maxEntry && v[2] != formatCompact {
			t.Errorf("an entry of %d bytes in the root's layout stored in format %d, not compact", len(e), v[2])
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
// (the root's encoding, "RG" and its version) is handed back as it is,
// one of format 1 (before the compact layout) decodes; values in a format this version does not know, and values that do not
// decode, fail, never decoding to anything else.
func TestValueOlder(t *testing.T) {
	e := entryOf(t, []byte("User-agent: *\nDisallow: /private\n"))
	if d, err := decodeValue(e); err != nil || !bytes.Equal(d, e) {
		t.Fatalf("an entry of the last version: %q, %v", d, err)
	}
	// Format 1, as a Fleet stored entries before the compact layout.
	if d, err := decodeValue(deflated(formatFlate, e, len(e))); err != nil || !bytes.Equal(d, e) {
		t.Fatalf("an entry of format 1: %q, %v", d, err)
	}
	v := encodeValue(e)
	for _, c := range []struct {
		name string
		v    []byte
		want error
	}{
		{"later format", append([]byte("RZ\x03"), v[3:]...), errFormat},
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
	out := binary.AppendUvarint([]byte{'R', 'Z', v[2]}, uint64(n))
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
	for _, s := range [][]byte{e, encodeValue(e), encodeValue(nil), []byte("RZ\x00"), []byte("RZ\x03x"), []byte("RZ\x02x"),
		binary.AppendUvarint([]byte("RZ\x01"), maxEntry)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodeValue(b)
		switch {
		case err != nil && d != nil:
			t.Fatalf("%d bytes and an error %v", len(d), err)
		case err == nil && (bytes.HasPrefix(b, []byte("RZ\x01")) || bytes.HasPrefix(b, []byte("RZ\x02"))) && len(d) > maxEntry:
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

// TestValueCompact: an entry in the root's layout is stored in the compact
// one (its dates as numbers) and decodes to itself byte for byte, whatever
// its header holds: dates not spelled as http.TimeFormat spells them (a
// wrong weekday, another format, another zone, year 0) stay as they are,
// as do times out of the usual order and zero times. A compact stream
// that does not expand (an unknown tag, a date past year 9999, bytes
// missing) fails to decode.
func TestValueCompact(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	body := []byte("User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: https://example.com/sitemap.xml\n")
	for _, e := range []cache.Entry{
		{Status: 200, Body: body, Requested: now, Received: now.Add(time.Second),
			Header: http.Header{"Date": {now.Format(http.TimeFormat)}, "Last-Modified": {"Mon, 01 Jun 2025 12:00:00 GMT"}}},
		{Status: 200, Body: body, Header: http.Header{"Expires": {"Sunday, 01-Jun-25 12:00:00 GMT", "Sun Jun  1 12:00:00 2025", "Sun, 01 Jun 2025 12:00:00 UTC", "Sat, 01 Jan 0000 00:00:00 GMT", "0", ""}}},
		{Status: 404, Requested: now.Add(time.Hour), Received: now, Failures: 3, Err: "robotsguard: x", FailingSince: now, RetryAt: now.Add(time.Minute),
			Header: http.Header{"Date": {now.Format(http.TimeFormat), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Format(http.TimeFormat), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)}}},
		{Status: 200, Body: body, Received: now},
		{Status: 200, Body: body, Requested: now},
	} {
		b, err := e.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		v := encodeValue(b)
		if v[2] != formatCompact {
			t.Errorf("%v: stored in format %d", e.Header, v[2])
		}
		if d, err := decodeValue(v); err != nil || !bytes.Equal(d, b) {
			t.Errorf("%v: decoded %q, %v", e.Header, d, err)
		}
	}
	full := entryOf(t, body)
	c, err := compact(full)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) >= len(full)-40 {
		t.Errorf("compact: %d bytes for %d, want the two dates' 58 bytes to shrink to a few", len(c), len(full))
	}
	corrupt := func(c []byte) []byte {
		v := binary.AppendUvarint([]byte("RZ\x02"), uint64(len(c)))
		v = binary.LittleEndian.AppendUint32(v, crc32.Checksum(c, castagnoli))
		var z bytes.Buffer
		w, _ := flate.NewWriterDict(&z, flate.BestCompression, []byte(dict1))
		w.Write(c)
		w.Close()
		return append(v, z.Bytes()...)
	}
	// The tag of the first header value: after the version, status, body,
	// times, field count, name and value count.
	r := reader{b: c[1:]}
	r.uvarint(999)
	r.bytes()
	r.varint()
	r.varint()
	r.uvarint(100)
	r.bytes()
	r.uvarint(100)
	tag := len(c) - len(r.b)
	if r.err != nil || c[tag] > tagDate {
		t.Fatalf("no tag at %d: %v", tag, r.err)
	}
	badTag := bytes.Clone(c)
	badTag[tag] = 7
	farDate := append(append(bytes.Clone(c[:tag]), tagDate), binary.AppendVarint(nil, 300e9)...)
	for name, c := range map[string][]byte{
		"unknown tag": badTag, "date past 9999": farDate, "cut": c[:len(c)/2], "other layout": append([]byte{9}, c[1:]...),
	} {
		if d, err := decodeValue(corrupt(c)); !errors.Is(err, errCorrupt) || d != nil {
			t.Errorf("%s: %d bytes, %v", name, len(d), err)
		}
	}
}
