package acap

import (
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Usage is an ACAP usage type (section 2.5): a basic usage (crawl,
// follow, index, preserve, present), the general usage other, or present
// followed by a used resource type (present-snippet, …).
type Usage string

// The usage types of ACAP 1.1.
const (
	Crawl    Usage = "crawl"
	Follow   Usage = "follow"
	Index    Usage = "index"
	Preserve Usage = "preserve"
	Present  Usage = "present"
	Other    Usage = "other"

	PresentOriginal     Usage = "present-original"
	PresentCurrentCopy  Usage = "present-currentcopy"
	PresentOldCopy      Usage = "present-oldcopy"
	PresentSnippet      Usage = "present-snippet"
	PresentThumbnail    Usage = "present-thumbnail"
	PresentOldSnippet   Usage = "present-oldsnippet"
	PresentOldThumbnail Usage = "present-oldthumbnail"
	PresentLink         Usage = "present-link"
)

// usageList holds the usage types; the index of one is its position.
var usageList = [...]Usage{Crawl, Follow, Index, Preserve, Present, Other,
	PresentOriginal, PresentCurrentCopy, PresentOldCopy, PresentSnippet,
	PresentThumbnail, PresentOldSnippet, PresentOldThumbnail, PresentLink}

// Valid reports whether u is one of the usage types of ACAP 1.1 (section
// 2.5), ignoring case. Decide does not decide any other usage: it
// prohibits it, with Basis BasisInvalidUsage.
func (u Usage) Valid() bool {
	_, ok := parseUsage(string(u))
	return ok
}

// parseUsage reads a standard usage type name, ignoring case.
func parseUsage(s string) (Usage, bool) {
	u := Usage(strings.ToLower(s))
	return u, slices.Contains(usageList[:], u)
}

// index returns the position of a usage type in usageList; its parts of a
// Policy are all standard usage types.
func (u Usage) index() int {
	switch u {
	case Crawl:
		return 0
	case Follow:
		return 1
	case Index:
		return 2
	case Preserve:
		return 3
	case Present:
		return 4
	case Other:
		return 5
	}
	return slices.Index(usageList[6:], u) + 6
}

// A usageSet is a set of standard usage types, by index.
type usageSet uint16

func (s usageSet) with(u Usage) usageSet { return s | 1<<u.index() }

func (s usageSet) has(u Usage) bool { return s&(1<<u.index()) != 0 }

// Basic returns the basic usage type u is based upon: present for every
// present-*, u itself otherwise.
func (u Usage) Basic() Usage {
	if strings.HasPrefix(string(u), "present-") {
		return Present
	}
	return u
}

// covers reports whether a field for usage u applies to usage v: the same
// usage, or present for any present-* (section 2.5.5).
func (u Usage) covers(v Usage) bool {
	return u == v || u == Present && v.Basic() == Present
}

// A Qualifier restricts a permission (section 2.5), e.g. time-limit=3-days.
type Qualifier struct {
	Type  string // lower-case, e.g. "time-limit"
	Value string // as written
}

func (q Qualifier) String() string { return q.Type + "=" + q.Value }

// The usage types each qualifier may qualify (Annex A).
var presentKinds = []Usage{Present, PresentOriginal, PresentCurrentCopy, PresentOldCopy,
	PresentSnippet, PresentThumbnail, PresentOldSnippet, PresentOldThumbnail, PresentLink}

var qualifierUsages = map[string][]Usage{
	"time-limit":              append([]Usage{Index, Preserve}, presentKinds...),
	"must-use-resource":       {Index, Present, PresentSnippet, PresentThumbnail, PresentOldSnippet, PresentOldThumbnail, PresentLink},
	"max-length":              {PresentSnippet, PresentOldSnippet},
	"prohibited-modification": {Present, PresentOriginal, PresentCurrentCopy, PresentOldCopy},
	"must-include-resource":   {Present, PresentSnippet, PresentOldSnippet},
	"prohibited-context":      {Present, PresentOriginal, PresentCurrentCopy, PresentOldCopy},
	"required-context":        {Present, PresentOriginal, PresentCurrentCopy, PresentOldCopy},
	"target-condition":        {Present},
	"usage-ref":               {Other},
}

// v11Qualifiers are the qualifier types ACAP 1.1 introduced.
var v11Qualifiers = map[string]bool{"target-condition": true, "usage-ref": true}

// checkValue reports whether v is a valid value of qualifier type typ, and
// whether it is one that ACAP 1.1 introduced.
func checkValue(typ, v string) (ok, v11 bool) {
	lv := strings.ToLower(v)
	switch typ {
	case "time-limit":
		switch {
		case lv == "until-recrawled":
			return true, false
		case lv == "plus-terms":
			return true, true
		case strings.HasPrefix(lv, "until-"):
			_, err := time.Parse("2006-01-02", lv[len("until-"):])
			return err == nil, false
		case strings.HasSuffix(lv, "-days"):
			return isCount(lv[:len(lv)-len("-days")]), false
		}
	case "max-length":
		n, unit, ok := strings.Cut(lv, "-")
		return ok && isCount(n) && (unit == "chars" || unit == "words"), false
	case "prohibited-modification":
		switch lv {
		case "any", "format", "style", "translation", "annotation":
			return true, false
		case "appearance", "content", "metadata", "structure", "plus-terms":
			return true, true
		}
	case "prohibited-context":
		return lv == "within-user-frame", false
	case "required-context":
		switch lv {
		case "within-original-frame":
			return true, false
		case "within-user-frame":
			return true, true
		}
	case "must-use-resource":
		return checkUseResource(v)
	case "must-include-resource":
		if lv == "plus-terms" {
			return true, false // not marked [V1.1] in section 2.5.5.6, unlike the other plus-terms
		}
		return checkRoleLocator(v, map[string]bool{"extract": false, "credit": false, "link": false, "license-link": true, "registration-link": true})
	case "usage-ref":
		ok, _ := checkRoleLocator(v, map[string]bool{"link": true, "terms-link": true, "permission-link": true})
		return ok, true
	case "target-condition":
		return checkTargetCondition(v), true
	}
	return false, false
}

// isCount reports whether s is a decimal number of at most nine digits.
func isCount(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && len(s) <= 9
}

const scheme = "the-acap:"

// checkUseResource validates a must-use-resource value (section 2.5.3.2):
// a regular URI, or one of the-acap:extract:… and the-acap:text:….
func checkUseResource(v string) (ok, v11 bool) {
	lv := strings.ToLower(v)
	if !strings.HasPrefix(lv, scheme) {
		return isURI(v), false
	}
	rest := lv[len(scheme):]
	if t, ok := strings.CutPrefix(rest, "text:"); ok {
		return t != "", true
	}
	kind, name, ok := strings.Cut(strings.TrimPrefix(rest, "extract:"), ":")
	if !strings.HasPrefix(rest, "extract:") || !ok || name == "" {
		return false, false
	}
	switch kind {
	case "id", "class", "meta":
		return !strings.Contains(name, ","), false
	case "idlist", "classlist", "taglist":
		return !hasEmpty(strings.Split(name, ",")), true
	}
	return false, false
}

// checkRoleLocator validates a value that is a general URI or
// the-acap:role:locator, where roles maps each valid role to whether ACAP
// 1.1 introduced it (sections 2.5.5.6 and 2.5.6.1).
func checkRoleLocator(v string, roles map[string]bool) (ok, v11 bool) {
	lv := strings.ToLower(v)
	if !strings.HasPrefix(lv, scheme) {
		return isURI(v), false
	}
	role, loc, ok := strings.Cut(lv[len(scheme):], ":")
	roleV11, known := roles[role]
	if !ok || !known || loc == "" {
		return false, false
	}
	kind, name, hasKind := strings.Cut(loc, ":")
	switch {
	case hasKind && (kind == "id" || kind == "class" || kind == "meta"):
		return name != "", roleV11
	case hasKind && kind == "text":
		return name != "", true
	}
	return isURI(v[len(scheme)+len(role)+1:]), roleV11
}

// checkTargetCondition validates a target-condition value (section
// 2.5.5.9): condition-type:condition-value.
func checkTargetCondition(v string) bool {
	typ, val, ok := strings.Cut(v, ":")
	if !ok || val == "" {
		return false
	}
	switch strings.ToLower(typ) {
	case "ipaddressrangelist":
		for _, r := range strings.Split(val, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			if !isIP(lo) || isRange && !isIP(hi) {
				return false
			}
		}
		return true
	case "ipaddressmasklist":
		for _, m := range strings.Split(val, ",") {
			ip, mask, ok := strings.Cut(m, "/")
			if !ok || !isIP(ip) || !isIP(mask) {
				return false
			}
		}
		return true
	case "permitteddomainlist", "prohibiteddomainlist", "permittedcountrylist", "prohibitedcountrylist":
		return !hasEmpty(strings.Split(val, ","))
	case "rulesref":
		return isURI(val)
	}
	return false
}

// hasEmpty reports whether a list item is empty or only spaces.
func hasEmpty(items []string) bool {
	return slices.ContainsFunc(items, func(s string) bool { return strings.TrimSpace(s) == "" })
}

func isIP(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

func isURI(s string) bool {
	if s == "" {
		return false
	}
	_, err := url.Parse(s)
	return err == nil
}

// maxQualifiers is the number of qualifiers a field, a qualified usage or
// a usage of a composite usage may hold.
const maxQualifiers = 32

// once lists the qualifier types of which only the first occurrence in a
// field counts (ACAP 1.1 says so for each).
var once = map[string]bool{
	"must-use-resource": true, "max-length": true, "must-include-resource": true,
	"prohibited-context": true, "required-context": true,
}

// checkQualifiers validates the qualifiers of a permission of usage u and
// applies the rules for repeated qualifiers. It returns the qualifiers that
// count, whether the field relies on an ACAP 1.1 feature, and the first
// problem that makes the field impossible to interpret, if any.
//
// A field with more than maxQualifiers qualifiers cannot be interpreted: no
// combination of the qualifiers of Annex A needs that many, and the cost of
// reading composite usages grows with them.
func checkQualifiers(u Usage, qs []Qualifier) (effective []Qualifier, v11 bool, problem string) {
	if len(qs) > maxQualifiers {
		return nil, false, "more than " + strconv.Itoa(maxQualifiers) + " qualifiers"
	}
	count := map[string]int{}
	for _, q := range qs {
		allowed := false
		for _, a := range qualifierUsages[q.Type] {
			allowed = allowed || a == u
		}
		if !allowed {
			if _, known := qualifierUsages[q.Type]; !known {
				return nil, v11, "unknown qualifier " + q.Type
			}
			return nil, v11, "qualifier " + q.Type + " does not apply to usage " + string(u)
		}
		count[q.Type]++
		n := count[q.Type]
		if n == 2 && q.Type != "prohibited-modification" {
			v11 = true // repeating a qualifier is an ACAP 1.1 feature
		}
		if q.Type == "time-limit" && n > 2 || once[q.Type] && n > 1 {
			continue // an occurrence that is ignored (sections 2.5.3.1, 2.5.5)
		}
		ok, newer := checkValue(q.Type, q.Value)
		if !ok {
			return nil, v11, "invalid value of " + q.String()
		}
		v11 = v11 || newer || v11Qualifiers[q.Type]
	}
	return combine(qs), v11, ""
}

// combine applies the rules for repeated qualifiers of sections 2.5.3.1,
// 2.5.5.3 to 2.5.5.9 and 2.5.6.1, keeping the order of those that count.
func combine(qs []Qualifier) []Qualifier {
	var times, mods, targets []Qualifier
	keep := map[Qualifier]bool{}
	seen := map[string]bool{}
	for _, q := range qs {
		switch {
		case q.Type == "time-limit":
			times = append(times, q)
		case q.Type == "prohibited-modification":
			mods = append(mods, q)
		case q.Type == "target-condition":
			targets = append(targets, q)
		case once[q.Type]:
			if !seen[q.Type] {
				seen[q.Type] = true
				keep[q] = true
			}
		default: // usage-ref: each names another resource
			keep[q] = true
		}
	}
	for _, q := range combineTimeLimits(times) {
		keep[q] = true
	}
	// prohibited-modification: any or plus-terms overrides the others.
	for _, q := range mods {
		if v := strings.ToLower(q.Value); v == "any" || v == "plus-terms" {
			mods = []Qualifier{q}
			break
		}
	}
	// target-condition: a rulesref stands only as the first and only one.
	if len(targets) > 1 {
		targets = slices.DeleteFunc(targets, func(q Qualifier) bool {
			return strings.HasPrefix(strings.ToLower(q.Value), "rulesref:")
		})
	}
	for _, q := range append(mods, targets...) {
		keep[q] = true
	}
	var out []Qualifier
	for _, q := range qs {
		if keep[q] {
			out = append(out, q)
			delete(keep, q) // a qualifier written twice counts once
		}
	}
	return out
}

// combineTimeLimits applies section 2.5.3.1: plus-terms stands only as the
// first and only time-limit (a plus-terms followed by another is dropped);
// of two others, the second counts only in the combinations the section
// lists; a third and later are ignored.
func combineTimeLimits(ts []Qualifier) []Qualifier {
	kind := func(q Qualifier) string {
		v := strings.ToLower(q.Value)
		switch {
		case v == "until-recrawled", v == "plus-terms":
			return v
		case strings.HasPrefix(v, "until-"):
			return "date"
		}
		return "days"
	}
	if len(ts) > 2 {
		ts = ts[:2]
	}
	if len(ts) == 2 && kind(ts[0]) == "plus-terms" {
		ts = ts[1:]
	}
	if len(ts) == 2 {
		a, b := kind(ts[0]), kind(ts[1])
		if a == b || b == "plus-terms" {
			ts = ts[:1]
		}
	}
	return ts
}

// Deadline returns when a usage that a time-limit qualifier restricts must
// end: for until-yyyy-mm-dd, the end of that day in UTC; for n-days, n days
// after first, the time the resource was first used. ok is false for other
// qualifiers and for until-recrawled and plus-terms, which no clock decides.
func (q Qualifier) Deadline(first time.Time) (t time.Time, ok bool) {
	if q.Type != "time-limit" {
		return time.Time{}, false
	}
	v := strings.ToLower(q.Value)
	if d, ok := strings.CutPrefix(v, "until-"); ok {
		day, err := time.Parse("2006-01-02", d)
		if err != nil {
			return time.Time{}, false
		}
		return day.AddDate(0, 0, 1), true
	}
	if n, ok := strings.CutSuffix(v, "-days"); ok && isCount(n) {
		days, _ := strconv.Atoi(n)
		return first.AddDate(0, 0, days), true
	}
	return time.Time{}, false
}
