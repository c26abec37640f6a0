package usage

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

const robotsURL = "https://example.com/robots.txt"

// verdictOf folds the evidence as the vocabulary combines statements
// (draft-ietf-aipref-vocab-08 §5.1): any disallow wins, then any allow.
func verdictOf(ev []Evidence) Verdict {
	v := Unknown
	for _, e := range ev {
		if e.Verdict == Disallowed {
			return Disallowed
		}
		if e.Verdict == Allowed {
			v = Allowed
		}
	}
	return v
}

type robotsCase struct {
	agent, target string
	c             Category
	want          Verdict
	lines         []int // the Source.Line of each evidence, when given
}

func checkRobots(t *testing.T, body string, cases []robotsCase) {
	t.Helper()
	r := ParseRobots([]byte(body), robotsURL)
	for _, tc := range cases {
		ev := r.Evidence(tc.agent, tc.target, tc.c)
		if got := verdictOf(ev); got != tc.want {
			t.Errorf("%s %s %s: %v, want %v (%v)", tc.agent, tc.target, tc.c, got, tc.want, ev)
		}
		if tc.lines != nil {
			var lines []int
			for _, e := range ev {
				lines = append(lines, e.Source.Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.lines) {
				t.Errorf("%s %s %s: lines %v, want %v", tc.agent, tc.target, tc.c, lines, tc.lines)
			}
		}
		for _, e := range ev {
			if e.Category != tc.c || e.Verdict == Unknown || e.Source.Place != InFile || e.Source.URL != robotsURL ||
				e.Source.Line <= 0 || e.Source.Text == "" || len(e.Source.Text) > aiprefMaxText {
				t.Errorf("malformed evidence %+v", e)
			}
		}
	}
}

// draft-ietf-aipref-attach §1.2 Examples: the same preference in
// robots.txt as in the header example.
func TestAttachSection1_2RobotsExample(t *testing.T) {
	body := "User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n"
	checkRobots(t, body, []robotsCase{
		{"FooBot", "https://example.com/", TrainAI, Disallowed, []int{3}},
		{"Mozilla/5.0 (compatible; BarBot/1.0)", "/any/path?q", TrainAI, Disallowed, []int{3}},
		{"FooBot", "/", Search, Unknown, nil},
		{"FooBot", "/", AIInput, Unknown, nil},
		{"FooBot", "/", Crawl, Unknown, nil},
	})
	// The path form of earlier revisions reads the same.
	checkRobots(t, "User-Agent: *\nAllow: /\nContent-Usage: / train-ai=n\n", []robotsCase{
		{"FooBot", "/x", TrainAI, Disallowed, []int{3}},
	})
}

// §3.4 Example, Figure 2 and Table 1.
func TestAttachSection3_4Example(t *testing.T) {
	body := `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
`
	checkRobots(t, body, []robotsCase{
		{"OtherBot", "/test", TrainAI, Disallowed, []int{4}},
		{"OtherBot", "/ai-ok/test", TrainAI, Allowed, []int{5}},
		// "/never/test" cannot be crawled, so has no preference: that is
		// for the caller to see in the Allow/Disallow rules.
		{"OtherBot", "/never/test", TrainAI, Disallowed, []int{4}},
		{"ExampleBot", "/test", TrainAI, Allowed, []int{9}},
		{"examplebot/2.0", "/ai-ok/test", TrainAI, Allowed, []int{9}},
		{"ExampleBot", "/never/test", TrainAI, Allowed, []int{9}},
	})
}

// §3.1 Content-Usage Rule Semantics: rules with identical paths and
// conflicting preferences each apply, and the most restrictive wins; the
// order of rules in the group carries no meaning.
func TestAttachSection3_1IdenticalPaths(t *testing.T) {
	body := "User-agent: *\nContent-Usage: /a/ train-ai=y\nAllow: /\nContent-Usage: /a/ train-ai=n, search=y\nContent-Usage: /b/ train-ai=n\nContent-Usage: /b* train-ai=y\n"
	checkRobots(t, body, []robotsCase{
		{"x", "/a/1", TrainAI, Disallowed, []int{2, 4}},
		{"x", "/a/1", Search, Allowed, []int{4}},
		// Patterns of the same length, "/b/" and "/b*": both apply.
		{"x", "/b/1", TrainAI, Disallowed, []int{5, 6}},
		{"x", "/bc", TrainAI, Allowed, []int{6}},
		{"x", "/c", TrainAI, Unknown, []int{}},
	})
}

// §3.1: the longest matching path decides, by its whole statement; a
// statement silent on a category leaves it unknown there, and one that does
// not parse states nothing (draft-ietf-aipref-vocab-08 §6.5.1).
func TestAttachSection3_1LongestPath(t *testing.T) {
	body := "User-agent: *\nContent-Usage: train-ai=n, search=n\nContent-Usage: /blog/ search=y\nContent-Usage: /blog/drafts/ Train-AI=y\nContent-Usage: /*.pdf$ train-ai=y\nContent-Usage: /%7Euser/ search=n\n"
	checkRobots(t, body, []robotsCase{
		{"x", "/", TrainAI, Disallowed, []int{2}},
		{"x", "/blog/post", Search, Allowed, []int{3}},
		{"x", "/blog/post", TrainAI, Unknown, []int{}},
		{"x", "/blog/drafts/1", Search, Unknown, []int{}},
		{"x", "/blog/drafts/1", TrainAI, Unknown, []int{}},
		{"x", "/files/a.pdf", TrainAI, Allowed, []int{5}},
		{"x", "/files/a.pdf?x", TrainAI, Disallowed, []int{2}},
		// Paths compare in RFC 9309's canonical form.
		{"x", "/~user/page", Search, Disallowed, []int{6}},
	})
	r := ParseRobots([]byte(body), robotsURL)
	if probs, n := r.Problems(); n != 1 || len(probs) != 1 || probs[0].Line != 4 || probs[0].Signal != ContentUsage ||
		!strings.HasPrefix(probs[0].Error(), "robotsguard: robots.txt line 4: ") {
		t.Errorf("problems %v %d", probs, n)
	}
}

// §3.2 Processing Content-Usage Rules: spaces and tabs around the label and
// the colon, a comment after '#', and a label in any case.
func TestAttachSection3_2Processing(t *testing.T) {
	body := "user-agent: *\n \tCONTENT-usage\t :\t/p/\ttrain-ai=n # not: search=n\ncontent-usage: /q search=n\n"
	checkRobots(t, body, []robotsCase{
		{"x", "/p/1", TrainAI, Disallowed, []int{2}},
		{"x", "/p/1", Search, Unknown, nil},
		{"x", "/q", Search, Disallowed, []int{3}},
	})
}

// RFC 9309 §2.2.1 group selection, which Content-Usage follows: the union
// of the groups naming the product token, ignoring case, else "*"; a group
// naming the agent without any Content-Usage line still hides "*".
func TestRobotsGroupSelection(t *testing.T) {
	body := `User-agent: *
Content-Usage: train-ai=n

User-agent: GPTBot
Disallow: /private

User-agent: FooBot
User-agent: BarBot/1.0
Content-Signal: ai-train=yes

User-agent: foobot
Content-Usage: /x/ train-ai=y
Content-Signal: /x/ search=no

User-agent: baz
Content-Usage: search=y
User-agent: qux
Content-Usage: search=n
`
	checkRobots(t, body, []robotsCase{
		{"GPTBot", "/", TrainAI, Unknown, []int{}},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)", "/", TrainAI, Unknown, []int{}},
		{"Other", "/", TrainAI, Disallowed, []int{2}},
		{"", "/", TrainAI, Disallowed, []int{2}},
		{"FOOBOT/3", "/", TrainAI, Allowed, []int{9}},
		// Content-Signal "/x/ search=no" (longer) is silent on ai-train.
		{"FooBot", "/x/1", TrainAI, Allowed, []int{12}},
		{"FooBot", "/x/1", Search, Disallowed, []int{13}},
		{"BarBot", "/x/1", TrainAI, Allowed, []int{9}},
		// A Content-Usage line is a rule: the user-agent line after it
		// starts another group.
		{"baz", "/", Search, Allowed, []int{16}},
		{"qux", "/", Search, Disallowed, []int{18}},
	})
}

