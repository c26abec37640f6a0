package usage

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests are named after the sections of the TDM Reservation Protocol final
// community group report (W3C TDMRep CG, 2024), by their anchors.

func tdmParse(t *testing.T, body string) *TDMRepFile {
	t.Helper()
	f, err := ParseTDMRep([]byte(body), "https://provider.com/.well-known/tdmrep.json")
	if err != nil {
		t.Fatalf("ParseTDMRep(%q): %v", body, err)
	}
	return f
}

func tdmRead(t *testing.T, name string) *TDMRepFile {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "tdmrep", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseTDMRep(body, "https://provider.com/.well-known/tdmrep.json")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// tdmVerdict returns the verdict and policy TDMRep gives target for TDM.
func tdmVerdict(t *testing.T, f *TDMRepFile, p *Page, target string) (Verdict, string, Source) {
	t.Helper()
	ev := tdmEvidence(f, p, target, TDM)
	switch len(ev) {
	case 0:
		return Unknown, "", Source{}
	case 1:
		if ev[0].Category != TDM {
			t.Errorf("evidence for %s has category %s", TDM, ev[0].Category)
		}
		return ev[0].Verdict, ev[0].Conditions.Policy, ev[0].Source
	}
	t.Fatalf("%d evidences for %s, want at most one: %v", len(ev), target, ev)
	return Unknown, "", Source{}
}

func tdmHeaderPage(kv ...string) *Page {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return ReadHeader(h)
}

// sec-tdm-reservation: 1 reserves, 0 does not, other values are protocol
// errors that leave the reservation unset.
func TestSecTDMReservation(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  TDMReservation
	}{
		{"1", TDMReserved},
		{"0", TDMNotReserved},
		{"1.0", TDMReserved},
		{"2", TDMUnset},
		{"-1", TDMUnset},
		{`"1"`, TDMUnset},
		{"true", TDMUnset},
		{"null", TDMUnset},
		{"[1]", TDMUnset},
	} {
		f := tdmParse(t, `[{"location": "/", "tdm-reservation": `+tc.value+`}]`)
		r, ok := f.Rule("/x")
		if !ok || r.Reservation != tc.want {
			t.Errorf("tdm-reservation %s: rule %+v, %v; want reservation %v", tc.value, r, ok, tc.want)
		}
		if tc.want == TDMUnset && len(f.Problems()) == 0 {
			t.Errorf("tdm-reservation %s: no problem reported", tc.value)
		}
	}
	for _, tc := range []struct {
		value string
		want  Verdict
	}{{"1", Disallowed}, {"0", Allowed}, {"2", Unknown}, {"yes", Unknown}, {"", Unknown}, {" 1 ", Disallowed}} {
		if v, _, _ := tdmVerdict(t, nil, tdmHeaderPage("tdm-reservation", tc.value), "/"); v != tc.want {
			t.Errorf("header tdm-reservation: %q gives %v, want %v", tc.value, v, tc.want)
		}
		if v, _, _ := tdmVerdict(t, nil, &Page{Meta: []Meta{{"tdm-reservation", tc.value, false}}}, "/"); v != tc.want {
			t.Errorf("meta tdm-reservation %q gives %v, want %v", tc.value, v, tc.want)
		}
	}
}

