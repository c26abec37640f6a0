package usage

import (
	"strconv"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/policy"
)

// X-Robots-Tag header fields and robots meta tags, as Google Search Central's
// "Robots meta tag, data-nosnippet, and X-Robots-Tag specifications" defines
// them, with Bing's nocache, and DeviantArt's noai (see the package
// documentation for the mapping onto categories).

// xrKind is the kind of a directive.
type xrKind uint8

const (
	xrUnknown xrKind = iota // unknown or without effect (all, index, follow)
	xrNoIndex
	xrNoFollow
	xrNone // noindex, nofollow
	xrNoArchive
	xrNoSnippet
	xrMaxSnippet
	xrMaxImagePreview
	xrMaxVideoPreview
	xrNoTranslate
	xrNoImageIndex
	xrUnavailableAfter
	xrIndexIfEmbedded
	xrNoAI
)

// An xrDirective is one directive read.
type xrDirective struct {
	kind xrKind
	n    int       // max-snippet in characters, max-video-preview in seconds; -1: no limit
	s    string    // max-image-preview: "none", "standard" or "large"
	t    time.Time // unavailable_after
}

// xrValueKeys are the directives that take a value after a colon, which the
// part before a colon must not be to name an agent.
var xrValueKeys = map[string]xrKind{
	"max-snippet":       xrMaxSnippet,
	"max-image-preview": xrMaxImagePreview,
	"max-video-preview": xrMaxVideoPreview,
	"unavailable_after": xrUnavailableAfter,
}

// xrFlagKeys are the directives without a value. Google ignores "index" and
// "follow" and calls "all" the default, without effect: they are known, so
// never taken for an agent, and read as xrUnknown.
var xrFlagKeys = map[string]xrKind{
	"all":             xrUnknown,
	"index":           xrUnknown,
	"follow":          xrUnknown,
	"noindex":         xrNoIndex,
	"nofollow":        xrNoFollow,
	"none":            xrNone,
	"noarchive":       xrNoArchive,
	"nocache":         xrNoArchive, // Bing
	"nosnippet":       xrNoSnippet,
	"notranslate":     xrNoTranslate,
	"noimageindex":    xrNoImageIndex,
	"indexifembedded": xrIndexIfEmbedded,
	"noai":            xrNoAI, // DeviantArt and others
}

// xrMaxVideoSeconds is the largest max-video-preview read; a larger value
// sets no limit in practice, and is ignored as -1 is.
const xrMaxVideoSeconds = 1 << 31

// xrMaxItem is the length of a directive past which it is ignored: every
// directive, date included, fits in far less.
const xrMaxItem = 256

// xrScan calls yield with each directive of value, a comma-separated list,
// with the agent it is addressed to ("" for all, else a lower-cased product
// token), the agent's name as written, and the directive as written. When prefixes is true (header fields), an
// item "AGENT: directive" addresses it and the items after it in value, up
// to the next such prefix, to AGENT; the part before the first colon names an
// agent when it is not a directive Google knows and is a product token. In
// meta tags (prefixes false), the tag's name does that. Unknown directives
// are passed with kind xrUnknown, and so are dates of unavailable_after
// unless dates is true (they cost the most to read and matter to Search
// only); scanning stops when yield returns false.
func xrScan(value string, prefixes, dates bool, yield func(agent, agentText, raw string, d xrDirective) bool) {
	agent, agentText := "", ""
	for value != "" {
		var item string
		item, value, _ = strings.Cut(value, ",")
		raw := strings.TrimSpace(item)
		key, val, colon := strings.Cut(raw, ":")
		k := strings.ToLower(strings.TrimSpace(key))
		if colon && prefixes && xrValueKeys[k] == 0 && !xrKnownFlag(k) && policy.ValidProductToken(k) {
			agent, agentText = k, strings.TrimSpace(key)
			raw = strings.TrimSpace(val)
			key, val, colon = strings.Cut(raw, ":")
			k = strings.ToLower(strings.TrimSpace(key))
		}
		if raw == "" {
			continue
		}
		if colon && k == "unavailable_after" && xrDayName(strings.TrimSpace(val)) && value != "" {
			// "Wednesday, 25-Jun-10 15:00:00 GMT" (RFC 850) or
			// "Wed, 25 Jun 2010 15:00:00 GMT" (RFC 822): the date's
			// comma is not a separator.
			var rest string
			rest, value, _ = strings.Cut(value, ",")
			raw += "," + rest
			val += "," + rest
			raw = strings.TrimSpace(raw)
		}
		d := xrDirective{}
		if len(raw) <= xrMaxItem && (dates || k != "unavailable_after") {
			d = xrParse(k, strings.TrimSpace(val), colon)
		}
		if !yield(agent, agentText, raw, d) {
			return
		}
	}
}

