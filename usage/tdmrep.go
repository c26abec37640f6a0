package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
)

// TDMRepPath is the path of a site's TDMRep rule file, at the root of the
// origin (TDMRep, section "TDM File on the Origin Server").
const TDMRepPath = "/.well-known/tdmrep.json"

// MaxTDMRepBytes is the most of a tdmrep.json body ParseTDMRep reads:
// 500 KiB, the bound RFC 9309 §2.5 sets for robots.txt, which the Transport
// already applies to site-wide files. The shortest rule,
// {"location":"/","tdm-reservation":1}, takes 36 bytes, so the bound holds
// far more rules than MaxTDMRepRules; files seen in the wild hold a handful
// in under 1 KiB. A longer body is cut there: the rules complete before the
// cut are kept and TDMRepFile.Truncated reports it.
const MaxTDMRepBytes = 500 << 10

// MaxTDMRepRules is the most rules a TDMRepFile keeps; later elements of the
// array are ignored (and reported by Problems). It bounds the time
// TDMRepFile.Rule takes, which tries the rules in order, each in time linear
// in the lengths of its location and of the URL.
const MaxTDMRepRules = 2048

// tdmMaxProblems bounds the problems a TDMRepFile records; past it, one last
// problem counts the others.
const tdmMaxProblems = 100

// tdmMaxPolicyBytes bounds a tdm-policy URL; a longer one is ignored.
const tdmMaxPolicyBytes = 4096

// ErrTDMRep is the error every ParseTDMRep failure matches with errors.Is:
// the body is not a JSON array (TDMRep requires one even for a single
// rule). The failure is a *TDMRepError that tells why.
var ErrTDMRep = errors.New("robotsguard: tdmrep.json is not a JSON array of rules")

// A TDMRepError tells why a tdmrep.json body was rejected. It matches
// ErrTDMRep with errors.Is.
type TDMRepError struct {
	// Offset is the byte offset in the body where reading stopped.
	Offset int64
	// Reason says what was wrong, such as "is an object, not an array".
	Reason string
}

func (e *TDMRepError) Error() string {
	return fmt.Sprintf("robotsguard: tdmrep.json %s (at byte %d)", e.Reason, e.Offset)
}

// Is reports whether target is ErrTDMRep.
func (e *TDMRepError) Is(target error) bool { return target == ErrTDMRep }

// A TDMReservation is the value of a tdm-reservation property (TDMRep,
// section "tdm-reservation").
type TDMReservation uint8

const (
	// TDMUnset: no valid value. The report treats every value other than
	// 0 and 1 as a protocol error that leaves the reservation unset.
	TDMUnset TDMReservation = iota
	// TDMNotReserved (0): TDM rights are not reserved.
	TDMNotReserved
	// TDMReserved (1): TDM rights are reserved (the opt-out of Article 4
	// of the EU DSM Directive).
	TDMReserved
)

// String returns "unset", "0" or "1".
func (r TDMReservation) String() string {
	switch r {
	case TDMNotReserved:
		return "0"
	case TDMReserved:
		return "1"
	}
	return "unset"
}

// A TDMRule is one rule of a tdmrep.json file.
type TDMRule struct {
	// Index is the rule's 1-based position in the file's array, counting
	// the elements that were ignored.
	Index int
	// Location is the rule's location as written (trimmed).
	Location string
	// Reservation is its tdm-reservation; TDMUnset when the value is
	// missing or invalid.
	Reservation TDMReservation
	// Policy is its tdm-policy, resolved against the file's URL when
	// relative; "" when absent or invalid.
	Policy string
}

// A TDMRepProblem is something wrong in a tdmrep.json file that did not
// make the whole file unreadable.
type TDMRepProblem struct {
	// Rule is the 1-based index of the array element concerned, or 0 when
	// the problem is with the file as a whole.
	Rule int
	Text string
}

func (p TDMRepProblem) String() string {
	if p.Rule == 0 {
		return p.Text
	}
	return fmt.Sprintf("rule %d: %s", p.Rule, p.Text)
}

// A TDMRepFile is a parsed /.well-known/tdmrep.json. A nil *TDMRepFile
// stands for a site with no such file, and its methods say so: no rules, no
// problems.
type TDMRepFile struct {
	url       string
	rules     []tdmFileRule
	problems  []TDMRepProblem
	more      int // problems not recorded past tdmMaxProblems
	truncated bool
}

