package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"
)

// An Entry is what a crawler knows of one origin's robots.txt: the last
// response it could use, the header fields and times that decide that
// response's freshness, and the failures since. An Entry is a value: the
// transport replaces entries, it never changes a stored one.
type Entry struct {
	// Status is the status code of the last usable response: 2xx (the
	// rules are in Body), 4xx, or the 3xx that ended a redirect chain
	// that was too long or left HTTP. It is 0 when no usable response was
	// ever received.
	Status int

	// Body is the body of that response when it was a 2xx, cut at the
	// parser's size limit.
	Body []byte

	// Header holds the response's fields that matter for caching: those
	// KeepCaching keeps.
	Header http.Header

	// Requested and Received are the times the request for that response
	// was sent and the response received (request_time and response_time
	// of RFC 9111 §4.2.3). A 304 Not Modified moves them forward.
	Requested, Received time.Time

	// Failures counts the fetches that failed (5xx, network errors,
	// timeouts, truncated bodies) since the last usable response;
	// FailingSince is the time of the first of them and RetryAt the time
	// before which no new fetch should be tried. Err describes the last
	// failure.
	Failures     int
	FailingSince time.Time
	RetryAt      time.Time
	Err          string
}

// cachingFields are the response header fields an Entry keeps.
var cachingFields = [...]string{"Cache-Control", "Date", "Age", "Expires", "ETag", "Last-Modified", "Pragma"}

// KeepCaching returns the fields of h that decide a response's freshness
// and revalidate it: Cache-Control, Date, Age, Expires, ETag,
// Last-Modified and Pragma.
func KeepCaching(h http.Header) http.Header {
	out := http.Header{}
	for _, k := range cachingFields {
		if vs := h.Values(k); len(vs) > 0 {
			out[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
	return out
}

// Revalidated returns a copy of e updated from a 304 Not Modified response
// (RFC 9111 §4.3.4): its caching fields replace the stored ones, and its
// times become the entry's. Failures are cleared.
func (e *Entry) Revalidated(h http.Header, requested, received time.Time) *Entry {
	n := *e
	n.Header = e.Header.Clone()
	if n.Header == nil {
		n.Header = http.Header{}
	}
	for k, vs := range KeepCaching(h) {
		n.Header[k] = vs
	}
	n.Requested, n.Received = requested, received
	n.Failures, n.FailingSince, n.RetryAt, n.Err = 0, time.Time{}, time.Time{}, ""
	return &n
}

// Validators returns the request fields that revalidate the entry's
// response (RFC 9110 §13.1): If-None-Match from its ETag and
// If-Modified-Since from its Last-Modified.
func (e *Entry) Validators() http.Header {
	h := http.Header{}
	if e.Status == 0 {
		return h
	}
	if v := field(e.Header, "Etag"); v != "" {
		h.Set("If-None-Match", v)
	}
	if v := field(e.Header, "Last-Modified"); v != "" {
		h.Set("If-Modified-Since", v)
	}
	return h
}

// entryVersion is the version of the encoding; bump it, and the version
// in keyPrefix, on any change of the layout.
const entryVersion = 2

// ErrVersion is the error of UnmarshalBinary for an entry encoded by
// another version of the library: a Store shared across versions may hold
// one, which is to be skipped, not removed.
var ErrVersion = errors.New("robotsguard: cache: entry encoded by another version")

var errCorrupt = errors.New("robotsguard: cache: corrupt entry")

// MarshalBinary encodes the entry for a Store. Header fields without
// values are left out. It fails on an entry that UnmarshalBinary would not
// give back: a status outside 0–999, a negative or huge failure count, a
// time outside the years 1678–2261.
func (e *Entry) MarshalBinary() ([]byte, error) {
	if e.Status < 0 || e.Status > 999 || e.Failures < 0 || e.Failures > math32 {
		return nil, fmt.Errorf("robotsguard: cache: cannot encode an entry with status %d and %d failures", e.Status, e.Failures)
	}
	for _, t := range []time.Time{e.Requested, e.Received, e.FailingSince, e.RetryAt} {
		if !t.IsZero() && (t.Before(minTime) || t.After(maxTime)) {
			return nil, fmt.Errorf("robotsguard: cache: cannot encode the time %v", t)
		}
	}
	b := make([]byte, 0, 64+len(e.Body))
	b = append(b, 'R', 'G', entryVersion)
	b = binary.AppendUvarint(b, uint64(e.Status))
	b = appendBytes(b, e.Body)
	fields := 0
	for _, vs := range e.Header {
		if len(vs) > 0 {
			fields++
		}
	}
	b = binary.AppendUvarint(b, uint64(fields))
	for k, vs := range e.Header {
		if len(vs) == 0 {
			continue
		}
		b = appendBytes(b, []byte(k))
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendBytes(b, []byte(v))
		}
	}
	for _, t := range []time.Time{e.Requested, e.Received, e.FailingSince, e.RetryAt} {
		b = binary.AppendVarint(b, unixNano(t))
	}
	b = binary.AppendUvarint(b, uint64(e.Failures))
	b = appendBytes(b, []byte(e.Err))
	return b, nil
}

// UnmarshalBinary decodes an entry encoded by MarshalBinary. It fails on
// anything else, without panicking, whatever the input; on an entry of
// another encoding version, with an error matching ErrVersion.
func (e *Entry) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	if len(b) < 3 || b[0] != 'R' || b[1] != 'G' {
		return errCorrupt
	}
	if b[2] != entryVersion {
		return fmt.Errorf("%w (version %d, this one reads %d)", ErrVersion, b[2], entryVersion)
	}
	d.b = b[3:]
	var n Entry
	n.Status = int(d.uint(999))
	n.Body = d.bytes()
	if nh := d.uint(uint64(len(d.b))); nh > 0 {
		n.Header = make(http.Header, nh)
		for i := uint64(0); i < nh && d.err == nil; i++ {
			k := string(d.bytes())
			nv := d.uint(uint64(len(d.b)))
			if nv == 0 {
				d.err = errCorrupt // MarshalBinary leaves such fields out
			}
			for j := uint64(0); j < nv && d.err == nil; j++ {
				n.Header[k] = append(n.Header[k], string(d.bytes()))
			}
		}
	}
	for _, t := range []*time.Time{&n.Requested, &n.Received, &n.FailingSince, &n.RetryAt} {
		*t = fromUnixNano(d.int())
	}
	n.Failures = int(d.uint(math32))
	n.Err = string(d.bytes())
	if d.err != nil || len(d.b) != 0 {
		return errCorrupt
	}
	*e = n
	return nil
}

const math32 = 1<<31 - 1

// The times that UnixNano can hold.
var (
	minTime = time.Unix(0, math.MinInt64+1)
	maxTime = time.Unix(0, math.MaxInt64)
)

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint(limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > limit {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uint(uint64(len(d.b)))
	if d.err == nil && n > uint64(len(d.b)) {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return append([]byte(nil), s...)
}