func xrKnownFlag(k string) bool {
	_, ok := xrFlagKeys[k]
	return ok
}

// xrParse reads the directive of lower-cased key k and value v (after a
// colon, when colon). A directive it does not know, or whose value is not
// valid, is xrUnknown.
func xrParse(k, v string, colon bool) xrDirective {
	if !colon {
		return xrDirective{kind: xrFlagKeys[k]}
	}
	switch xrValueKeys[k] {
	case xrMaxSnippet:
		if n, err := strconv.Atoi(v); err == nil && n >= -1 {
			return xrDirective{kind: xrMaxSnippet, n: n}
		}
	case xrMaxVideoPreview:
		if n, err := strconv.Atoi(v); err == nil && n >= -1 && n <= xrMaxVideoSeconds {
			return xrDirective{kind: xrMaxVideoPreview, n: n}
		}
	case xrMaxImagePreview:
		switch v = strings.ToLower(v); v {
		case "none", "standard", "large":
			return xrDirective{kind: xrMaxImagePreview, s: v}
		}
	case xrUnavailableAfter:
		if t, ok := xrParseDate(v); ok {
			return xrDirective{kind: xrUnavailableAfter, t: t}
		}
	}
	return xrDirective{}
}

// xrJudge maps directive d onto category c as of now: ok is false when d does
// not speak of c.
func xrJudge(d xrDirective, c Category, now time.Time) (v Verdict, cond Conditions, ok bool) {
	switch c {
	case Search:
		switch d.kind {
		case xrNoIndex, xrNone:
			return Disallowed, cond, true
		case xrUnavailableAfter:
			cond.NotAfter = d.t
			if now.Before(d.t) {
				return Unknown, cond, true
			}
			return Disallowed, cond, true
		case xrNoFollow:
			cond.NoFollow = true
		case xrNoImageIndex:
			cond.NoImageIndex = true
		case xrNoTranslate:
			cond.NoTranslate = true
		case xrIndexIfEmbedded:
			cond.IndexIfEmbedded = true
		case xrMaxImagePreview, xrMaxVideoPreview:
			return xrPreview(d)
		default:
			return Unknown, cond, false
		}
		return Unknown, cond, true
	case Snippet, AIInput:
		switch d.kind {
		case xrNoSnippet:
			return Disallowed, cond, true
		case xrMaxSnippet:
			switch {
			case d.n == 0:
				return Disallowed, cond, true
			case d.n > 0:
				cond.MaxSnippet = d.n
				return Unknown, cond, true
			}
		case xrMaxImagePreview, xrMaxVideoPreview:
			if c == Snippet {
				return xrPreview(d)
			}
		}
	case Archive:
		if d.kind == xrNoArchive {
			return Disallowed, cond, true
		}
	case TrainAI:
		if d.kind == xrNoAI {
			return Disallowed, cond, true
		}
	}
	return Unknown, cond, false
}

// xrPreview returns the condition of a max-image-preview or
// max-video-preview directive; max-video-preview:-1 sets none.
func xrPreview(d xrDirective) (Verdict, Conditions, bool) {
	var cond Conditions
	if d.kind == xrMaxImagePreview {
		cond.MaxImagePreview = d.s
		return Unknown, cond, true
	}
	if d.n < 0 {
		return Unknown, cond, false
	}
	cond.MaxVideoPreview = time.Duration(d.n) * time.Second
	cond.HasMaxVideoPreview = true
	return Unknown, cond, true
}

