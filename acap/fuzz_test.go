package acap_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// seeds returns robots.txt bodies to start fuzzing from: the ACAP files of
// the corpus, this package's examples and the corpus subset.
func seeds(tb testing.TB) [][]byte {
	out := [][]byte{[]byte(overview), []byte(newsSite)}
	for _, glob := range []string{"testdata/*.txt", "../policy/testdata/corpus/robots/*.txt"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

var allUsages = []acap.Usage{acap.Crawl, acap.Follow, acap.Index, acap.Preserve, acap.Present, acap.Other,
	acap.PresentOriginal, acap.PresentCurrentCopy, acap.PresentOldCopy, acap.PresentSnippet,
	acap.PresentThumbnail, acap.PresentOldSnippet, acap.PresentOldThumbnail, acap.PresentLink}

// FuzzParse: any body parses, and every decision is consistent with its
// reason.
func FuzzParse(f *testing.F) {
	for _, b := range seeds(f) {
		f.Add(b, "/news/a.html?x=1", "news")
	}
	f.Fuzz(func(t *testing.T, body []byte, url, purpose string) {
		p := acap.Parse(body)
		lines := countLines(body)
		for _, pr := range p.Problems() {
			if pr.Line < 0 || pr.Line > lines {
				t.Fatalf("problem at line %d of %d: %v", pr.Line, lines, pr)
			}
			if pr.Kind < acap.ProblemSyntax || pr.Kind > acap.ProblemTruncated {
				t.Fatalf("problem of kind %v: %v", pr.Kind, pr)
			}
		}
		// Action requests name one resource by its path, or are left out.
		for _, agent := range []string{"FooBot/1.0", "*", purpose} {
			for _, a := range p.Actions(agent) {
				if !strings.HasPrefix(a.Path, "/") || strings.HasPrefix(a.Path, "//") || strings.ContainsAny(a.Path, "*$?# \t") {
					t.Fatalf("Actions(%q): %v", agent, a)
				}
			}
		}
		for _, d := range p.Definitions() {
			if d.Name == "" || d.Kind == acap.ResourceSet && len(d.Patterns) == 0 || d.Kind != acap.ResourceSet && len(d.Usages) == 0 {
				t.Fatalf("definition %+v", d)
			}
		}
		never := func(acap.Qualifier) bool { return false }
		for _, u := range allUsages {
			for _, q := range []acap.Query{
				{Agent: "FooBot/1.0", URL: url, Usage: u, Purpose: purpose},
				{Agent: "*", URL: url, Usage: u, Honours: never, Interprets: func(x acap.Usage) bool { return x == acap.Crawl }},
			} {
				d := p.Decide(q)
				switch d.Basis {
				case acap.BasisField:
					if d.Field.Line < 1 || d.Field.Line > lines || d.Field.Text == "" {
						t.Fatalf("%+v: deciding field %+v", q, d.Field)
					}
				case acap.BasisConflict:
					if d.Permitted || len(d.Conflict) < 2 {
						t.Fatalf("%+v: conflict %v", q, d)
					}
				case acap.BasisNone:
					if !d.Permitted {
						t.Fatalf("%+v: %v", q, d)
					}
				default:
					t.Fatalf("%+v: reason %v", q, d.Basis)
				}
				if q.Honours != nil && len(d.Qualifiers) > 0 {
					t.Fatalf("%+v: qualifiers %v the crawler cannot honour", q, d.Qualifiers)
				}
			}
		}
		// A file without ACAP content is its conventional records: the
		// crawl decision is policy's, made by the same rule.
		if !bytes.Contains(bytes.ToLower(body), []byte("acap")) {
			r := policy.Parse(body)
			for _, agent := range []string{"FooBot/1.0", purpose} {
				d := p.Decide(acap.Query{Agent: agent, URL: url, Usage: acap.Crawl})
				want := r.Group(agent).Decide(url)
				byRule := d.Basis == acap.BasisField && d.Field.Conventional
				if d.Permitted != want.Allowed || byRule != (want.Basis == policy.BasisRule) ||
					byRule && (d.Field.Line != want.Rule.Line || d.Field.Text != want.Rule.String()) {
					t.Fatalf("%q %q: ACAP %v (%+v), policy %v", agent, url, d, d.Field, want)
				}
			}
		}
	})
}

// countLines returns the number of lines of body as the parser reads
// them: a line ends at CR, LF or CRLF (RFC 9309 §2.2), and the text after
// the last line break is a line too.
func countLines(body []byte) int {
	n := 1
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\n':
			n++
		case '\r':
			n++
			if i+1 < len(body) && body[i+1] == '\n' {
				i++ // CRLF is one line break
			}
		}
	}
	return n
}