// contentsignals.org and Cloudflare's managed robots.txt.
func TestContentSignalExamples(t *testing.T) {
	cloudflare := `# As a condition of accessing this website, you agree to abide by
# the following content signals: ...
User-Agent: *
Content-signal: search=yes,ai-train=no
Allow: /
`
	checkRobots(t, cloudflare, []robotsCase{
		{"AnyBot", "/page", Search, Allowed, []int{4}},
		{"AnyBot", "/page", TrainAI, Disallowed, []int{4}},
		{"AnyBot", "/page", AIInput, Unknown, []int{}},
		{"AnyBot", "/page", Snippet, Unknown, []int{}},
	})
	site := "User-Agent: *\nContent-Signal: ai-train=no, search=yes, ai-input=yes\nAllow: /\n"
	checkRobots(t, site, []robotsCase{
		{"AnyBot", "/", AIInput, Allowed, []int{2}},
		{"AnyBot", "/", TrainAI, Disallowed, []int{2}},
	})
	// Cloudflare's "use" key, unknown keys, case and spacing.
	odd := "User-Agent: *\nContent-Signal: search=yes,ai-train=no,use=reference\nContent-Signal: /x AI-Input = No , foo=bar\n"
	checkRobots(t, odd, []robotsCase{
		{"AnyBot", "/", Search, Allowed, []int{2}},
		{"AnyBot", "/x", AIInput, Disallowed, []int{3}},
		{"AnyBot", "/x", Search, Unknown, []int{}},
	})
}

