package usage

import (
	"net/http"
	"strings"
	"testing"
)

// Examples of draft-ietf-aipref-vocab-08 (14 September 2026): each test is
// named after the section it comes from.

func mustPrefs(t *testing.T, value string) Preferences {
	t.Helper()
	p, err := ParsePreferences(value)
	if err != nil {
		t.Fatalf("ParsePreferences(%q): %v", value, err)
	}
	return p
}

func wantTerms(t *testing.T, p Preferences, want map[string]Verdict) {
	t.Helper()
	for label, v := range want {
		if got := p.Term(label); got != v {
			t.Errorf("Term(%q) = %v, want %v", label, got, v)
		}
	}
}

// §6 Exemplary Serialization Format: allow model training, disallow
// search, the other categories unknown.
func TestVocabSection6Example(t *testing.T) {
	p := mustPrefs(t, "train-ai=y, search=n")
	wantTerms(t, p, map[string]Verdict{"train-ai": Allowed, "search": Disallowed, "ai-use": Unknown})
	for c, want := range map[Category]Verdict{TrainAI: Allowed, Search: Disallowed, AIInput: Unknown, TDM: Unknown, Crawl: Unknown, Snippet: Unknown} {
		if got := p.Category(c); got != want {
			t.Errorf("Category(%s) = %v, want %v", c, got, want)
		}
	}
}

// §6.1 Usage Category Labels: three labels, train-ai (AI Training, §4.1),
// ai-use (AI Use, §4.2, new in -08) and search (Search, §4.3). ai-use is
// AIInput.
func TestVocabSection6_1Labels(t *testing.T) {
	for _, tc := range []struct {
		value            string
		train, use, srch Verdict
	}{
		{"ai-use=n, search=y", Unknown, Disallowed, Allowed},
		{"ai-use=y", Unknown, Allowed, Unknown},
		{"train-ai=n, ai-use=y, search=n", Disallowed, Allowed, Disallowed},
		{"ai-use=y, ai-use=n", Unknown, Disallowed, Unknown},
		{`ai-use="n"`, Unknown, Unknown, Unknown},
	} {
		p := mustPrefs(t, tc.value)
		if p.Category(TrainAI) != tc.train || p.Category(AIInput) != tc.use || p.Category(Search) != tc.srch {
			t.Errorf("%q: train-ai %v, ai-use %v, search %v; want %v %v %v", tc.value,
				p.Category(TrainAI), p.Category(AIInput), p.Category(Search), tc.train, tc.use, tc.srch)
		}
		if p.Term(LabelAIUse) != tc.use {
			t.Errorf("%q: Term(ai-use) = %v, want %v", tc.value, p.Term(LabelAIUse), tc.use)
		}
	}
}

// §6.4: unknown labels are ignored, among them every label of earlier
// drafts that -08 does not define: they say nothing of any category, and
// Term still answers them as written.
func TestVocabSection6_4EarlierLabels(t *testing.T) {
	old := []string{"all", "bots", "train-genai", "ai-output", "tdm", "ai", "genai", "inference"}
	var b strings.Builder
	for i, l := range old {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(l + "=n")
	}
	p := mustPrefs(t, b.String())
	for _, c := range Categories() {
		if got := p.Category(c); got != Unknown {
			t.Errorf("%s = %v, want unknown", c, got)
		}
	}
	for _, l := range old {
		if p.Term(l) != Disallowed {
			t.Errorf("Term(%q) = %v", l, p.Term(l))
		}
	}
}

// §4.3 and §5: no category nests in another, and Search overrides the
// other categories for a use that qualifies as Search. A crawler asking
// Search reads search alone: train-ai=n and ai-use=n do not disallow it,
// and search=y allows neither training nor AI use outside search.
func TestVocabSection4_3SearchOverride(t *testing.T) {
	p := mustPrefs(t, "train-ai=n, ai-use=n, search=y")
	for c, want := range map[Category]Verdict{Search: Allowed, TrainAI: Disallowed, AIInput: Disallowed} {
		if got := p.Category(c); got != want {
			t.Errorf("Category(%s) = %v, want %v", c, got, want)
		}
	}
	p = mustPrefs(t, "search=n")
	if p.Category(TrainAI) != Unknown || p.Category(AIInput) != Unknown {
		t.Errorf("search=n: train-ai %v, ai-use %v", p.Category(TrainAI), p.Category(AIInput))
	}
	page := ReadHeader(http.Header{"Content-Usage": {"train-ai=n, ai-use=n, search=y"}})
	for c, want := range map[Category]Verdict{Search: Allowed, TrainAI: Disallowed, AIInput: Disallowed} {
		d := Decide(Query{Agent: "FooBot", URL: "https://example.com/a", Category: c}, nil, page)
		if d.Verdict != want {
			t.Errorf("Decide %s = %v, want %v", c, d.Verdict, want)
		}
	}
}