// sec-tdm-policy: a policy is processed only with a reservation; with 0 it
// is not an error, and is not processed.
func TestSecTDMPolicy(t *testing.T) {
	f := tdmParse(t, `[
		{"location": "/free/", "tdm-reservation": 0, "tdm-policy": "https://provider.com/p.json"},
		{"location": "/rel/", "tdm-reservation": 1, "tdm-policy": "/policies/p.json"},
		{"location": "/bad/", "tdm-reservation": 1, "tdm-policy": 7},
		{"location": "/words/", "tdm-reservation": 1, "tdm-policy": "see our terms"},
		{"location": "/js/", "tdm-reservation": 1, "tdm-policy": "javascript:alert(1)"}
	]`)
	if v, pol, _ := tdmVerdict(t, f, nil, "/free/a"); v != Allowed || pol != "" {
		t.Errorf("reservation 0 with a policy: %v, policy %q; want allowed with no policy", v, pol)
	}
	if v, pol, _ := tdmVerdict(t, f, nil, "/rel/a"); v != Disallowed || pol != "https://provider.com/policies/p.json" {
		t.Errorf("relative policy: %v, %q; want disallowed, resolved against the file's URL", v, pol)
	}
	if v, pol, _ := tdmVerdict(t, f, nil, "/bad/a"); v != Disallowed || pol != "" {
		t.Errorf("policy not a string: %v, %q; want disallowed with no policy", v, pol)
	}
	for _, target := range []string{"/words/a", "/js/a"} {
		if v, pol, _ := tdmVerdict(t, f, nil, target); v != Disallowed || pol != "" {
			t.Errorf("%s: %v, %q; want disallowed with no policy", target, v, pol)
		}
	}
	var rules []int
	for _, p := range f.Problems() {
		rules = append(rules, p.Rule)
	}
	if want := []int{3, 4, 5}; !equalInts(rules, want) {
		t.Errorf("problems %v, want one for each of rules %v", f.Problems(), want)
	}
}

// sec-tdm-header, first example: reserved, with no way to acquire a licence.
func TestSecTDMHeaderExample1(t *testing.T) {
	h := http.Header{}
	h.Set("Date", "Wed, 14 Jul 2021 12:07:48 GMT")
	h.Set("Content-type", "image/jpg")
	h.Set("tdm-reservation", "1")
	v, pol, src := tdmVerdict(t, nil, ReadHeader(h), "https://provider.com/a.jpg")
	if v != Disallowed || pol != "" {
		t.Errorf("got %v, policy %q; want disallowed, no policy", v, pol)
	}
	want := Source{Signal: TDMRep, Place: InHeader, Name: "tdm-reservation", Text: "1"}
	if src != want {
		t.Errorf("source %+v, want %+v", src, want)
	}
}

// sec-tdm-header, second example: reserved, with a TDM Policy.
func TestSecTDMHeaderExample2(t *testing.T) {
	h := http.Header{}
	h.Set("Content-type", "text/html")
	h.Set("tdm-reservation", "1")
	h.Set("tdm-policy", "https://provider.com/policies/policy.json")
	for _, c := range []Category{TDM, TrainAI} {
		ev := tdmEvidence(nil, ReadHeader(h), "https://provider.com/", c)
		if len(ev) != 1 || ev[0].Verdict != Disallowed || ev[0].Category != c ||
			ev[0].Conditions.Policy != "https://provider.com/policies/policy.json" {
			t.Errorf("%s: %v", c, ev)
		}
	}
}

// sec-tdm-file-example, first example: "/" reserves every file.
func TestSecTDMFileExample1(t *testing.T) {
	f := tdmRead(t, "sec-tdm-file-example-1.json")
	for _, target := range []string{"https://provider.com/", "https://provider.com/a/b.pdf?x=1", "/index.html"} {
		v, pol, src := tdmVerdict(t, f, nil, target)
		if v != Disallowed || pol != "" {
			t.Errorf("%s: %v, policy %q; want disallowed", target, v, pol)
		}
		want := Source{Signal: TDMRep, Place: InFile, URL: "https://provider.com/.well-known/tdmrep.json", Line: 1, Text: "/"}
		if src != want {
			t.Errorf("%s: source %+v, want %+v", target, src, want)
		}
	}
	if len(f.Problems()) != 0 {
		t.Errorf("problems in the report's example: %v", f.Problems())
	}
}

