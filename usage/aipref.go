package usage

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxPreferencesSize is the longest statement of preference ParsePreferences
// reads, in bytes; a longer one is an error, so states no preference.
const MaxPreferencesSize = 8 << 10

// The labels of the categories of use of the IETF AI Preferences vocabulary
// (draft-ietf-aipref-vocab-08 §6.1, "Usage Category Labels"), which this
// package maps onto its categories. -08 defines these three and no other;
// none nests in another (§5).
const (
	LabelTrainAI = "train-ai" // AI Training (§4.1): TrainAI
	LabelAIUse   = "ai-use"   // AI Use (§4.2): AIInput
	LabelSearch  = "search"   // Search (§4.3): Search
)

// aiprefSlot numbers the three categories that both the aipref vocabulary
// and Content-Signal speak of, for compact storage.
type aiprefSlot uint8

const (
	slotTrainAI aiprefSlot = iota
	slotAIInput
	slotSearch
	slotCount
)

// aiprefSlotOf returns c's slot, and false when neither Content-Usage nor
// Content-Signal speaks of c.
func aiprefSlotOf(c Category) (aiprefSlot, bool) {
	switch c {
	case TrainAI:
		return slotTrainAI, true
	case AIInput:
		return slotAIInput, true
	case Search:
		return slotSearch, true
	}
	return 0, false
}

// aiprefVerdicts holds a verdict for each slot.
type aiprefVerdicts [slotCount]Verdict

// Preferences is a statement of preference of the IETF AI Preferences
// vocabulary: a preference (Allowed for "y", Disallowed for "n", or Unknown)
// for each label. The zero Preferences states none.
type Preferences struct {
	known aiprefVerdicts
	other []prefTerm // labels outside the vocabulary, y or n only
}

type prefTerm struct {
	label   string
	verdict Verdict
}

// ParsePreferences parses a statement of preference: an RFC 9651 Dictionary
// whose keys are labels and whose values are the Tokens y and n
// (draft-ietf-aipref-vocab-08 §6 and §6.5). A member whose value is anything
// else (another Token, a String, a Boolean, an Inner List) states no
// preference for its label; parameters are ignored; when a label comes twice,
// the last member counts. A value that is not a Dictionary, such as one with
// upper-case keys, is an error: it states no preference at all, which is
// what the zero Preferences returned with the error says. Values over
// MaxPreferencesSize bytes are errors too.
func ParsePreferences(value string) (Preferences, error) {
	return parsePreferences(value, true)
}

// parsePreferences is ParsePreferences; keepOther false drops the labels
// outside the vocabulary, which robots.txt rules do not need.
func parsePreferences(value string, keepOther bool) (Preferences, error) {
	if len(value) > MaxPreferencesSize {
		return Preferences{}, fmt.Errorf("robotsguard: statement of preference of %d bytes, over %d", len(value), MaxPreferencesSize)
	}
	var p Preferences
	err := sfParseDictionary(value, func(key, token string, isToken bool) {
		v := Unknown
		if isToken {
			switch token {
			case "y":
				v = Allowed
			case "n":
				v = Disallowed
			}
		}
		switch key {
		case LabelTrainAI:
			p.known[slotTrainAI] = v
		case LabelAIUse:
			p.known[slotAIInput] = v
		case LabelSearch:
			p.known[slotSearch] = v
		default:
			if keepOther {
				// Unknown entries are kept until the end, so that a later
				// invalid value erases an earlier y or n.
				p.other = append(p.other, prefTerm{key, v})
			}
		}
	})
	if err != nil {
		return Preferences{}, err
	}
	p.other = lastTerms(p.other)
	return p, nil
}