// §6.1: "These tokens are case sensitive", and §6.5.1: a key with
// upper-case characters fails the parse, so no preference is stated.
func TestVocabSection6_5_1UpperCaseKeys(t *testing.T) {
	for _, v := range []string{"Train-AI=n", "train-ai=n, Search=n", "TRAIN-AI=n"} {
		p, err := ParsePreferences(v)
		if err == nil {
			t.Errorf("ParsePreferences(%q) succeeded, want an error", v)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "robotsguard: ") {
			t.Errorf("error %q lacks the robotsguard: prefix", err)
		}
		if !p.IsZero() {
			t.Errorf("ParsePreferences(%q) = %v with the error, want no preference", v, p)
		}
	}
}

// §6.4 Syntax Extensions: unknown labels and unknown parameters are
// ignored.
func TestVocabSection6_4Extensions(t *testing.T) {
	p := mustPrefs(t, `future-use=n;why="x", train-ai=n;until=@1700000000, search=y;a;b=?0`)
	wantTerms(t, p, map[string]Verdict{"train-ai": Disallowed, "search": Allowed, "future-use": Disallowed})
	if p.Category(AIInput) != Unknown {
		t.Errorf("ai-use = %v, want unknown", p.Category(AIInput))
	}
}

// §6.5 Processing Algorithm: only the Tokens y and n state a preference;
// absent keys, other Tokens and other types leave it unknown, without
// error.
func TestVocabSection6_5Processing(t *testing.T) {
	for _, v := range []string{
		`train-ai=yes`, `train-ai="y"`, `train-ai=?1`, `train-ai`, `train-ai=1`,
		`train-ai=(y)`, `train-ai=:eQ==:`, `train-ai=Y`, `train-ai=*`, `search=n`,
		`train-ai=%"y"`, `train-ai=@1`, ``,
	} {
		p := mustPrefs(t, v)
		if got := p.Term("train-ai"); got != Unknown {
			t.Errorf("%q: train-ai = %v, want unknown", v, got)
		}
	}
}

// §6.5.1 Multiple Preferences: the last value of a key applies, so the
// example states no preference at all.
func TestVocabSection6_5_1Example(t *testing.T) {
	p := mustPrefs(t, `train-ai=y, train-ai, search=n, search="n"`)
	if !p.IsZero() {
		t.Errorf("got %v, want no preference", p)
	}
	p = mustPrefs(t, `train-ai=n, train-ai=y`)
	wantTerms(t, p, map[string]Verdict{"train-ai": Allowed})
	p = mustPrefs(t, `x=n, x="n", y=y, y=n`)
	wantTerms(t, p, map[string]Verdict{"x": Unknown, "y": Disallowed})
}

// §6.5.2 Preference Parameters: only the parameters of the selected member
// apply, and they do not change the preference.
func TestVocabSection6_5_2Example(t *testing.T) {
	p := mustPrefs(t, `train-ai;allow=n, train-ai=y`)
	wantTerms(t, p, map[string]Verdict{"train-ai": Allowed})

	// The second example ends with ';', which RFC 9651 §4.2.3.2 rejects
	// (a parameter needs a key): the statement fails to parse, and
	// train-ai is unknown, as the draft says of it.
	p, err := ParsePreferences(`train-ai;has;parameters="?";`)
	if err == nil || p.Term("train-ai") != Unknown {
		t.Errorf("trailing ';': %v, %v", p, err)
	}
	// Without the ';', train-ai is true (a Boolean), so unknown too.
	p = mustPrefs(t, `train-ai;has;parameters="?"`)
	wantTerms(t, p, map[string]Verdict{"train-ai": Unknown})
}

func TestPreferencesBounds(t *testing.T) {
	if _, err := ParsePreferences("train-ai=n" + strings.Repeat(" ", MaxPreferencesSize)); err == nil {
		t.Error("a value over MaxPreferencesSize parsed")
	}
	many := strings.Repeat("a=y,", sfMaxMembers) + "b=n"
	if _, err := ParsePreferences(many); err == nil {
		t.Errorf("%d members parsed", sfMaxMembers+1)
	}
	ok := strings.TrimSuffix(strings.Repeat("a=y,", sfMaxMembers), ",")
	if _, err := ParsePreferences(ok); err != nil {
		t.Errorf("%d members: %v", sfMaxMembers, err)
	}
}

