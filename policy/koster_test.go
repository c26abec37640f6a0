package policy_test

import (
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// Tests of the Koster1996 dialect against the 1996 draft
// (draft-koster-robots-00), each citing its section.

// fict is the /robots.txt of section 4, as printed.
const fict = `# /robots.txt for http://www.fict.org/
# comments to webmaster@fict.org

User-agent: unhipbot
Disallow: /

User-agent: webcrawler
User-agent: excite
Disallow: 

User-agent: *
Disallow: /org/plans.html
Allow: /org/
Allow: /serv
Allow: /~mak
Disallow: /
`

// TestKoster1996_4_ExampleMatrix checks the matrix of section 4, row by row.
func TestKoster1996_4_ExampleMatrix(t *testing.T) {
	r := policy.Parser{Dialect: policy.Koster1996}.Parse([]byte(fict))
	robots := []string{"UnhipBot/0.1", "WebCrawler/3.0", "Excite/1.0", "OtherBot/1.0"}
	rows := []struct {
		url                          string
		unhipbot, webcrawler, others bool // webcrawler stands for "webcrawler & excite"
	}{
		{"http://www.fict.org/", false, true, false},
		{"http://www.fict.org/index.html", false, true, false},
		{"http://www.fict.org/robots.txt", true, true, true},
		{"http://www.fict.org/server.html", false, true, true},
		{"http://www.fict.org/services/fast.html", false, true, true},
		{"http://www.fict.org/services/slow.html", false, true, true},
		{"http://www.fict.org/orgo.gif", false, true, false},
		{"http://www.fict.org/org/about.html", false, true, true},
		{"http://www.fict.org/org/plans.html", false, true, false},
		{"http://www.fict.org/%7Ejim/jim.html", false, true, false},
		{"http://www.fict.org/%7Emak/mak.html", false, true, true},
	}
	for _, row := range rows {
		want := []bool{row.unhipbot, row.webcrawler, row.webcrawler, row.others}
		for i, robot := range robots {
			if got := r.Allowed(robot, row.url); got != want[i] {
				t.Errorf("%s, %s: allowed %v, want %v (%v)", robot, row.url, got, want[i], r.Group(robot).Decide(row.url))
			}
		}
	}
}

// TestKoster1996_3_2_2_PathMatching checks the table of section 3.2.2.
func TestKoster1996_3_2_2_PathMatching(t *testing.T) {
	rows := []struct {
		record, path string
		match        bool
	}{
		{"/tmp", "/tmp", true},
		{"/tmp", "/tmp.html", true},
		{"/tmp", "/tmp/a.html", true},
		{"/tmp/", "/tmp", false},
		{"/tmp/", "/tmp/", true},
		{"/tmp/", "/tmp/a.html", true},
		{"/a%3cd.html", "/a%3cd.html", true},
		{"/a%3Cd.html", "/a%3cd.html", true},
		{"/a%3cd.html", "/a%3Cd.html", true},
		{"/a%3Cd.html", "/a%3Cd.html", true},
		{"/a%2fb.html", "/a%2fb.html", true},
		{"/a%2fb.html", "/a/b.html", false},
		{"/a/b.html", "/a%2fb.html", false},
		{"/a/b.html", "/a/b.html", true},
		{"/%7ejoe/index.html", "/~joe/index.html", true},
		{"/~joe/index.html", "/%7Ejoe/index.html", true},
	}
	for _, row := range rows {
		r := policy.Parser{Dialect: policy.Koster1996}.Parse([]byte("User-agent: *\nDisallow: " + row.record + "\n"))
		if got := !r.Allowed("bot", row.path); got != row.match {
			t.Errorf("record %q, path %q: match %v, want %v", row.record, row.path, got, row.match)
		}
	}
}

func TestKoster1996(t *testing.T) {
	tests := []struct {
		name   string
		robots string
		checks []verdict
	}{
		{
			name:   "Koster1996_3_2_2_FirstMatchWins",
			robots: "User-agent: *\nDisallow: /tmp\nAllow: /tmp/ok.html\n",
			checks: []verdict{{"bot", "/tmp/ok.html", false}, {"bot", "/tmp", false}, {"bot", "/other", true}},
		},
		{
			name:   "Koster1996_3_2_2_AllowFirst",
			robots: "User-agent: *\nAllow: /tmp/ok.html\nDisallow: /tmp\n",
			checks: []verdict{{"bot", "/tmp/ok.html", true}, {"bot", "/tmp/no.html", false}},
		},
		{
			name:   "Koster1996_3_2_1_FirstRecordByNameSubstring",
			robots: "User-agent: Fig Tree Search\nDisallow: /a\n\nUser-agent: figtree\nDisallow: /b\n\nUser-agent: *\nDisallow: /\n",
			checks: []verdict{
				{"FigTree/0.1 Robot libwww-perl/5.04", "/a", true}, // "figtree" is not in "fig tree search"
				{"FigTree/0.1 Robot libwww-perl/5.04", "/b", false},
				{"Tree", "/a", false}, // "tree" is in the first record's value: the first wins
				{"Tree", "/b", true},
				{"Other", "/x", false},
			},
		},
		{
			name:   "Koster1996_3_2_1_NoUnion",
			robots: "User-agent: bot\nDisallow: /a\n\nUser-agent: bot\nDisallow: /b\n",
			checks: []verdict{{"bot", "/a", false}, {"bot", "/b", true}},
		},
		{
			name:   "Koster1996_3_2_BlankLinesEndRecords",
			robots: "User-agent: a\nDisallow: /x\n\nDisallow: /y\nUser-agent: b\n# comment\nDisallow: /z\n",
			checks: []verdict{{"a", "/x", false}, {"a", "/y", true}, {"b", "/z", false}, {"b", "/y", true}},
		},
		{
			name:   "Koster1996_3_2_2_NoWildcards",
			robots: "User-agent: *\nDisallow: /*.gif\nDisallow: /end$\n",
			checks: []verdict{{"bot", "/x.gif", true}, {"bot", "/*.gif", false}, {"bot", "/end", true}, {"bot", "/end$", false}},
		},
		{
			name:   "Koster1996_3_2_2_RobotsTxtAlwaysAllowed",
			robots: "User-agent: *\nDisallow: /\n",
			checks: []verdict{{"bot", "/robots.txt", true}, {"bot", "/robots.txt.bak", false}},
		},
	}
	for _, tc := range tests {
		checkVerdicts(t, tc.name, policy.Parser{Dialect: policy.Koster1996}.Parse([]byte(tc.robots)), tc.checks)
	}
}

// TestKoster1996Explains: the first matching rule is the one reported.
func TestKoster1996Explains(t *testing.T) {
	r := policy.Parser{Dialect: policy.Koster1996}.Parse([]byte(fict))
	d := r.Group("OtherBot").Decide("/org/plans.html")
	if d.Allowed || d.Rule.Line != 12 || d.Rule.Pattern != "/org/plans.html" || d.GroupAgent != "*" || d.GroupLine != 11 {
		t.Errorf("Decide = %+v", d)
	}
	d = r.Group("Excite").Decide("/x")
	if !d.Allowed || d.Basis != policy.BasisNoMatch || d.GroupLine != 7 {
		t.Errorf("Decide = %+v", d)
	}
}

// TestDialectExamples checks the three examples of the package
// documentation, in each dialect.
func TestDialectExamples(t *testing.T) {
	tests := []struct {
		robots, url             string
		rfc, google, koster1996 bool // allowed
	}{
		{"User-agent: *\nAllow: /a\nDisallow: /a/\n", "/a/b.html", false, false, true},
		{"User-agent: *\nDisalow: /x\n", "/x", true, false, true},
		{"User-agent: foobot\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n", "/b", false, false, true},
		{"User-agent: foobot\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n", "/a", false, false, false},
	}
	for _, tc := range tests {
		for d, want := range map[policy.Dialect]bool{policy.RFC9309: tc.rfc, policy.Google: tc.google, policy.Koster1996: tc.koster1996} {
			if got := (policy.Parser{Dialect: d}).Parse([]byte(tc.robots)).Allowed("FooBot", tc.url); got != want {
				t.Errorf("%v: %q, %s: allowed %v, want %v", d, tc.robots, tc.url, got, want)
			}
		}
	}
}
