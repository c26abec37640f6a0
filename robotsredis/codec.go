package robotsredis

import (
	"bytes"
	"compress/flate"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/robotsguard/robotsguard/policy"
)

// How entries are kept in Redis. The Transport hands Set an entry in the
// root package's encoding (cache.Entry.MarshalBinary: "RG", its version,
// the body, the caching fields, the times); the Fleet stores it behind a
// header of its own, compressed:
//
//	"RZ" 0x01 n crc deflated  n: the entry's length (uvarint, at most
//	                          maxEntry); crc: its CRC-32C (4 bytes, little
//	                          endian); deflated: the entry, deflated (RFC
//	                          1951) with the preset dictionary dict1, in
//	                          fewer than n bytes
//	"RZ" 0x02 n crc deflated  the same, of the entry in the compact layout
//	                          (compact.go): its dates as numbers
//	"RZ" 0x00 entry           the entry as it is: one that deflate does not
//	                          shrink, or longer than maxEntry
//
// A value that does not start with "RZ" was stored by a Fleet of an older
// version, before entries were compressed: it is the root's encoding,
// which starts with "RG", and is handed back as it is (the root reads it,
// or skips it by its own version). A value in a format this version does
// not know (a later version's) is skipped, as is one that does not decode:
// a miss, never an error, never a misread entry.

const (
	valueMagic    = "RZ"
	formatRaw     = 0
	formatFlate   = 1
	formatCompact = 2
)

// maxEntry bounds the entries that are compressed, and so what decoding a
// value may produce: the most of a body the root keeps by default
// (policy.DefaultMaxSize), with 64 KiB for the caching fields, times and
// error around it. A longer entry (a Transport whose Parser reads more) is
// stored as it is.
const maxEntry = policy.DefaultMaxSize + 64<<10

// dict1 is the preset dictionary of format 1: the lines most robots.txt
// files share, trained on the shared corpus's long tail (see
// TestDictionary). Never changed: a new dictionary is a new format.
//
//go:embed dict1.txt
var dict1 string

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var writers = sync.Pool{New: func() any {
	w, err := flate.NewWriterDict(nil, flate.BestCompression, []byte(dict1))
	if err != nil {
		panic(err) // only for a bad level
	}
	return w
}}

var readers sync.Pool // of flate readers (io.ReadCloser and flate.Resetter)

// encodeValue returns what the Fleet stores in Redis for the entry b.
func encodeValue(b []byte) []byte {
	if len(b) <= maxEntry {
		if c, err := compact(b); err == nil {
			if d, err := expand(c, maxEntry); err == nil && bytes.Equal(d, b) {
				if v := deflated(formatCompact, c, len(b)); v != nil {
					return v
				}
			}
		}
		if v := deflated(formatFlate, b, len(b)); v != nil {
			return v
		}
	}
	out := make([]byte, 0, 3+len(b))
	out = append(out, valueMagic...)
	out = append(out, formatRaw)
	return append(out, b...)
}

// deflated returns the value of format that holds b deflated, or nil when
// b deflated is no shorter than b (decodeValue refuses such a value) or
// than n bytes (the entry b stands for, as it would be stored as it is).
func deflated(format byte, b []byte, n int) []byte {
	out := make([]byte, 0, 3+binary.MaxVarintLen64+4+len(b)/2)
	out = append(out, valueMagic...)
	out = append(out, format)
	out = binary.AppendUvarint(out, uint64(len(b)))
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(b, castagnoli))
	head := len(out)
	buf := bytes.NewBuffer(out)
	w := writers.Get().(*flate.Writer)
	w.Reset(buf)
	_, err := w.Write(b)
	if err == nil {
		err = w.Close()
	}
	w.Reset(nil)
	writers.Put(w)
	if out = buf.Bytes(); err != nil || len(out)-head >= min(n, len(b)) {
		return nil
	}
	return out
}

var (
	errCorrupt = errors.New("robotsredis: cache value does not decode")
	errFormat  = errors.New("robotsredis: cache value in a format this version does not know")
)

// decodeValue returns the entry stored as v (untrusted: anything may be in
// Redis). It fails, without panicking, on anything encodeValue did not
// write, and its work is bounded by len(v) and maxEntry: a deflated value
// decodes to maxEntry bytes at most, from fewer.
func decodeValue(v []byte) ([]byte, error) {
	if len(v) < 3 || string(v[:2]) != valueMagic {
		return v, nil // an older version's: the root's encoding
	}
	format := v[2]
	switch format {
	case formatRaw:
		return v[3:], nil
	case formatFlate, formatCompact:
	default:
		return nil, fmt.Errorf("%w (format %d)", errFormat, v[2])
	}
	v = v[3:]
	n, k := binary.Uvarint(v)
	if k <= 0 || n > maxEntry || len(v) < k+4 {
		return nil, fmt.Errorf("%w: bad header", errCorrupt)
	}
	sum := binary.LittleEndian.Uint32(v[k:])
	v = v[k+4:]
	if uint64(len(v)) >= n {
		return nil, fmt.Errorf("%w: %d bytes deflated for %d", errCorrupt, len(v), n)
	}
	src := bytes.NewReader(v)
	var r io.ReadCloser
	if x := readers.Get(); x != nil {
		r = x.(io.ReadCloser)
		r.(flate.Resetter).Reset(src, []byte(dict1))
	} else {
		r = flate.NewReaderDict(src, []byte(dict1))
	}
	out := make([]byte, n)
	_, err := io.ReadFull(r, out)
	if err == nil {
		// The stream must end there, with nothing after it.
		var one [1]byte
		if m, e := r.Read(one[:]); m != 0 || e != io.EOF {
			err = errors.New("longer than its header says")
		} else if src.Len() != 0 {
			err = errors.New("bytes after the deflated stream")
		}
	}
	readers.Put(r)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	case crc32.Checksum(out, castagnoli) != sum:
		return nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	case format == formatCompact:
		if out, err = expand(out, maxEntry); err != nil {
			return nil, fmt.Errorf("%w: %v", errCorrupt, err)
		}
	}
	return out, nil
}