func TestPreferencesString(t *testing.T) {
	p := mustPrefs(t, `search=y, x=n, train-ai=n, ai-use=x`)
	if got, want := p.String(), "train-ai=n, search=y, x=n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	p = mustPrefs(t, `search=y, ai-use=n, bots=n, train-ai=y`)
	if got, want := p.String(), "train-ai=y, ai-use=n, search=y, bots=n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// RFC 9651 Dictionary syntax, which a statement of preference must follow
// whole (§3.2 and §4.2.2, with examples of §3).
func TestStructuredFieldDictionary(t *testing.T) {
	valid := []string{
		``, `a`, `*a=b`, `en="Applepie", da=:w4ZibGV0w6ZydGU=:`, `a=?0, b, c; foo=bar`,
		`rating=1.5, feelings=(joy sadness)`, `a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid`,
		`a=1 ,	b=2`, `  a=1`, `a=()`, `a=( 1  2 )`, `a=-12.345`, `a=123456789012345`,
		`a=123456789012.123`, `a=@1659578233`, `a=%"caf%c3%a9"`, `a=%"%e2%82%ac"`, `a=tok:en/x`,
		`a="q\"x\\"`, `a=b;c=?1;d`, `a=:: `,
	}
	for _, v := range valid {
		if err := sfParseDictionary(v, func(string, string, bool) {}); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	invalid := []string{
		`a=1,`, `a=1 b=2`, `A=1`, `1a=1`, `a=1.2345`, `a=1234567890123456`, `a=1234567890123.1`,
		`a="x`, `a="\x"`, "a=\"\x01\"", `a=:abc`, `a=:a$:`, `a=?2`, `a=?`, `a=(1 2`, `a=(1,2)`,
		`a=%"%C3%A9"`, `a=%"%c3"`, `a=%"%ff"`, `a=%x`, `a=@1.5`, `a=1.`, `a=-`, `a=`, `,`, `a,,b`,
		`a=1;`, `a=1;B=2`, `a=b c`, `a=é`, "a\t=1", `a= 1`,
	}
	for _, v := range invalid {
		if err := sfParseDictionary(v, func(string, string, bool) {}); err == nil {
			t.Errorf("%q parsed", v)
		}
	}
}

// draft-ietf-aipref-attach §1.2 Examples and §2: the Content-Usage field.
func TestAttachSection1_2HeaderExample(t *testing.T) {
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	h.Set("Content-Usage", "train-ai=n")
	p := ReadHeader(h)
	ev := contentUsageHeaderEvidence(p, TrainAI)
	want := Evidence{Category: TrainAI, Verdict: Disallowed, Source: Source{
		Signal: ContentUsage, Place: InHeader, Name: "Content-Usage", Text: "train-ai=n"}}
	if len(ev) != 1 || ev[0].Category != want.Category || ev[0].Verdict != want.Verdict || ev[0].Source != want.Source {
		t.Fatalf("got %v, want %v", ev, want)
	}
	for _, c := range []Category{Search, AIInput, Crawl, TDM} {
		if ev := contentUsageHeaderEvidence(p, c); len(ev) != 0 {
			t.Errorf("%s: %v", c, ev)
		}
	}
}

// §2: several Content-Usage fields form one Dictionary (RFC 9651 §4.2):
// a later member wins, and a field that does not parse spoils them all.
func TestAttachSection2HeaderFieldsCombined(t *testing.T) {
	for _, tc := range []struct {
		fields []string
		c      Category
		want   Verdict
	}{
		{[]string{"train-ai=n", "search=y"}, TrainAI, Disallowed},
		{[]string{"train-ai=n", "search=y"}, Search, Allowed},
		{[]string{"train-ai=n", "train-ai=y"}, TrainAI, Allowed},
		{[]string{"train-ai=n", "Search=y"}, TrainAI, Unknown},
		{[]string{"train-ai=n,"}, TrainAI, Unknown},
		{[]string{"ai-use=n"}, AIInput, Disallowed},
		{[]string{"ai-use=n", "search=y"}, Search, Allowed},
		{[]string{strings.Repeat("x=y, ", MaxPreferencesSize/5), "train-ai=n"}, TrainAI, Unknown},
	} {
		h := http.Header{}
		for _, f := range tc.fields {
			h.Add("Content-Usage", f)
		}
		ev := contentUsageHeaderEvidence(ReadHeader(h), tc.c)
		got := Unknown
		if len(ev) == 1 {
			got = ev[0].Verdict
		} else if len(ev) > 1 {
			t.Errorf("%q: %d evidences", tc.fields, len(ev))
		}
		if got != tc.want {
			t.Errorf("%q %s: %v, want %v", tc.fields, tc.c, got, tc.want)
		}
	}
	if ev := contentUsageHeaderEvidence(&Page{}, TrainAI); ev != nil {
		t.Errorf("no header: %v", ev)
	}
}

func TestAiprefTextCut(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	got := aiprefText("  " + long)
	if len(got) > aiprefMaxText || !strings.HasPrefix(long, got) || len(got) < aiprefMaxText-3 {
		t.Errorf("cut to %d bytes: %q", len(got), got)
	}
}
