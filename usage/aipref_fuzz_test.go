package usage

import (
	"strings"
	"testing"
)

// naivePreferences reads a value made only of keys, '=', Tokens, commas and
// spaces the simple way: split at commas, the last value of a key counts,
// and only y and n state a preference. ok is false for values outside that
// subset.
func naivePreferences(value string) (v aiprefVerdicts, ok bool) {
	if strings.ContainsAny(value, "\"();:%@?\\") {
		return v, false
	}
	for _, elem := range strings.Split(value, ",") {
		key, val, _ := strings.Cut(strings.Trim(elem, " \t"), "=")
		var s aiprefSlot
		switch key {
		case LabelTrainAI:
			s = slotTrainAI
		case LabelAIUse:
			s = slotAIInput
		case LabelSearch:
			s = slotSearch
		default:
			continue
		}
		switch val {
		case "y":
			v[s] = Allowed
		case "n":
			v[s] = Disallowed
		default:
			v[s] = Unknown
		}
	}
	return v, true
}

func FuzzParsePreferences(f *testing.F) {
	for _, s := range []string{
		"train-ai=y, search=n", "ai-use=n", `train-ai=y, train-ai, search=n, search="n"`,
		`train-ai;allow=n, train-ai=y`, `train-ai;has;parameters="?";`, "Train-AI=n",
		`en="Applepie", da=:w4ZibGV0w6ZydGU=:`, `a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid`,
		`a=%"caf%c3%a9"`, `a=@1659578233`, `a=-12.345`, "train-genai=n, bots=y", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		p, err := ParsePreferences(value)
		if err != nil {
			if !p.IsZero() {
				t.Fatalf("%q: preferences %v with error %v", value, p, err)
			}
			if !strings.HasPrefix(err.Error(), "robotsguard: ") {
				t.Fatalf("error %q", err)
			}
			return
		}
		// Bounded output: at most one term per member.
		if len(p.other) > sfMaxMembers || len(p.String()) > 2*len(value) {
			t.Fatalf("%q: %d other terms, String %q", value, len(p.other), p.String())
		}
		// What String writes reads back the same.
		q, err := ParsePreferences(p.String())
		if err != nil || q.String() != p.String() || q.known != p.known {
			t.Fatalf("%q: String %q reads back as %q, %v", value, p.String(), q.String(), err)
		}
		if want, ok := naivePreferences(value); ok && want != p.known {
			t.Fatalf("%q: %v, naive reading %v", value, p.known, want)
		}
	})
}

func FuzzRobotsSignals(f *testing.F) {
	for _, s := range []string{
		"User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n",
		"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n",
		"User-Agent: *\nContent-signal: search=yes,ai-train=no\nAllow: /\n",
		"User-Agent: *\nContent-Signal: ai-train=no, search=yes, ai-input=yes\nAllow: /\n",
		"User-agent: a\nContent-Usage: /x* search=n\nUser-agent: b\nContent-Signal: /x$ ai-input=no\n",
	} {
		f.Add([]byte(s), "ExampleBot/1.0", "/ai-ok/test", "train-ai=n, ai-use=y")
	}
	f.Fuzz(func(t *testing.T, body []byte, agent, target, value string) {
		r := ParseRobots(body, robotsURL)
		// Lines end at CR, LF or CRLF, as RFC 9309 §2.2 has them.
		lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n"), "\n")
		nrules := 0
		if r != nil { // nil for a body without a content- key
			nrules = len(r.rules)
		}
		for _, c := range Categories() {
			ev := r.Evidence(agent, target, c)
			if len(ev) > nrules {
				t.Fatalf("%d evidences from %d rules", len(ev), nrules)
			}
			for _, e := range ev {
				s := e.Source
				if e.Verdict == Unknown || e.Category != c || s.Line < 1 || s.Line > len(lines) || len(s.Text) > aiprefMaxText ||
					s.Signal != ContentUsage && s.Signal != ContentSignal {
					t.Fatalf("malformed evidence %+v", e)
				}
				if !strings.Contains(strings.ToLower(lines[s.Line-1]), "content-") {
					t.Fatalf("evidence from line %d %q", s.Line, lines[s.Line-1])
				}
			}
		}
		if !aiprefMayHaveSignals(body) && !r.Empty() {
			t.Fatal("signals without a content- key")
		}

		// Naive reading: one "*" group with one path-less Content-Usage
		// line says, for every agent and path, what the value says, less
		// the white space around it that the robots.txt parser trims from
		// every value (Google's reading: what C's isspace reports).
		value = strings.Trim(value, " \t\v\f")
		if value == "" || value[0] == '/' || strings.ContainsAny(value, "#\r\n\x00") {
			return
		}
		r = ParseRobots([]byte("User-agent: *\nContent-Usage: "+value+"\n"), robotsURL)
		p, _ := ParsePreferences(value)
		for _, c := range []Category{TrainAI, AIInput, Search} {
			if got, want := verdictOf(r.Evidence(agent, target, c)), p.Category(c); got != want {
				t.Fatalf("%q %s: %v, ParsePreferences says %v", value, c, got, want)
			}
		}
	})
}