// lastTerms keeps the last term of each label, and drops those that state
// no preference. It takes time linear in len(terms) on average.
func lastTerms(terms []prefTerm) []prefTerm {
	if len(terms) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(terms))
	out := terms[:0:0]
	for i := len(terms) - 1; i >= 0; i-- {
		t := terms[i]
		if seen[t.label] {
			continue
		}
		seen[t.label] = true
		if t.verdict != Unknown {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil
	}
	// Back to the order of the value.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Term returns the preference stated for a label, as written in the
// statement (labels are case-sensitive): Allowed for y, Disallowed for n,
// Unknown otherwise. It answers any label, including those -08 does not
// define (such as "all", "bots" or "train-genai" of earlier drafts), but
// applies no inheritance between them: -08 has none (§5).
func (p Preferences) Term(label string) Verdict {
	switch label {
	case LabelTrainAI:
		return p.known[slotTrainAI]
	case LabelAIUse:
		return p.known[slotAIInput]
	case LabelSearch:
		return p.known[slotSearch]
	}
	for _, t := range p.other {
		if t.label == label {
			return t.verdict
		}
	}
	return Unknown
}

// Category returns the preference stated for c: train-ai for TrainAI,
// ai-use for AIInput, search for Search; Unknown for the other categories,
// of which the vocabulary does not speak. Each label speaks of its own
// category only (draft-ietf-aipref-vocab-08 §5). Search overrides the other
// categories (§4.3) for a use that qualifies as Search, which a crawler
// asks as Search: train-ai=n and ai-use=n do not disallow Search, and
// search=y allows neither TrainAI nor AIInput.
func (p Preferences) Category(c Category) Verdict {
	if s, ok := aiprefSlotOf(c); ok {
		return p.known[s]
	}
	return Unknown
}

// IsZero reports whether p states no preference for any label.
func (p Preferences) IsZero() bool {
	return p.known == aiprefVerdicts{} && len(p.other) == 0
}

// String returns p in the syntax it was parsed from, with the labels of the
// vocabulary first, such as "train-ai=n, ai-use=n, search=y".
func (p Preferences) String() string {
	var b strings.Builder
	add := func(label string, v Verdict) {
		if v == Unknown {
			return
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(label)
		if v == Allowed {
			b.WriteString("=y")
		} else {
			b.WriteString("=n")
		}
	}
	add(LabelTrainAI, p.known[slotTrainAI])
	add(LabelAIUse, p.known[slotAIInput])
	add(LabelSearch, p.known[slotSearch])
	for _, t := range p.other {
		add(t.label, t.verdict)
	}
	return b.String()
}

// aiprefMaxText is the length at which Source.Text is cut.
const aiprefMaxText = 200

// aiprefText returns s trimmed and cut at aiprefMaxText bytes, on a rune
// boundary when s is UTF-8.
func aiprefText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= aiprefMaxText {
		return s
	}
	n := aiprefMaxText
	for n > aiprefMaxText-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// contentUsageHeaderEvidence returns what the page's Content-Usage header
// fields say of c: one Evidence when their statement of preference, all
// fields combined into one Dictionary (RFC 9651 §4.2), states a preference
// for c's label, and none when it states none or does not parse.
func contentUsageHeaderEvidence(p *Page, c Category) []Evidence {
	if p == nil || p.Header == nil {
		return nil
	}
	slot, ok := aiprefSlotOf(c)
	if !ok {
		return nil
	}
	fields := p.Header.Values("Content-Usage")
	if len(fields) == 0 {
		return nil
	}
	value := fields[0]
	if len(fields) > 1 {
		size := 0
		for _, f := range fields {
			size += len(f) + 2
			if size > MaxPreferencesSize+2 {
				return nil
			}
		}
		value = strings.Join(fields, ", ")
	}
	prefs, err := parsePreferences(value, false)
	if err != nil {
		return nil
	}
	v := prefs.known[slot]
	if v == Unknown {
		return nil
	}
	return []Evidence{{
		Category: c,
		Verdict:  v,
		Source: Source{
			Signal: ContentUsage,
			Place:  InHeader,
			Name:   "Content-Usage",
			Text:   aiprefText(value),
		},
	}}
}