// tdmFileRule is a rule with the canonical form of its location.
type tdmFileRule struct {
	TDMRule
	pattern string
}

// ParseTDMRep reads a tdmrep.json body; url is its URL, for Source.URL and
// to resolve relative tdm-policy URLs (it may be "").
//
// The body must be a JSON array (a leading UTF-8 byte order mark is
// skipped); anything else fails with a *TDMRepError matching ErrTDMRep. The
// report makes such a site one that does not implement the protocol, like a
// site with no file. Within the array, an element that is not an object or
// whose location is missing, not a string, or neither a path nor an absolute
// URL is ignored; a tdm-reservation other than the number 0 or 1 leaves the
// rule's reservation unset; an invalid tdm-policy is dropped. Each is
// reported by Problems. Only the first MaxTDMRepBytes of body and the first
// MaxTDMRepRules rules are read.
func ParseTDMRep(body []byte, url string) (*TDMRepFile, error) {
	f := &TDMRepFile{url: url}
	if len(body) > MaxTDMRepBytes {
		body = body[:MaxTDMRepBytes]
		f.truncated = true
		f.problem(0, fmt.Sprintf("the file is longer than %d bytes: rules past that were not read", MaxTDMRepBytes))
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	fail := func(reason string) (*TDMRepFile, error) {
		return nil, &TDMRepError{Offset: dec.InputOffset(), Reason: reason}
	}
	tok, err := dec.Token()
	switch {
	case err != nil:
		return fail("is not JSON: " + tdmJSONReason(err))
	case tok != json.Delim('['):
		return fail("is " + tdmKind(tok) + ", not an array")
	}
	index, ignored := 0, 0
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if f.truncated {
				break // the cut fell inside this element: keep the rules before it
			}
			return fail("is not JSON: " + tdmJSONReason(err))
		}
		index++
		if len(f.rules) >= MaxTDMRepRules {
			ignored++
			continue
		}
		f.addRule(index, raw)
	}
	if ignored > 0 {
		f.problem(0, fmt.Sprintf("%d rules past the first %d were ignored", ignored, MaxTDMRepRules))
	}
	if f.truncated {
		f.finish()
		return f, nil
	}
	if _, err := dec.Token(); err != nil {
		return fail("is not JSON: " + tdmJSONReason(err))
	}
	if rest := bytes.Trim(body[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return fail("has data after its array")
	}
	f.finish()
	return f, nil
}

// tdmJSONReason describes a decoding error without repeating Go's prefix.
func tdmJSONReason(err error) string {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return syn.Error()
	case err.Error() == "EOF":
		return "unexpected end of input"
	}
	return err.Error()
}

// tdmKind names the JSON value a token starts.
func tdmKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "not an array"
}

func (f *TDMRepFile) problem(rule int, text string) {
	if len(f.problems) >= tdmMaxProblems {
		f.more++
		return
	}
	f.problems = append(f.problems, TDMRepProblem{Rule: rule, Text: text})
}

func (f *TDMRepFile) finish() {
	if f.more > 0 {
		f.problems = append(f.problems, TDMRepProblem{Text: fmt.Sprintf("%d more problems were not recorded", f.more)})
		f.more = 0
	}
}