// xrMaxEvidence is the number of evidences xRobotsEvidence returns, at most,
// beside the disallowing ones it always keeps (one per field or tag name).
const xrMaxEvidence = 64

// xRobotsEvidence returns what the page's X-Robots-Tag fields and robots
// meta tags say of c for agent (a product token or a full User-Agent value,
// see policy.ProductToken), as of now: one Evidence per directive that speaks
// of c and is addressed to every crawler or to agent's product token
// (compared without regard to case). Directives addressed to all and to agent
// are all returned: Google applies the most restrictive of them (the sum of
// the negative rules), which the combination of the evidences does.
//
// The output is bounded: identical evidences from one field name or tag name
// are returned once, and past 64 evidences only a first disallowing one of
// each field or tag name is added, so the verdict never depends on the bound
// (conditions past it may be lost). A directive longer than 256 bytes is
// ignored. Time is linear in the size of the fields and tags.
func xRobotsEvidence(p *Page, agent string, c Category, now time.Time) []Evidence {
	if p == nil {
		return nil
	}
	switch c {
	case Search, Snippet, AIInput, Archive, TrainAI:
	default:
		return nil // no directive speaks of crawling or of mining
	}
	token := strings.ToLower(policy.ProductToken(agent))
	dates := c == Search
	var out []Evidence
	add := func(src Source, agentText, raw string, v Verdict, cond Conditions) {
		for _, e := range out {
			if e.Verdict == v && e.Source.Place == src.Place && e.Source.Name == src.Name && xrSameConditions(e.Conditions, cond) {
				return
			}
		}
		if len(out) >= xrMaxEvidence {
			if v != Disallowed {
				return
			}
			for _, e := range out {
				if e.Verdict == Disallowed && e.Source.Place == src.Place && e.Source.Name == src.Name {
					return
				}
			}
		}
		if agentText != "" {
			raw = agentText + ": " + raw
		}
		src.Text = xrCut(raw)
		out = append(out, Evidence{Category: c, Verdict: v, Conditions: cond, Source: src})
	}
	for _, value := range p.Header.Values("X-Robots-Tag") {
		xrScan(value, true, dates, func(a, agentText, raw string, d xrDirective) bool {
			if a != "" && a != token {
				return true
			}
			if v, cond, ok := xrJudge(d, c, now); ok {
				add(Source{Signal: XRobotsTag, Place: InHeader, Name: "X-Robots-Tag"}, agentText, raw, v, cond)
			}
			return true
		})
	}
	for _, m := range p.Meta {
		if m.Name != "robots" && (token == "" || !strings.EqualFold(m.Name, token)) {
			continue
		}
		xrScan(m.Content, false, dates, func(_, _, raw string, d xrDirective) bool {
			if v, cond, ok := xrJudge(d, c, now); ok {
				add(Source{Signal: MetaRobots, Place: InMeta, Name: m.Name}, "", raw, v, cond)
			}
			return true
		})
	}
	return out
}

// xrSameConditions reports whether two conditions of this signal are equal.
func xrSameConditions(a, b Conditions) bool {
	return a.MaxSnippet == b.MaxSnippet && a.MaxImagePreview == b.MaxImagePreview &&
		a.MaxVideoPreview == b.MaxVideoPreview && a.HasMaxVideoPreview == b.HasMaxVideoPreview &&
		a.NotAfter.Equal(b.NotAfter) && a.NoImageIndex == b.NoImageIndex &&
		a.NoTranslate == b.NoTranslate && a.NoFollow == b.NoFollow &&
		a.IndexIfEmbedded == b.IndexIfEmbedded
}

// xrCut trims s and cuts it at 200 bytes, on a UTF-8 boundary.
func xrCut(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}

