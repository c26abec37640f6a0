package usage

import (
	"errors"
	"strings"
)

// Content-Signal values (contentsignals.org): a comma-separated list of
// key=value pairs, such as "search=yes, ai-input=no, ai-train=no".

var (
	errCSPair  = errors.New("robotsguard: Content-Signal: an element is not key=value")
	errCSValue = errors.New("robotsguard: Content-Signal: a signal's value is neither yes nor no")
	errCSUse   = errors.New("robotsguard: Content-Signal: use is neither immediate, reference nor full")
)

// The use levels of Content-Signal's use key, from the least permissive to
// the most (0: none given).
var contentUses = [...]string{1: "immediate", 2: "reference", 3: "full"}

// contentUseRank returns the rank of a use level (1 to 3), or 0.
func contentUseRank(use string) uint8 {
	for i, u := range contentUses {
		if u != "" && u == use {
			return uint8(i)
		}
	}
	return 0
}

// parseContentSignal reads a Content-Signal value into a verdict for each
// slot: search for Search, ai-input for AIInput, ai-train for TrainAI (yes
// allows, no disallows; a key that is absent states nothing), and the rank
// of its use level (immediate 1, reference 2, full 3; 0 when none). Keys
// and values are compared ignoring case, and spaces around them are
// ignored; other keys are ignored. A key given twice with different values
// counts as the most restrictive of them. err reports the first element
// that could not be read (the others still count). It takes time linear in
// len(value) and allocates nothing.
func parseContentSignal(value string) (v aiprefVerdicts, use uint8, err error) {
	for rest := value; rest != ""; {
		elem := rest
		if i := strings.IndexByte(rest, ','); i >= 0 {
			elem, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		elem = strings.Trim(elem, " \t")
		if elem == "" {
			continue
		}
		key, val, ok := strings.Cut(elem, "=")
		if !ok {
			if err == nil {
				err = errCSPair
			}
			continue
		}
		key, val = strings.Trim(key, " \t"), strings.Trim(val, " \t")
		var slot aiprefSlot
		switch {
		case strings.EqualFold(key, "use"):
			r := uint8(0)
			for i, u := range contentUses {
				if u != "" && strings.EqualFold(val, u) {
					r = uint8(i)
				}
			}
			switch {
			case r == 0:
				if err == nil {
					err = errCSUse
				}
			case use == 0 || r < use:
				use = r
			}
			continue
		case strings.EqualFold(key, "search"):
			slot = slotSearch
		case strings.EqualFold(key, "ai-input"):
			slot = slotAIInput
		case strings.EqualFold(key, "ai-train"):
			slot = slotTrainAI
		default:
			continue
		}
		var verdict Verdict
		switch {
		case strings.EqualFold(val, "yes"):
			verdict = Allowed
		case strings.EqualFold(val, "no"):
			verdict = Disallowed
		default:
			if err == nil {
				err = errCSValue
			}
			continue
		}
		if v[slot] != Disallowed {
			v[slot] = verdict
		}
	}
	return v, use, err
}