// addRule reads the array element raw, the index-th.
func (f *TDMRepFile) addRule(index int, raw json.RawMessage) {
	if len(raw) == 0 || raw[0] != '{' {
		f.problem(index, "ignored: a rule must be an object")
		return
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(raw, &props); err != nil {
		f.problem(index, "ignored: "+err.Error())
		return
	}
	var loc string
	if err := json.Unmarshal(props["location"], &loc); err != nil || props["location"] == nil {
		f.problem(index, `ignored: its "location" is missing or not a string`)
		return
	}
	loc = strings.TrimSpace(loc)
	var path string
	switch {
	case loc == "":
		f.problem(index, `ignored: its "location" is empty`)
		return
	case loc[0] == '/' || loc[0] == '*':
		path = loc
	case tdmHasPrefixFold(loc, "http://") || tdmHasPrefixFold(loc, "https://"):
		path = policy.PathOf(loc)
		f.problem(index, fmt.Sprintf(`its "location" is a URL, not a path: read as %q`, path))
	default:
		f.problem(index, `ignored: its "location" does not start with "/"`)
		return
	}
	r := tdmFileRule{
		TDMRule: TDMRule{Index: index, Location: loc},
		pattern: policy.CanonicalPattern(path),
	}
	switch v, ok := props["tdm-reservation"]; {
	case !ok:
		f.problem(index, `it has no "tdm-reservation": the reservation is unset`)
	default:
		r.Reservation = tdmJSONReservation(v)
		if r.Reservation == TDMUnset {
			f.problem(index, fmt.Sprintf(`its "tdm-reservation" %s is not 0 or 1: the reservation is unset`, tdmClip(string(v))))
		}
	}
	if v, ok := props["tdm-policy"]; ok && string(v) != "null" {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			f.problem(index, `its "tdm-policy" is not a string: ignored`)
		} else if r.Policy = tdmPolicyURL(s, f.url); r.Policy == "" {
			f.problem(index, fmt.Sprintf(`its "tdm-policy" %q is not a URL: ignored`, tdmClip(s)))
		}
	}
	f.rules = append(f.rules, r)
}

// tdmJSONReservation reads a tdm-reservation JSON value: the number 0 or 1
// (the report's integer; 1.0 is the same number). Strings, booleans and
// other numbers are protocol errors.
func tdmJSONReservation(v json.RawMessage) TDMReservation {
	s := string(v)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return TDMUnset
	}
	n, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		return TDMUnset
	case n == 0:
		return TDMNotReserved
	case n == 1:
		return TDMReserved
	}
	return TDMUnset
}

func tdmHasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// tdmPolicyURL returns the tdm-policy value s as a URL, resolved against
// base when it is relative and base is absolute; "" when s is empty, longer
// than 4096 bytes (before or after it is resolved), holds spaces or control characters, or is not an http or
// https URL or a relative reference.
func tdmPolicyURL(s, base string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > tdmMaxPolicyBytes || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return ""
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return ""
	case u.IsAbs():
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return ""
		}
		return s
	}
	if b, err := url.Parse(base); err == nil && b.IsAbs() {
		// Resolving escapes bytes outside ASCII, up to three times the
		// length: the result is bounded as the value is.
		if r := b.ResolveReference(u).String(); len(r) <= tdmMaxPolicyBytes {
			return r
		}
		return ""
	}
	return s
}

// tdmClip trims s and cuts it at 200 bytes, for Source.Text.
func tdmClip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// URL returns the file's URL as given to ParseTDMRep.
func (f *TDMRepFile) URL() string {
	if f == nil {
		return ""
	}
	return f.url
}

// Rules returns the file's rules, in the order of the file.
func (f *TDMRepFile) Rules() []TDMRule {
	if f == nil {
		return nil
	}
	rules := make([]TDMRule, len(f.rules))
	for i, r := range f.rules {
		rules[i] = r.TDMRule
	}
	return rules
}

// Problems returns what was wrong in the file but did not make it
// unreadable: ignored rules, invalid values, truncation. At most 101 are
// returned, the last counting those not recorded.
func (f *TDMRepFile) Problems() []TDMRepProblem {
	if f == nil {
		return nil
	}
	return append([]TDMRepProblem(nil), f.problems...)
}

// Truncated reports whether the body was longer than MaxTDMRepBytes, so that
// rules past the cut were not read.
func (f *TDMRepFile) Truncated() bool { return f != nil && f.truncated }

// Rule returns the rule that covers target, a URL or a path: the first in
// the file whose location matches it (TDMRep, "TDM File on the Origin
// Server": "The most specific match is the first in sequence"). A location is matched as a robots.txt pattern
// (RFC 9309 §2.2.2 and §2.2.3, which the report takes from
// draft-koster-rep): from the start of the path and query, case-sensitively,
// '*' standing for any sequence of characters and a final '$' for the end,
// after percent-encoding is made canonical on both sides (so "%24" in a
// location matches a '$' in the URL). ok is false when no rule matches, or f
// is nil (no file): the reservation is then unset for target.
func (f *TDMRepFile) Rule(target string) (rule TDMRule, ok bool) {
	if f == nil || len(f.rules) == 0 {
		return TDMRule{}, false
	}
	path := policy.CanonicalPath(policy.PathOf(target))
	for i := range f.rules {
		if policy.PatternMatches(f.rules[i].pattern, path) {
			return f.rules[i].TDMRule, true
		}
	}
	return TDMRule{}, false
}

