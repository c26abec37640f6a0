package usage

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// tdmNaiveMatch matches a location against target by the plain reading of
// the report: the canonical pattern, anchored at the start of the canonical
// path, '*' any sequence, a final '$' the end. ok is false when the pattern
// is too long to be compiled as a regular expression.
func tdmNaiveMatch(location, target string) (match, ok bool) {
	loc := strings.TrimSpace(location)
	if !strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "*") {
		loc = policy.PathOf(loc)
	}
	pat := policy.CanonicalPattern(loc)
	if len(pat) > 1000 {
		return false, false
	}
	body, anchored := strings.CutSuffix(pat, "$")
	parts := strings.Split(body, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	expr := "(?s)^" + strings.Join(parts, ".*")
	if anchored {
		expr += "$"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return false, false
	}
	return re.MatchString(policy.CanonicalPath(policy.PathOf(target))), true
}

func FuzzParseTDMRep(f *testing.F) {
	for _, name := range []string{"sec-tdm-file-example-1.json", "sec-tdm-file-example-2.json"} {
		body, err := os.ReadFile(filepath.Join("testdata", "tdmrep", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, target := range []string{"/", "/directory-a/x.pdf", "/directory-b/html/a.html", "/directory-b/images/a.jpg", "/directory-b/images/a.png"} {
			f.Add(body, target)
		}
	}
	for _, seed := range [][2]string{
		{`[{"location": "/this/path/exactly$", "tdm-reservation": 1}]`, "/this/path/exactly"},
		{`[{"location": "/this/*/then", "tdm-reservation": 0}]`, "/this/a/b/then"},
		{`[{"location": "/path/foo-%24", "tdm-reservation": 1}]`, "https://provider.com/path/foo-$"},
		{`[{"location": "/a/b/", "tdm-reservation": 0}, {"location": "/a/", "tdm-reservation": 1}]`, "/a/b/c"},
		{`[{"location": "https://x.example/a", "tdm-reservation": "1", "tdm-policy": "p"}, 3, null]`, "/a?q=%62"},
		{`{"location": "/", "tdm-reservation": 1}`, "/"},
		{"\xef\xbb\xbf[]", "/"},
		{`[{"location": "/*.php$", "tdm-reservation": 1e0}]`, "/x.php"},
	} {
		f.Add([]byte(seed[0]), seed[1])
	}
	f.Fuzz(func(t *testing.T, body []byte, target string) {
		file, err := ParseTDMRep(body, "https://provider.com/.well-known/tdmrep.json")
		if err != nil {
			if file != nil || !errors.Is(err, ErrTDMRep) || !strings.HasPrefix(err.Error(), "robotsguard: ") {
				t.Fatalf("error %v with file %v", err, file)
			}
			return
		}
		rules := file.Rules()
		if len(rules) > MaxTDMRepRules || len(file.Problems()) > tdmMaxProblems+1 {
			t.Fatalf("%d rules, %d problems", len(rules), len(file.Problems()))
		}
		r, ok := file.Rule(target)
		// The rule found is the first whose location matches, by the naive
		// reading.
		for _, rule := range rules {
			m, sure := tdmNaiveMatch(rule.Location, target)
			if !sure {
				return
			}
			if m {
				if !ok || r != rule {
					t.Fatalf("Rule(%q) = %+v, %v; the first naive match is %+v", target, r, ok, rule)
				}
				break
			}
			if ok && r.Index == rule.Index {
				t.Fatalf("Rule(%q) = %+v, which does not match naively", target, r)
			}
		}
		if ok != (r.Index > 0) {
			t.Fatalf("Rule(%q) = %+v, %v", target, r, ok)
		}
		ev := tdmEvidence(file, nil, target, TDM)
		switch {
		case ok && r.Reservation == TDMReserved:
			if len(ev) != 1 || ev[0].Verdict != Disallowed || ev[0].Source.Line != r.Index || ev[0].Conditions.Policy != r.Policy {
				t.Fatalf("rule %+v gave %v", r, ev)
			}
		case ok && r.Reservation == TDMNotReserved:
			if len(ev) != 1 || ev[0].Verdict != Allowed || ev[0].Source.Line != r.Index {
				t.Fatalf("rule %+v gave %v", r, ev)
			}
		default:
			if ev != nil {
				t.Fatalf("no reservation, evidence %v", ev)
			}
		}
		if len(ev) == 1 && len(ev[0].Source.Text) > 200 {
			t.Fatalf("source text of %d bytes", len(ev[0].Source.Text))
		}
	})
}

// FuzzTDMHeaderMeta checks the header field and meta tag readers against
// the plain reading: a value is "0" or "1" once trimmed, and a valid meta
// tag supersedes a valid header field.
func FuzzTDMHeaderMeta(f *testing.F) {
	for _, seed := range [][3]string{
		{"1", "", "https://provider.com/policies/policy.json"},
		{"0", "1", ""},
		{"1, 1", "0", "/p"},
		{"1, 0", " 1 ", "%zz"},
		{"yes", "2", "https://provider.com/p"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, header, meta, pol string) {
		h := http.Header{}
		h.Set("Tdm-Reservation", header)
		h.Set("Tdm-Policy", pol)
		p := &Page{URL: "https://provider.com/doc", Header: h, Meta: []Meta{{"tdm-reservation", meta, false}, {"tdm-policy", pol, false}}}
		ev := tdmEvidence(nil, p, p.URL, TrainAI)
		want, place := Unknown, Place(0)
		verdict := func(s string) Verdict {
			switch s {
			case "0":
				return Allowed
			case "1":
				return Disallowed
			}
			return Unknown
		}
		if v := verdict(strings.Trim(header, " \t")); v != Unknown {
			want, place = v, InHeader
		}
		if v := verdict(strings.TrimSpace(meta)); v != Unknown {
			want, place = v, InMeta
		}
		if want == Unknown {
			// Only a list of values may still give one ("1, 1").
			if len(ev) == 1 && (ev[0].Source.Place != InHeader || !strings.Contains(header, ",")) {
				t.Fatalf("header %q, meta %q gave %v", header, meta, ev)
			}
			return
		}
		if len(ev) != 1 || ev[0].Verdict != want || ev[0].Source.Place != place || ev[0].Category != TrainAI {
			t.Fatalf("header %q, meta %q gave %v; want %v from place %d", header, meta, ev, want, place)
		}
		if len(ev[0].Source.Text) > 200 || len(ev[0].Conditions.Policy) > tdmMaxPolicyBytes+len(p.URL) {
			t.Fatalf("unbounded evidence %v", ev)
		}
		if want == Allowed && ev[0].Conditions.Policy != "" {
			t.Fatalf("a policy with no reservation: %v", ev)
		}
	})
}
