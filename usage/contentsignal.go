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
)

// parseContentSignal reads a Content-Signal value into a verdict for each
// slot: search for Search, ai-input for AIInput, ai-train for TrainAI (yes
// allows, no disallows; a key that is absent states nothing). Keys and
// values are compared ignoring case, and spaces around them are ignored;
// other keys (such as Cloudflare's "use") are ignored. A key given twice
// with different values disallows: the most restrictive counts. err
// reports the first element that could not be read (the others still
// count). It takes time linear in len(value) and allocates nothing.
func parseContentSignal(value string) (v aiprefVerdicts, err error) {
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
	return v, err
}
