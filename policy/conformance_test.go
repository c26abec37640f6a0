package policy_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// The vectors in testdata/conformance were converted from the tests of
// Google's reference library (google/robotstxt, robots_test.cc and
// reporting_robots_test.cc, commit 22b355ff85, Apache-2.0); see the README
// there.

func loadJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "conformance", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

type robotsVector struct {
	ID       string `json:"id"`
	Robots   string `json:"robots"`
	Agent    string `json:"agent"`
	URL      string `json:"url"`
	Allowed  bool   `json:"allowed"`
	Note     string `json:"note"`
	Differs  bool   `json:"differs_from_strict_rfc9309"`
	Disputed bool   `json:"disputed"`
}

func loadRobotsVectors(t testing.TB) []robotsVector {
	var vs []robotsVector
	loadJSON(t, "google_robots_test.json", &vs)
	if len(vs) != 145 {
		t.Fatalf("read %d vectors, want 145", len(vs))
	}
	return vs
}

// TestGoogleConformance: the Google dialect passes every vector of Google's
// test suite.
func TestGoogleConformance(t *testing.T) {
	for _, v := range loadRobotsVectors(t) {
		r := policy.Parser{Dialect: policy.Google}.Parse([]byte(v.Robots))
		if got := r.Allowed(v.Agent, v.URL); got != v.Allowed {
			t.Errorf("%s: Allowed(%q, %.80q) = %v, want %v\n%s", v.ID, v.Agent, v.URL, got, v.Allowed, v.Note)
		}
	}
}

// TestRFC9309Conformance: the RFC9309 dialect passes every vector except
// those flagged as contradicting RFC 9309, and on each of those it gives the
// other verdict, for the reason the package documentation gives.
func TestRFC9309Conformance(t *testing.T) {
	differs := 0
	for _, v := range loadRobotsVectors(t) {
		r := policy.Parse([]byte(v.Robots))
		want := v.Allowed
		if v.Differs {
			want = !want
			differs++
		}
		if got := r.Allowed(v.Agent, v.URL); got != want {
			t.Errorf("%s (differs=%v): Allowed(%q, %.80q) = %v, want %v\n%s", v.ID, v.Differs, v.Agent, v.URL, got, want, v.Note)
		}
	}
	if differs != 7 {
		t.Errorf("%d vectors flagged differs_from_strict_rfc9309, want the 7 the package documentation lists", differs)
	}
}

func TestProductTokenConformance(t *testing.T) {
	var vs []struct {
		ID       string `json:"id"`
		Input    string `json:"input"`
		Expected bool   `json:"expected"`
	}
	loadJSON(t, "google_useragent_test.json", &vs)
	for _, v := range vs {
		if got := policy.ValidProductToken(v.Input); got != v.Expected {
			t.Errorf("%s: ValidProductToken(%q) = %v, want %v", v.ID, v.Input, got, v.Expected)
		}
	}
}

type pathVector struct {
	ID       string `json:"id"`
	Function string `json:"function"`
	Input    string `json:"input"`
	Expected string `json:"expected"`
}

// pathVectors returns the vectors of google_path_test.json for function,
// which must number want.
func pathVectors(t *testing.T, function string, want int) []pathVector {
	var all, out []pathVector
	loadJSON(t, "google_path_test.json", &all)
	for _, v := range all {
		if v.Function == function {
			out = append(out, v)
		}
	}
	if len(out) != want {
		t.Fatalf("%d %s vectors, want %d", len(out), function, want)
	}
	return out
}

func TestPathOfConformance(t *testing.T) {
	for _, v := range pathVectors(t, "GetPathParamsQuery", 19) {
		if got := policy.PathOf(v.Input); got != v.Expected {
			t.Errorf("%s: PathOf(%q) = %q, want %q", v.ID, v.Input, got, v.Expected)
		}
	}
}

// TestGoogleEscapeConformance: the Google dialect normalises patterns as
// MaybeEscapePattern does.
func TestGoogleEscapeConformance(t *testing.T) {
	for _, v := range pathVectors(t, "MaybeEscapePattern", 4) {
		r := policy.Parser{Dialect: policy.Google}.Parse([]byte("user-agent: *\nallow: " + v.Input + "\n"))
		if got := r.Records()[0].Rules[0].Pattern; got != v.Expected {
			t.Errorf("%s: pattern %q normalised to %q, want %q", v.ID, v.Input, got, v.Expected)
		}
	}
}