// xrDayName reports whether s is the name of a day of the week, in full or
// in three letters, as dates of RFC 822 and RFC 850 begin with.
func xrDayName(s string) bool {
	switch strings.ToLower(s) {
	case "mon", "tue", "wed", "thu", "fri", "sat", "sun",
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday":
		return true
	}
	return false
}

// xrZones are the time zones RFC 822 §5.1 names, with their offsets from UTC
// in hours.
var xrZones = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0, "Z": 0,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5,
	"MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// xrLayouts are the date layouts of unavailable_after, once a day name and a
// time zone are taken off: RFC 822 (and RFC 1123), RFC 850 (and the form
// with a four-digit year Google's own examples use), asctime, and ISO 8601.
var xrLayouts = []string{
	"2 Jan 2006 15:04:05", "2 Jan 2006 15:04", "2 Jan 06 15:04:05", "2 Jan 06 15:04", "2 Jan 2006",
	"2-Jan-2006 15:04:05", "2-Jan-2006 15:04", "2-Jan-06 15:04:05", "2-Jan-06 15:04", "2-Jan-2006",
	"Jan 2 15:04:05 2006",
	"2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04",
	"2006-01-02",
}

// xrParseDate reads the date of unavailable_after. Google accepts "widely
// adopted formats including, but not limited to RFC 822, RFC 850, and ISO
// 8601"; this reads those three (with or without the day name and seconds,
// RFC 1123's four-digit years, RFC 850's dashes with two- or four-digit
// years), asctime, and ISO 8601's date, date-time and RFC 3339 forms. A zone
// is an offset (+0200, -07:00, Z) or one of RFC 822's names (UT, GMT, EST,
// EDT, CST, CDT, MST, MDT, PST, PDT); a date with no zone is in UTC, and one
// with another zone name is not read. A date not read leaves the directive
// ignored, as Google does.
func xrParseDate(s string) (time.Time, bool) {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" || len(s) > 64 {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s)); err == nil {
		return t, true
	}
	if t, err := time.Parse("2006-01-02T15:04Z07:00", strings.ToUpper(s)); err == nil {
		return t, true
	}
	// A day name, with its comma or without (asctime).
	if day, rest, ok := strings.Cut(s, ","); ok && xrDayName(strings.TrimSpace(day)) {
		s = strings.TrimSpace(rest)
	} else if day, rest, ok := strings.Cut(s, " "); ok && xrDayName(day) {
		s = rest
	}
	// A zone: the last field, or an offset glued to an ISO 8601 time.
	offset := 0
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		if off, ok := xrZone(s[i+1:]); ok {
			offset, s = off, s[:i]
		}
	}
	if offset == 0 && strings.Contains(s, "T") {
		if off, rest, ok := xrGluedZone(s); ok {
			offset, s = off, rest
		}
	}
	for _, layout := range xrLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Add(-time.Duration(offset) * time.Second), true
		}
	}
	return time.Time{}, false
}

// xrZone reads a zone: a name of RFC 822, or an offset +hhmm or +hh:mm, and
// returns its offset from UTC in seconds. A word that is not a zone, such as a
// year, is not one.
func xrZone(z string) (int, bool) {
	if h, ok := xrZones[strings.ToUpper(z)]; ok {
		return h * 3600, true
	}
	if len(z) < 5 || (z[0] != '+' && z[0] != '-') {
		return 0, false
	}
	digits := strings.Replace(z[1:], ":", "", 1)
	if len(digits) != 4 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n%100 >= 60 || n/100 > 23 {
		return 0, false
	}
	off := (n/100)*3600 + (n%100)*60
	if z[0] == '-' {
		off = -off
	}
	return off, true
}

// xrGluedZone takes a zone glued to the time of an ISO 8601 date-time
// ("2020-09-21T10:00:00+0200", "…Z") off s.
func xrGluedZone(s string) (int, string, bool) {
	if strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "z") {
		return 0, s[:len(s)-1], true
	}
	if i := strings.LastIndexAny(s, "+-"); i > strings.IndexByte(s, 'T') {
		if off, ok := xrZone(s[i:]); ok {
			return off, s[:i], true
		}
	}
	return 0, s, false
}