// tdmHeaderReservation reads the values of tdm-reservation header fields:
// each is a list of "0" or "1" (fields repeated or joined with commas must
// agree). It returns TDMUnset when there is none, one is invalid, or they
// disagree, and the values as written.
func tdmHeaderReservation(values []string) (TDMReservation, string) {
	res := TDMUnset
	for _, v := range values {
		for elem := range strings.SplitSeq(v, ",") {
			elem = strings.Trim(elem, " \t")
			if elem == "" {
				continue
			}
			r := tdmValue(elem)
			if r == TDMUnset || (res != TDMUnset && r != res) {
				return TDMUnset, ""
			}
			res = r
		}
	}
	return res, tdmClip(strings.Join(values, ", "))
}

// tdmValue reads "0" or "1".
func tdmValue(s string) TDMReservation {
	switch s {
	case "0":
		return TDMNotReserved
	case "1":
		return TDMReserved
	}
	return TDMUnset
}

// tdmMetaReservation reads the page's tdm-reservation meta tags: each content
// is "0" or "1" (trimmed), and several tags must agree.
func tdmMetaReservation(meta []Meta) (TDMReservation, string) {
	res, text := TDMUnset, ""
	for _, m := range meta {
		if m.Name != "tdm-reservation" {
			continue
		}
		r := tdmValue(strings.TrimSpace(m.Content))
		if r == TDMUnset || (res != TDMUnset && r != res) {
			return TDMUnset, ""
		}
		if res == TDMUnset {
			text = tdmClip(m.Content)
		}
		res = r
	}
	return res, text
}

// tdmEvidence returns what TDMRep says of target's use for c.
//
// The report (section "Processing priority") has the values of the header
// fields supersede those of the file, and those of the HTML meta tags
// supersede both; an invalid value is unset and supersedes nothing. So at
// most one Evidence is returned, from the highest place that sets a valid
// tdm-reservation: a meta tag, else a header field, else the file's rule
// covering target. tdm-policy is taken the same way, property by property,
// and attached only to a reservation (the report has agents ignore it when
// tdm-reservation is 0). TDMRep speaks of text and data mining, so only
// TDM, and TrainAI (training is mining in the sense of the DSM Directive),
// get evidence.
func tdmEvidence(f *TDMRepFile, p *Page, target string, c Category) []Evidence {
	if c != TDM && c != TrainAI {
		return nil
	}
	res, pol := TDMUnset, ""
	var src Source
	if r, ok := f.Rule(target); ok {
		if r.Reservation != TDMUnset {
			res = r.Reservation
			src = Source{Signal: TDMRep, Place: InFile, URL: f.url, Line: r.Index, Text: tdmClip(r.Location)}
		}
		pol = r.Policy
	}
	if p != nil {
		if r, text := tdmHeaderReservation(p.Header.Values("Tdm-Reservation")); r != TDMUnset {
			res = r
			src = Source{Signal: TDMRep, Place: InHeader, Name: "tdm-reservation", Text: text}
		}
		if v := p.Header.Values("Tdm-Policy"); len(v) > 0 {
			if u := tdmPolicyURL(v[0], p.URL); u != "" {
				pol = u
			}
		}
		if r, text := tdmMetaReservation(p.Meta); r != TDMUnset {
			res = r
			src = Source{Signal: TDMRep, Place: InMeta, Name: "tdm-reservation", Text: text}
		}
		for _, m := range p.Meta {
			if m.Name == "tdm-policy" {
				if u := tdmPolicyURL(m.Content, p.URL); u != "" {
					pol = u
				}
				break
			}
		}
	}
	switch res {
	case TDMReserved:
		return []Evidence{{Category: c, Verdict: Disallowed, Conditions: Conditions{Policy: pol}, Source: src}}
	case TDMNotReserved:
		return []Evidence{{Category: c, Verdict: Allowed, Source: src}}
	}
	return nil
}