func TestParseContentSignal(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  aiprefVerdicts
		use   uint8
		err   bool
	}{
		{"search=yes, ai-input=no, ai-train=no", aiprefVerdicts{slotSearch: Allowed, slotAIInput: Disallowed, slotTrainAI: Disallowed}, 0, false},
		{"", aiprefVerdicts{}, 0, false},
		{"ai-train=no, ai-train=yes", aiprefVerdicts{slotTrainAI: Disallowed}, 0, false},
		{"ai-train=yes, ai-train=no", aiprefVerdicts{slotTrainAI: Disallowed}, 0, false},
		{"search=maybe, ai-train=no", aiprefVerdicts{slotTrainAI: Disallowed}, 0, true},
		{"search, ai-train=no,,", aiprefVerdicts{slotTrainAI: Disallowed}, 0, true},
		// Cloudflare's use level names no category.
		{"use=full", aiprefVerdicts{}, 3, false},
		{"search=yes,ai-train=no,use=reference", aiprefVerdicts{slotSearch: Allowed, slotTrainAI: Disallowed}, 2, false},
		{"use=full, USE=Immediate", aiprefVerdicts{}, 1, false},
		{"use=all, search=no", aiprefVerdicts{slotSearch: Disallowed}, 0, true},
	} {
		got, use, err := parseContentSignal(tc.value)
		if got != tc.want || use != tc.use || (err != nil) != tc.err {
			t.Errorf("%q: %v, use %d, %v; want %v, use %d, error %v", tc.value, got, use, err, tc.want, tc.use, tc.err)
		}
	}
}

// Cloudflare's managed robots.txt: use=reference is reported on every
// category the line speaks of, and changes none of their verdicts.
func TestContentSignalUse(t *testing.T) {
	r := ParseRobots([]byte("User-agent: *\nContent-Signal: search=yes,ai-train=no,use=reference\nAllow: /\n"), robotsURL)
	for _, tc := range []struct {
		c    Category
		want Verdict
	}{{Search, Allowed}, {TrainAI, Disallowed}, {AIInput, Unknown}} {
		d := Decide(Query{Agent: "FooBot", URL: "/a", Category: tc.c}, &Site{RobotsURL: robotsURL, Robots: r}, nil)
		if d.Verdict != tc.want || len(d.Evidence) != 1 || d.Evidence[0].Conditions.ContentUse != "reference" {
			t.Errorf("%s: %v %v", tc.c, d, d.Evidence)
		}
		if tc.want != Disallowed && d.Conditions.String() != "use=reference" {
			t.Errorf("%s: conditions %q", tc.c, d.Conditions)
		}
	}
}