// sec-tdm-file-example, second example: three groups of files.
func TestSecTDMFileExample2(t *testing.T) {
	f := tdmRead(t, "sec-tdm-file-example-2.json")
	for _, tc := range []struct {
		target string
		want   Verdict
		policy string
		rule   int
	}{
		{"https://provider.com/directory-a/paper.pdf", Disallowed, "", 1},
		{"https://provider.com/directory-b/html/page.html", Disallowed, "https://provider.com/policies/policy.json", 2},
		{"https://provider.com/directory-b/images/photo.jpg", Allowed, "", 3},
		{"https://provider.com/directory-b/images/sub/photo.jpg?size=2", Allowed, "", 3},
		{"https://provider.com/directory-b/images/photo.png", Unknown, "", 0},
		{"https://provider.com/directory-a", Unknown, "", 0},
		{"https://provider.com/Directory-A/paper.pdf", Unknown, "", 0},
		{"https://provider.com/", Unknown, "", 0},
	} {
		v, pol, src := tdmVerdict(t, f, nil, tc.target)
		if v != tc.want || pol != tc.policy || src.Line != tc.rule {
			t.Errorf("%s: %v, policy %q, rule %d; want %v, %q, rule %d", tc.target, v, pol, src.Line, tc.want, tc.policy, tc.rule)
		}
	}
}

// sec-tdm-file: "The most specific match is the first in sequence", not the
// longest as in robots.txt; no match leaves the reservation unset.
func TestSecTDMFileFirstMatch(t *testing.T) {
	f := tdmParse(t, `[{"location": "/a/b/", "tdm-reservation": 0}, {"location": "/a/", "tdm-reservation": 1}]`)
	g := tdmParse(t, `[{"location": "/a/", "tdm-reservation": 1}, {"location": "/a/b/", "tdm-reservation": 0}]`)
	for _, tc := range []struct {
		f      *TDMRepFile
		target string
		want   TDMReservation
		index  int
	}{
		{f, "/a/b/c", TDMNotReserved, 1},
		{f, "/a/c", TDMReserved, 2},
		{g, "/a/b/c", TDMReserved, 1},
	} {
		r, ok := tc.f.Rule(tc.target)
		if !ok || r.Reservation != tc.want || r.Index != tc.index {
			t.Errorf("%s: %+v, %v; want rule %d with %v", tc.target, r, ok, tc.index, tc.want)
		}
	}
	if r, ok := f.Rule("/b"); ok {
		t.Errorf("/b matched %+v", r)
	}
	// A first match whose reservation is invalid leaves the URL unset: the
	// rules after it are not consulted.
	h := tdmParse(t, `[{"location": "/a/", "tdm-reservation": "1"}, {"location": "/", "tdm-reservation": 1}]`)
	if v, _, _ := tdmVerdict(t, h, nil, "/a/x"); v != Unknown {
		t.Errorf("invalid first match gave %v, want unknown", v)
	}
	if v, _, _ := tdmVerdict(t, h, nil, "/b"); v != Disallowed {
		t.Errorf("/b gave %v, want disallowed by rule 2", v)
	}
}

// sec-tdm-file: matching is case sensitive, and percent-encoded unreserved
// characters are decoded before comparison while reserved ones are not.
func TestSecTDMFilePercentEncoding(t *testing.T) {
	f := tdmParse(t, `[{"location": "/baz", "tdm-reservation": 1}, {"location": "/a%2Fb", "tdm-reservation": 1}, {"location": "/caf%C3%A9", "tdm-reservation": 1}]`)
	for _, tc := range []struct {
		target string
		want   bool
	}{
		{"/%62az", true},
		{"/baz", true},
		{"/BAZ", false},
		{"/a%2Fb", true},
		{"/a/b", false},
		{"/café", true},
		{"/caf%c3%a9", true},
	} {
		if _, ok := f.Rule(tc.target); ok != tc.want {
			t.Errorf("%s: matched %v, want %v", tc.target, ok, tc.want)
		}
	}
}