// FuzzNarrowest compares the scope comparison of Decide with a reference
// that compares every pair of fields (section 2.4.6). spec holds one field
// per line: '+' or '-' then a pattern.
func FuzzNarrowest(f *testing.F) {
	f.Add("+/news/\n-/news/sport/", "/news/sport/a")
	f.Add("+/docs*\n-/docs$\n+/d", "/docs")
	f.Add("+/*a\n-/*b\n+/*ab", "/ab")
	f.Add("+/a*c\n-/ab\n-/a\n+/a$", "/abc")
	f.Add("-*.gif\n+/img/\n-/img/*$\n+/IMG/a", "/img/a.gif")
	f.Fuzz(func(t *testing.T, spec, path string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#") {
			return
		}
		var body strings.Builder
		body.WriteString("ACAP-crawler: *\n")
		type fieldSpec struct {
			allow   bool
			pattern string
		}
		var fields []fieldSpec
		for _, l := range strings.Split(spec, "\n") {
			if len(l) < 2 || l[0] != '+' && l[0] != '-' || strings.ContainsFunc(l, func(r rune) bool { return r <= ' ' || r == '#' || r >= 0x7f }) || l[1] == '(' {
				continue
			}
			verb := "disallow"
			if l[0] == '+' {
				verb = "allow"
			}
			body.WriteString("ACAP-" + verb + "-crawl: " + l[1:] + "\n")
			fields = append(fields, fieldSpec{l[0] == '+', strings.ToLower(policy.CanonicalPattern(l[1:]))})
		}
		p := acap.Parse([]byte(body.String()))
		if len(p.Problems()) > 0 {
			return // e.g. a pattern that is a resource set
		}
		lpath := strings.ToLower(policy.CanonicalPath(policy.PathOf(path)))
		var match []fieldSpec
		for _, fs := range fields {
			if policy.PatternMatches(fs.pattern, lpath) {
				match = append(match, fs)
			}
		}
		// The reference: the fields no other is narrower than.
		allow, deny := false, false
		for _, a := range match {
			minimal := true
			for _, b := range match {
				minimal = minimal && !narrower(b.pattern, a.pattern)
			}
			if minimal {
				allow, deny = allow || a.allow, deny || !a.allow
			}
		}
		want := len(match) == 0 || allow && !deny
		d := p.Decide(acap.Query{Agent: "bot", URL: path, Usage: acap.Crawl})
		if d.Permitted != want || (allow && deny) != (d.Basis == acap.BasisConflict) {
			t.Fatalf("fields %+v on %q: got %v, want permitted=%v", match, lpath, d, want)
		}
	})
}

// narrower reports whether pattern a has a narrower scope than b, by the
// method of section 2.4.6, written as the text gives it.
func narrower(a, b string) bool {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case i == len(a) && i == len(b):
		return false
	case i == len(b): // b ran out
		return true
	case i == len(a):
		return false
	}
	aDollar, bDollar := a[i] == '$' && i == len(a)-1, b[i] == '$' && i == len(b)-1
	switch {
	case bDollar && !aDollar:
		return true
	case aDollar:
		return false
	case b[i] == '*' && a[i] != '*':
		return true
	}
	return false
}