type reportVector struct {
	ID        string `json:"id"`
	Handler   string `json:"handler"`
	RobotsHex string `json:"robots_hex"`
	Expected  struct {
		ValidDirectives   *int    `json:"valid_directives"`
		UnknownDirectives *int    `json:"unknown_directives"`
		LastLineSeen      *int    `json:"last_line_seen"`
		Sitemap           *string `json:"sitemap"`
		ParseResultsSize  *int    `json:"parse_results_size"`
		Lines             []struct {
			LineNum  int    `json:"line_num"`
			TagName  string `json:"tag_name"`
			IsTypo   bool   `json:"is_typo"`
			Metadata struct {
				IsEmpty                 bool `json:"is_empty"`
				HasDirective            bool `json:"has_directive"`
				HasComment              bool `json:"has_comment"`
				IsComment               bool `json:"is_comment"`
				IsAcceptableTypo        bool `json:"is_acceptable_typo"`
				IsLineTooLong           bool `json:"is_line_too_long"`
				IsMissingColonSeparator bool `json:"is_missing_colon_separator"`
			} `json:"metadata"`
		} `json:"lines"`
	} `json:"expected"`
}

// tagName names a line as Google's RobotsParsingReporter does.
func tagName(l policy.LineReport) string {
	switch l.Kind {
	case policy.KindUserAgent:
		return "UserAgent"
	case policy.KindAllow:
		return "Allow"
	case policy.KindDisallow:
		return "Disallow"
	case policy.KindSitemap:
		return "Sitemap"
	case policy.KindOther:
		if l.Known {
			return "Unused"
		}
	}
	return "Unknown"
}

// TestReportingConformance runs the reporting vectors under the Google
// dialect: line numbers, per-line metadata and typo flags as Google's
// reporter gives them. The line-numbering vectors, which hold no typos or
// missing colons, pass under RFC9309 as well.
func TestReportingConformance(t *testing.T) {
	var vs []reportVector
	loadJSON(t, "google_reporting_test.json", &vs)
	if len(vs) != 16 {
		t.Fatalf("read %d vectors, want 16", len(vs))
	}
	for _, v := range vs {
		body, err := hex.DecodeString(v.RobotsHex)
		if err != nil {
			t.Fatal(err)
		}
		dialects := []policy.Dialect{policy.Google}
		if v.Expected.Lines == nil {
			dialects = append(dialects, policy.RFC9309)
		}
		for _, d := range dialects {
			checkReport(t, v, body, d)
		}
	}
}

func checkReport(t *testing.T, v reportVector, body []byte, d policy.Dialect) {
	t.Helper()
	lines := policy.Parser{Dialect: d}.Report(body)
	// The statistics handler of robots_test.cc counts directive callbacks;
	// RobotsParsingReporter also counts the lines it got metadata for.
	statsOnly := v.Handler == "RobotsStatsReporter (robots_test.cc)"
	valid, unknown, last := 0, 0, 0
	sitemap := ""
	for _, l := range lines {
		switch l.Kind {
		case policy.KindUserAgent, policy.KindAllow, policy.KindDisallow, policy.KindSitemap:
			valid++
			last = l.Line
		case policy.KindOther:
			unknown++
			last = l.Line
		}
		if l.Kind == policy.KindSitemap {
			sitemap += l.Value
		}
		if !statsOnly {
			last = max(last, l.Line)
		}
	}
	e := v.Expected
	check := func(what string, got int, want *int) {
		if want != nil && got != *want {
			t.Errorf("%s (%v): %s = %d, want %d", v.ID, d, what, got, *want)
		}
	}
	check("valid directives", valid, e.ValidDirectives)
	check("unknown directives", unknown, e.UnknownDirectives)
	check("last line seen", last, e.LastLineSeen)
	check("lines reported", len(lines), e.ParseResultsSize)
	if e.Sitemap != nil && sitemap != *e.Sitemap {
		t.Errorf("%s (%v): sitemaps %q, want %q", v.ID, d, sitemap, *e.Sitemap)
	}
	for _, want := range e.Lines {
		if want.LineNum > len(lines) {
			t.Errorf("%s: no report for line %d", v.ID, want.LineNum)
			continue
		}
		got := lines[want.LineNum-1]
		m := want.Metadata
		if got.Line != want.LineNum || tagName(got) != want.TagName || got.Typo != want.IsTypo ||
			got.Empty != m.IsEmpty || got.HasDirective != m.HasDirective || got.HasComment != m.HasComment ||
			got.Comment != m.IsComment || got.Typo != m.IsAcceptableTypo || got.TooLong != m.IsLineTooLong ||
			got.MissingColon != m.IsMissingColonSeparator {
			t.Errorf("%s: line %d reported as %+v (tag %s), want %+v", v.ID, want.LineNum, got.LineInfo, tagName(got), want)
		}
	}
}