// sec-tdm-file-regexp: "$" ends the pattern, "*" is any sequence, and a
// special character is matched verbatim by its %-encoding.
func TestSecTDMFileRegexp(t *testing.T) {
	for _, tc := range []struct {
		location, target string
		want             bool
	}{
		{"/this/path/exactly$", "/this/path/exactly", true},
		{"/this/path/exactly$", "/this/path/exactly/more", false},
		{"/this/path/exactly$", "/this/path/exactly?q", false},
		{"/this/*/then", "/this/anything/then", true},
		{"/this/*/then", "/this/a/b/then/after", true},
		{"/this/*/then", "/this/then", false},
		{"/path/foo-%24", "https://provider.com/path/foo-$", true},
		{"/path/foo-%24", "https://provider.com/path/foo-", false},
		{"/path/foo-$", "https://provider.com/path/foo-", true},
		{"/path/foo-$", "https://provider.com/path/foo-$", false},
	} {
		f := tdmParse(t, `[{"location": "`+tc.location+`", "tdm-reservation": 1}]`)
		if _, ok := f.Rule(tc.target); ok != tc.want {
			t.Errorf("location %q, %s: matched %v, want %v", tc.location, tc.target, ok, tc.want)
		}
	}
}

// sec-tdm-file-regexp points, "for the sake of interoperability", to
// Google's "URL matching based on path values"; its examples hold.
func TestSecTDMFileRegexpGoogleExamples(t *testing.T) {
	for _, tc := range []struct {
		location string
		match    []string
		noMatch  []string
	}{
		{"/", []string{"/", "/a/b"}, nil},
		{"/*", []string{"/", "/a/b"}, nil},
		{"/fish", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish"}},
		{"/fish*", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish"}},
		{"/fish/", []string{"/fish/", "/fish/?id=anything", "/fish/salmon.htm"}, []string{"/fish", "/fish.html", "/Fish/Salmon.asp"}},
		{"/*.php", []string{"/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "/folder/any.php.file.html", "/filename.php/"},
			[]string{"/", "/windows.PHP"}},
		{"/*.php$", []string{"/filename.php", "/folder/filename.php"},
			[]string{"/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"}},
		{"/fish*.php", []string{"/fish.php", "/fishheads/catfish.php?parameters"}, []string{"/Fish.PHP"}},
	} {
		f := tdmParse(t, `[{"location": "`+tc.location+`", "tdm-reservation": 1}]`)
		for _, target := range tc.match {
			if _, ok := f.Rule(target); !ok {
				t.Errorf("%q does not match %s", tc.location, target)
			}
		}
		for _, target := range tc.noMatch {
			if _, ok := f.Rule(target); ok {
				t.Errorf("%q matches %s", tc.location, target)
			}
		}
	}
}

// sec-tdm-html-meta: the report's example page.
func TestSecTDMHTMLMetaExample(t *testing.T) {
	p := &Page{URL: "https://provider.com/doc.html", Meta: []Meta{
		{"tdm-reservation", "1", false},
		{"tdm-policy", "https://provider.com/policies/policy.json", false},
	}}
	v, pol, src := tdmVerdict(t, nil, p, p.URL)
	if v != Disallowed || pol != "https://provider.com/policies/policy.json" {
		t.Errorf("got %v, %q", v, pol)
	}
	if want := (Source{Signal: TDMRep, Place: InMeta, Name: "tdm-reservation", Text: "1"}); src != want {
		t.Errorf("source %+v, want %+v", src, want)
	}
}

// sec-processing-priority: the header supersedes the file, the meta tags
// supersede both; an invalid value supersedes nothing.
func TestSecProcessingPriority(t *testing.T) {
	f := tdmParse(t, `[{"location": "/", "tdm-reservation": 1, "tdm-policy": "https://provider.com/file-policy"}]`)
	for _, tc := range []struct {
		name   string
		page   *Page
		want   Verdict
		place  Place
		policy string
	}{
		{"file alone", nil, Disallowed, InFile, "https://provider.com/file-policy"},
		{"header 0 over file 1", tdmHeaderPage("tdm-reservation", "0"), Allowed, InHeader, ""},
		{"header policy over file policy", tdmHeaderPage("tdm-reservation", "1", "tdm-policy", "https://provider.com/h"), Disallowed, InHeader, "https://provider.com/h"},
		{"header policy alone supersedes the file's", tdmHeaderPage("tdm-policy", "https://provider.com/h"), Disallowed, InFile, "https://provider.com/h"},
		{"invalid header", tdmHeaderPage("tdm-reservation", "no"), Disallowed, InFile, "https://provider.com/file-policy"},
		{"conflicting header fields", tdmHeaderPage("tdm-reservation", "0", "tdm-reservation", "1"), Disallowed, InFile, "https://provider.com/file-policy"},
		{"agreeing header fields", tdmHeaderPage("tdm-reservation", "0", "tdm-reservation", "0"), Allowed, InHeader, ""},
		{"meta 0 over header 1 and file", &Page{Header: tdmHeaderPage("tdm-reservation", "1").Header, Meta: []Meta{{"tdm-reservation", "0", false}}}, Allowed, InMeta, ""},
		{"meta 1 over header 0", &Page{Header: tdmHeaderPage("tdm-reservation", "0").Header, Meta: []Meta{{"tdm-reservation", "1", false}}}, Disallowed, InMeta, "https://provider.com/file-policy"},
		{"invalid meta", &Page{Header: tdmHeaderPage("tdm-reservation", "0").Header, Meta: []Meta{{"tdm-reservation", "reserved", false}}}, Allowed, InHeader, ""},
		{"conflicting meta", &Page{Meta: []Meta{{"tdm-reservation", "0", false}, {"tdm-reservation", "1", false}}}, Disallowed, InFile, "https://provider.com/file-policy"},
	} {
		v, pol, src := tdmVerdict(t, f, tc.page, "https://provider.com/a")
		if v != tc.want || src.Place != tc.place || pol != tc.policy {
			t.Errorf("%s: %v in place %d, policy %q; want %v in place %d, policy %q", tc.name, v, src.Place, pol, tc.want, tc.place, tc.policy)
		}
	}
	// Without a file, the header and the meta tags still speak.
	if v, _, _ := tdmVerdict(t, nil, tdmHeaderPage("tdm-reservation", "1"), "/a"); v != Disallowed {
		t.Errorf("header without a file: %v", v)
	}
}

// Only TDM and TrainAI are spoken of.
func TestTDMRepCategories(t *testing.T) {
	p := tdmHeaderPage("tdm-reservation", "1")
	for _, c := range Categories() {
		ev := tdmEvidence(nil, p, "/", c)
		if want := c == TDM || c == TrainAI; (len(ev) == 1) != want {
			t.Errorf("%s: %v", c, ev)
		}
	}
}

func TestParseTDMRepErrors(t *testing.T) {
	for _, body := range []string{
		``,
		`   `,
		`not json`,
		`{"location": "/", "tdm-reservation": 1}`,
		`"[]"`,
		`null`,
		`[{"location": "/", "tdm-reservation": 1}`,
		`[{"location": "/", "tdm-reservation": 1},]`,
		`[{"location": "/"} {"location": "/a"}]`,
		`[] []`,
		`[]x`,
		"<!DOCTYPE html><html><body>Not found</body></html>",
	} {
		f, err := ParseTDMRep([]byte(body), "")
		if f != nil || !errors.Is(err, ErrTDMRep) {
			t.Errorf("%q: %v, %v; want ErrTDMRep", body, f, err)
			continue
		}
		var te *TDMRepError
		if !errors.As(err, &te) || !strings.HasPrefix(err.Error(), "robotsguard: tdmrep.json ") {
			t.Errorf("%q: error %q", body, err)
		}
	}
	if !strings.HasPrefix(ErrTDMRep.Error(), "robotsguard: ") {
		t.Errorf("ErrTDMRep: %q", ErrTDMRep)
	}
	for _, body := range []string{"[]", " [ ] \n", "\xef\xbb\xbf[]"} {
		if f, err := ParseTDMRep([]byte(body), ""); err != nil || len(f.Rules()) != 0 {
			t.Errorf("%q: %v, %v; want an empty file", body, f, err)
		}
	}
}

// A bad element is ignored, and reported, rather than the file.
func TestParseTDMRepBadRules(t *testing.T) {
	f := tdmParse(t, `[
		"/a",
		{"tdm-reservation": 1},
		{"location": 5, "tdm-reservation": 1},
		{"location": "", "tdm-reservation": 1},
		{"location": "relative/", "tdm-reservation": 1},
		{"location": "https://provider.com/abs/", "tdm-reservation": 1},
		{"location": "*.pdf", "tdm-reservation": 1},
		{"location": "/nores/"},
		{"location": "/ok/", "tdm-reservation": 0, "other": [1, 2]}
	]`)
	var got []int
	for _, r := range f.Rules() {
		got = append(got, r.Index)
	}
	if want := []int{6, 7, 8, 9}; !equalInts(got, want) {
		t.Errorf("rules kept %v, want %v", got, want)
	}
	var rules []int
	for _, p := range f.Problems() {
		rules = append(rules, p.Rule)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 8}; !equalInts(rules, want) {
		t.Errorf("problems for %v, want %v: %v", rules, want, f.Problems())
	}
	if r, ok := f.Rule("/abs/x"); !ok || r.Index != 6 || r.Location != "https://provider.com/abs/" {
		t.Errorf("absolute URL location: %+v, %v", r, ok)
	}
	if r, ok := f.Rule("/x/y.pdf"); !ok || r.Index != 7 {
		t.Errorf("location starting with '*': %+v, %v", r, ok)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A nil file is no file: no rule covers anything.
func TestTDMRepAbsent(t *testing.T) {
	var f *TDMRepFile
	if _, ok := f.Rule("/"); ok || f.Rules() != nil || f.Problems() != nil || f.Truncated() || f.URL() != "" {
		t.Error("a nil file has rules")
	}
	if ev := tdmEvidence(nil, nil, "/", TDM); ev != nil {
		t.Errorf("nothing gave %v", ev)
	}
	empty := tdmParse(t, `[]`)
	if _, ok := empty.Rule("/"); ok {
		t.Error("an empty file covers /")
	}
}

// A body past MaxTDMRepBytes keeps the rules complete before the cut.
func TestParseTDMRepTruncated(t *testing.T) {
	var b strings.Builder
	b.WriteString(`[{"location": "/first/", "tdm-reservation": 1}`)
	for b.Len() <= MaxTDMRepBytes {
		b.WriteString(`, {"location": "/padding/", "tdm-reservation": 0}`)
	}
	b.WriteString(`, {"location": "/", "tdm-reservation": 1}]`)
	f, err := ParseTDMRep([]byte(b.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Truncated() {
		t.Error("not truncated")
	}
	if r, ok := f.Rule("/first/x"); !ok || r.Index != 1 {
		t.Errorf("first rule lost: %+v, %v", r, ok)
	}
	if r, ok := f.Rule("/last"); ok {
		t.Errorf("a rule past the cut was read: %+v", r)
	}
	if n := len(f.Rules()); n != MaxTDMRepRules {
		t.Errorf("%d rules kept, want %d", n, MaxTDMRepRules)
	}
	if ps := f.Problems(); len(ps) == 0 || ps[0].Rule != 0 {
		t.Errorf("problems %v", ps)
	}
}

func TestParseTDMRepProblemsBounded(t *testing.T) {
	body := "[" + strings.Repeat(`1,`, 500) + `{"location": "/", "tdm-reservation": 1}]`
	f := tdmParse(t, body)
	ps := f.Problems()
	if len(ps) != tdmMaxProblems+1 || !strings.Contains(ps[len(ps)-1].Text, "400 more") {
		t.Errorf("%d problems, last %v", len(ps), ps[len(ps)-1])
	}
	if r, ok := f.Rule("/"); !ok || r.Index != 501 {
		t.Errorf("rule %+v, %v", r, ok)
	}
}

// Source.Text is the location as written, trimmed and cut at 200 bytes.
func TestTDMRepSourceText(t *testing.T) {
	loc := "/" + strings.Repeat("a", 300)
	f := tdmParse(t, `[{"location": " `+loc+` ", "tdm-reservation": 1}]`)
	_, _, src := tdmVerdict(t, f, nil, loc)
	if src.Text != loc[:200] {
		t.Errorf("text %q", src.Text)
	}
	if got := src.String(); !strings.HasPrefix(got, "https://provider.com/.well-known/tdmrep.json rule 1 ") {
		t.Errorf("String() = %q", got)
	}
}
