package robotsredis

import (
	"encoding/binary"
	"errors"
	"net/http"
	"time"
)

// The compact layout (format 2, see codec.go) of the root's entries: an
// entry's caching fields hold dates, spelled as HTTP spells them (29
// bytes, "Sun, 01 Jun 2025 12:00:00 GMT"), and its times in nanoseconds;
// deflated, the two dates of a typical entry took 65 of its 792 bytes.
// The compact layout keeps the entry's bytes as they are, but for:
//
//   - a header value that is a date, spelled exactly as http.TimeFormat
//     spells it, which is stored as its distance in seconds from the
//     second the response was received (a varint, tagged 1; other values
//     are tagged 0);
//   - the time the request was sent, stored as its distance from the time
//     the response was received, which comes first.
//
// Only the root's layout 2 ("RG" 0x02, that of the root's version the
// module requires) is compacted, and only when the compact form gives the
// entry back byte for byte (encodeValue checks): anything else is stored
// in format 1.

const rootLayout = 2 // cache.Entry's encoding version that compact reads

// tags of a header value in the compact layout
const (
	tagString = 0
	tagDate   = 1
)

var errLayout = errors.New("not an entry of the layout compact reads")

// reader reads the varints and byte strings of an encoding, failing once
// and for good on anything out of bounds.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint(limit uint64) uint64 {
	v, k := binary.Uvarint(r.b)
	if r.err != nil || k <= 0 || v > limit {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) varint() int64 {
	v, k := binary.Varint(r.b)
	if r.err != nil || k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint(uint64(len(r.b)))
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errLayout
	}
	r.b = nil
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// compact returns the entry b, in the root's layout, in the compact one.
func compact(b []byte) ([]byte, error) {
	if len(b) < 3 || b[0] != 'R' || b[1] != 'G' || b[2] != rootLayout {
		return nil, errLayout
	}
	r := reader{b: b[3:]}
	status := r.uvarint(999)
	body := r.bytes()
	// The times follow the fields: read the fields once to reach them.
	fields := r.b
	nf := r.uvarint(uint64(len(r.b)))
	for i := uint64(0); i < nf && r.err == nil; i++ {
		r.bytes()
		for nv := r.uvarint(uint64(len(r.b))); nv > 0 && r.err == nil; nv-- {
			r.bytes()
		}
	}
	requested, received := r.varint(), r.varint()
	rest := r.b // the failure times, count and error: kept as they are
	if r.err != nil {
		return nil, r.err
	}
	base := received / 1e9
	out := make([]byte, 0, len(b))
	out = append(out, rootLayout)
	out = binary.AppendUvarint(out, status)
	out = appendBytes(out, body)
	out = binary.AppendVarint(out, received)
	out = binary.AppendVarint(out, requested-received)
	f := reader{b: fields}
	nf = f.uvarint(uint64(len(f.b)))
	out = binary.AppendUvarint(out, nf)
	for i := uint64(0); i < nf; i++ {
		out = appendBytes(out, f.bytes())
		nv := f.uvarint(uint64(len(f.b)))
		out = binary.AppendUvarint(out, nv)
		for ; nv > 0; nv-- {
			v := f.bytes()
			if sec, ok := httpDate(v); ok {
				out = append(out, tagDate)
				out = binary.AppendVarint(out, sec-base)
			} else {
				out = append(out, tagString)
				out = appendBytes(out, v)
			}
		}
	}
	return append(out, rest...), nil
}

// expand returns the entry c, in the compact layout, in the root's. Its
// output is at most limit bytes long: a date takes 29 bytes where its
// varint took from 1 to 10.
func expand(c []byte, limit int) ([]byte, error) {
	r := reader{b: c}
	if r.byte() != rootLayout {
		return nil, errLayout
	}
	status := r.uvarint(999)
	body := r.bytes()
	received := r.varint()
	requested := received + r.varint() // as it was subtracted, wrapping
	base := received / 1e9
	out := make([]byte, 0, min(len(c)+len(c)/2, limit))
	out = append(out, 'R', 'G', rootLayout)
	out = binary.AppendUvarint(out, status)
	out = appendBytes(out, body)
	nf := r.uvarint(uint64(len(r.b)))
	out = binary.AppendUvarint(out, nf)
	var date [len(http.TimeFormat)]byte
	for i := uint64(0); i < nf && r.err == nil; i++ {
		out = appendBytes(out, r.bytes())
		nv := r.uvarint(uint64(len(r.b)))
		out = binary.AppendUvarint(out, nv)
		for ; nv > 0 && r.err == nil; nv-- {
			switch r.byte() {
			case tagString:
				out = appendBytes(out, r.bytes())
			case tagDate:
				d := r.varint()
				// Years 1 to 9999: those a date's four digits spell.
				const lo, hi = -62135596800, 253402300799
				if d < lo-base || d > hi-base {
					r.fail()
					break
				}
				out = appendBytes(out, time.Unix(base+d, 0).UTC().AppendFormat(date[:0], http.TimeFormat))
			default:
				r.fail()
			}
			if len(out) > limit {
				r.fail()
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	out = binary.AppendVarint(out, requested)
	out = binary.AppendVarint(out, received)
	out = append(out, r.b...)
	if len(out) > limit {
		return nil, errLayout
	}
	return out, nil
}

// httpDate returns the Unix time of v, when v is a date spelled exactly as
// http.TimeFormat spells it (IMF-fixdate, RFC 9110 §5.6.7).
func httpDate(v []byte) (int64, bool) {
	if len(v) != len(http.TimeFormat) {
		return 0, false
	}
	t, err := time.Parse(http.TimeFormat, string(v))
	if err != nil || t.Year() < 1 {
		return 0, false
	}
	var again [len(http.TimeFormat)]byte
	if string(t.UTC().AppendFormat(again[:0], http.TimeFormat)) != string(v) {
		return 0, false // a weekday that is not the date's, or a zone other than GMT
	}
	return t.Unix(), true
}