func TestRobotsEmptyAndProblems(t *testing.T) {
	for _, body := range []string{
		"", "User-agent: *\nDisallow: /private\n", "User-agent: *\nX-Content-Type: a\nContent-Type: x\n",
		"Content-Signal: ai-train=no\nUser-agent: *\nDisallow: /\n",
	} {
		r := ParseRobots([]byte(body), robotsURL)
		if !r.Empty() || r.Evidence("x", "/", TrainAI) != nil {
			t.Errorf("%q: not empty", body)
		}
	}
	// A line before any user-agent line applies to no one.
	r := ParseRobots([]byte("Content-Signal: ai-train=no\nUser-agent: *\nDisallow: /\n"), robotsURL)
	if probs, n := r.Problems(); n != 1 || probs[0].Line != 1 || probs[0].Signal != ContentSignal {
		t.Errorf("problems %v %d", probs, n)
	}
	var nilR *RobotsSignals
	if !nilR.Empty() || nilR.Evidence("x", "/", TrainAI) != nil || nilR.Count(ContentUsage) != 0 {
		t.Error("nil RobotsSignals speaks")
	}
	// Problems are kept up to robotsMaxProblems, and all counted.
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for range 40 {
		b.WriteString("Content-Usage: Bad\n")
	}
	r = ParseRobots([]byte(b.String()), robotsURL)
	if probs, n := r.Problems(); len(probs) != robotsMaxProblems || n != 40 || r.Count(ContentUsage) != 40 {
		t.Errorf("%d problems kept, %d counted, %d lines", len(probs), n, r.Count(ContentUsage))
	}
}

func TestRobotsSourceText(t *testing.T) {
	long := "search=yes, " + strings.Repeat("x=y, ", 100) + "ai-train=no"
	r := ParseRobots([]byte("User-agent: *\nContent-Signal: "+long+"\n"), robotsURL)
	ev := r.Evidence("x", "/", TrainAI)
	if len(ev) != 1 {
		t.Fatalf("evidence %v", ev)
	}
	if s := ev[0].Source; len(s.Text) != aiprefMaxText || !strings.HasPrefix(s.Text, "Content-Signal: search=yes") ||
		s.Signal != ContentSignal || s.Line != 2 || s.URL != robotsURL {
		t.Errorf("source %+v", s)
	}
	if got, want := ev[0].String(), `train-ai disallowed by https://example.com/robots.txt line 2 "Content-Signal: search=yes, x=y`; !strings.HasPrefix(got, want) {
		t.Errorf("String() = %q", got)
	}
}

func TestRobotsMayHaveSignals(t *testing.T) {
	for body, want := range map[string]bool{
		"":                         false,
		"content-":                 false,
		"-usage":                   false,
		"CONTENT-USAGE: x":         true,
		"x\ncontent-Signal":        true,
		"content-signa":            false,
		"a-b-c-content-usage-":     true,
		"User-agent: *\nAllow: /-": false,
		"conTenT-usAge":            true,
		"contenu-usage":            false,
	} {
		if got := aiprefMayHaveSignals([]byte(body)); got != want {
			t.Errorf("%q: %v, want %v", body, got, want)
		}
	}
}

// draft-ietf-aipref-vocab-08 §4.2 and §6.1: ai-use in a robots.txt rule is
// AIInput, chosen by the longest matching path as every Content-Usage rule
// (draft-ietf-aipref-attach-05 §3.2). Lines 16 and 17 of the file:
//
//	Content-Usage: / search=y, train-ai=n, ai-use=y
//	Content-Usage: /archive/ ai-use=n
func TestVocabSection4_2AIUseRobots(t *testing.T) {
	body, err := os.ReadFile("testdata/aipref/publisher.txt")
	if err != nil {
		t.Fatal(err)
	}
	checkRobots(t, string(body), []robotsCase{
		{"ExampleSearchBot/2.1", "/news/1", AIInput, Allowed, []int{16}},
		{"ExampleSearchBot/2.1", "/archive/2020/page.html", AIInput, Disallowed, []int{17, 18}},
		// The /archive/ rule names only ai-use: search and train-ai are unknown there.
		{"ExampleSearchBot/2.1", "/archive/2020/page.html", Search, Unknown, []int{}},
		{"ExampleSearchBot/2.1", "/news/1", Search, Allowed, []int{16}},
	})
}
