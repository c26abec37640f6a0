package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// codesAt returns "line:code" for each finding of body.
func codesAt(body string) []string {
	var out []string
	for _, f := range lint([]byte(body)) {
		out = append(out, strconv.Itoa(f.Line)+":"+f.Code)
	}
	return out
}

func TestLintRules(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"clean", "User-agent: *\nDisallow: /a\nAllow: /a/b\n", nil},
		// RFC 9309 §2.2.2: Allow wins a tie, so the Disallow never decides.
		{"allow wins tie", "User-agent: *\nDisallow: /\nAllow: /\n", []string{"2:shadowed"}},
		{"trailing stars", "User-agent: *\nDisallow: /a\nAllow: /*\n", []string{"2:shadowed"}},
		{"longer wildcard covers", "User-agent: *\nDisallow: /ab\nAllow: /*b*\n", []string{"2:shadowed"}},
		{"shorter does not", "User-agent: *\nDisallow: /abc\nAllow: /*b\n", nil},
		{"duplicate", "User-agent: *\nDisallow: /a\nDisallow: /a\n", []string{"3:redundant"}},
		{"anchored is not covering", "User-agent: *\nDisallow: /ab\nAllow: /a$\n", nil},
		{"merged groups", "User-agent: a\nDisallow: /x\n\nUser-agent: a\nAllow: /x\n", []string{"2:shadowed"}},
		{"other groups apart", "User-agent: a\nDisallow: /x\n\nUser-agent: b\nAllow: /x\n", nil},
		{"empty pattern", "User-agent: *\nDisallow:\nAllow:\n", nil},
		{"missing colon", "User-agent: *\nDisallow: /a\nUser-agent b\nDisallow: /b\n", []string{"3:missing-colon", "4:dialect-difference"}},
		{"ascii art", "User-agent: *\nDisallow: /a\n  ___  \n / _ \\ robots\n<<<<<<< HEAD\n=======\n>>>>>>> main\n", nil},
		{"noindex no colon", "User-agent: *\nNoindex /x\n", nil},
		{"disallow no colon", "User-agent: *\nDisallow /x\n", []string{"2:missing-colon", "2:dialect-difference"}},
		{"dollar inside", "User-agent: *\nDisallow: /*$restore\n", nil},
		{"encoded query", "User-agent: *\nDisallow: /?%3Fcontrollername=search\n", nil},
		{"key prefix", "User-agent: *\nDisallow: /\nAllows: /x\n", []string{"3:misspelt", "3:dialect-difference"}},
		{"delay outside group", "Crawl-delay: 60\nRequest-rate: 1/1m\nUser-agent: *\nDisallow: /a\n", []string{"1:ignored-value", "2:ignored-value"}},
		{"no product token", "User-agent: 360Spider\nDisallow: /a\nDisallow: /a\nAllow: /\nDisallow: /\n", []string{"1:agent-token"}},
		{"typo", "User-agent: *\nDisalow: /x\n", []string{"2:misspelt", "2:dialect-difference"}},
		{"google typo", "User-agent: *\nDissallow: /x\n", []string{"2:misspelt", "2:dialect-difference"}},
		{"near key", "User-agent: *\nUser-agnt: x\n", []string{"2:misspelt"}},
		{"unknown", "User-agent: *\nFoo: bar\n", []string{"2:unknown-directive"}},
		{"known extensions", "User-agent: *\nHost: example.com\nClean-param: a\nCrawl-delay: 5\n", nil},
		{"agent tokens", "User-agent: FooBot/1.0\nUser-agent: Mediapartners-Google*\nUser-agent: MJ12bot\nUser-agent: 360Spider\nDisallow: /\n", []string{"3:agent-token", "4:agent-token"}},
		{"before agent", "Disallow: /a\nUser-agent: *\n", []string{"1:rule-outside-group"}},
		{"pattern start", "User-agent: *\nDisallow: a.php\n", []string{"2:pattern-start"}},
		{"crawl-delay", "User-agent: *\nCrawl-delay: 31\n", []string{"2:crawl-delay-capped"}},
		{"request-rate", "User-agent: *\nRequest-rate: 1/1m\n", []string{"2:crawl-delay-capped"}},
		{"request-rate ok", "User-agent: *\nRequest-rate: 2/10s\n", nil},
		{"unparsed delay", "User-agent: *\nCrawl-delay: soon\n", []string{"2:ignored-value"}},
		{"sitemap", "Sitemap: /s.xml\n", []string{"1:sitemap-relative"}},
		{"encoded unreserved", "User-agent: *\nDisallow: /%7Ejoe\n", []string{"2:dialect-difference"}},
		{"index.html", "User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n", []string{"3:dialect-difference"}},
		{"bom", "\ufeffUser-agent: *\nDisallow: /\n", []string{"1:bom"}},
		{"invalid utf-8", "User-agent: *\nDisallow: /\xff\n", []string{"2:invalid-utf8"}},
		{"html", "<!DOCTYPE html><html><body>hi</body></html>", []string{"0:html"}},
		{"binary", "\x1f\x8b\x08\x00\x00", []string{"0:binary"}},
		{"error page", "404 Not Found\n", []string{"0:not-robots"}},
		{"comments only", "# nothing here\n\n", nil},
		// Package usage reads these lines (check -usage): not unknown.
		{"usage lines", "User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n\nContent-Usage: /blog/ train-ai=y, search=y\ncontent-signal: search=yes, ai-input=no, ai-train=no\n", nil},
		{"acap lines", "ACAP-crawler: *\nACAP-disallow-crawl: /drafts/\nUser-agent: *\nDisallow: /private/\n", nil},
		{"usage outside group", "Content-Usage: train-ai=n\nContent-Signal: ai-train=no\nUser-agent: *\nDisallow: /x\n", []string{"1:ignored-value", "2:ignored-value"}},
		{"content-usage not parsed", "User-agent: *\nContent-Usage: Train-AI=n\nContent-Usage: train-ai=n /blog/\n", []string{"2:ignored-value", "3:ignored-value"}},
		{"content-usage no preference", "User-agent: *\nContent-Usage: train-ai=no\nContent-Usage: /blog/\nContent-Usage: train-genai=n\n", []string{"2:ignored-value", "3:ignored-value", "4:ignored-value"}},
		// draft-ietf-aipref-vocab-08 §6.1: ai-use is a label of the vocabulary;
		// bots, of an earlier draft, is not.
		{"content-usage ai-use", "User-agent: *\nContent-Usage: ai-use=n\nContent-Usage: bots=n\n", []string{"3:ignored-value"}},
		{"content-signal not read", "User-agent: *\nContent-Signal: ai-train=nope\nContent-Signal: search=yes, ai-train\nContent-Signal: use=no\n", []string{"2:ignored-value", "3:ignored-value", "4:ignored-value"}},
		{"usage key typo", "User-agent: *\nContentSignal: ai-train=no\nContent-Usages: train-ai=n\n", []string{"2:misspelt", "3:misspelt"}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := codesAt(tc.body)
			if !slices.Equal(got, tc.want) {
				t.Errorf("lint(%q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}

// A usage line that package usage cannot read is reported with what it
// could not read, and how to write it.
func TestLintUsageMessages(t *testing.T) {
	for _, tc := range []struct{ body, msg, hint string }{
		{"User-agent: *\nContent-Usage: Train-AI=n\n",
			`Content-Usage "Train-AI=n" does not parse (structured field: `, `such as "train-ai=n, search=y"`},
		{"User-agent: *\nContent-Usage: /a train-ai=no\n",
			`Content-Usage "/a train-ai=no" states no preference`, `the tokens y or n`},
		{"User-agent: *\nContent-Signal: ai-train=nope\n",
			`Content-Signal "ai-train=nope" is not read whole (a signal's value is neither yes nor no)`, `such as "search=yes, ai-train=no"`},
		{"Content-Signal: ai-train=no\nUser-agent: *\n",
			`Content-Signal before any User-agent line`, `"User-agent: *"`},
	} {
		fs := lint([]byte(tc.body))
		if len(fs) != 1 {
			t.Errorf("lint(%q): %d findings, want 1: %v", tc.body, len(fs), fs)
			continue
		}
		if f := fs[0]; f.Severity != sevWarning || !strings.HasPrefix(f.Message, tc.msg) || !strings.Contains(f.Hint, tc.hint) {
			t.Errorf("lint(%q) = %s %q (fix: %q), want a warning %q… (fix: …%q…)", tc.body, f.Severity, f.Message, f.Hint, tc.msg, tc.hint)
		}
	}
}

func TestColonHint(t *testing.T) {
	for _, tc := range []struct {
		body, want string
	}{
		{"User-agent: *\nDisallow /private\n", `write "Disallow: /private"`},
		{"User-agent: *\nDISALLOW\t/private\n", `write "DISALLOW: /private"`},
		{"user-agent *\nDisallow: /\n", `write "user-agent: *"`},
		{"User-agent: *\nDisallow private\n", "if the line is meant as a directive"},
	} {
		var hint string
		for _, f := range lint([]byte(tc.body)) {
			if f.Code == "missing-colon" {
				hint = f.Hint
			}
		}
		if !strings.HasPrefix(hint, tc.want) {
			t.Errorf("lint(%q): missing-colon hint %q, want %q", tc.body, hint, tc.want)
		}
	}
}

func TestLintMisspeltPrefix(t *testing.T) {
	for _, f := range lint([]byte("User-agent: *\nDisallow: /\nAllows: /x\n")) {
		if f.Code == "misspelt" && !strings.Contains(f.Message, "Google reads it as Allow") {
			t.Errorf("misspelt: %q does not say Google reads it as Allow", f.Message)
		}
	}
}

func TestLintAgentTokenMessage(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"User-agent: https://hada.news\nDisallow: /\n", `"https://hada.news" is not a product token (letters, '_' and '-'): RFC 9309 and Google read the token "https" from it`},
		{"User-agent: googlebot, bingbot\nDisallow: /\n", `"googlebot, bingbot" is not a product token (letters, '_' and '-'): RFC 9309 and Google read the token "googlebot" from it`},
	} {
		var msg string
		for _, f := range lint([]byte(tc.body)) {
			if f.Code == "agent-token" {
				msg = f.Message
			}
		}
		if !strings.HasPrefix(msg, tc.want) {
			t.Errorf("lint(%q): agent-token %q, want %q…", tc.body, msg, tc.want)
		}
	}
}

func TestLintTooLarge(t *testing.T) {
	body := "User-agent: *\n" + strings.Repeat("Disallow: /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 12000)
	var found bool
	for _, f := range lint([]byte(body)) {
		if f.Code == "too-large" {
			found = true
			if f.Line < 9000 || f.Line > 12001 {
				t.Errorf("too-large at line %d", f.Line)
			}
		}
	}
	if !found {
		t.Error("no too-large finding on a 540 KB file")
	}
}

func TestReadURLs(t *testing.T) {
	log := `2026-01-02 GET https://example.com/a?b=1 200 "https://example.com/ref"
# comment

/just/a/path 3
10.0.0.1 - - [02/Jan/2026] "GET /x HTTP/1.1" 200 - "http://example.com/ref"
10.0.0.2 - - [02/Jan/2026:10:00:00 +0000] "GET /y?z=1 HTTP/1.0" 200 5 "-" "Mozilla/5.0 (compatible; Bot/1.0; +http://bot.example/)"
see HTTPS://Example.com/c, then
(https://example.com/d)
no url here
`
	got, dropped, err := readURLs(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://example.com/a?b=1", "/just/a/path", "/x", "/y?z=1", "HTTPS://Example.com/c", "https://example.com/d"}
	if dropped != 1 {
		t.Errorf("dropped = %d, want 1", dropped)
	}
	if !slices.Equal(got, want) {
		t.Errorf("readURLs = %q, want %q", got, want)
	}
}

func TestColor(t *testing.T) {
	var b strings.Builder
	if colorWanted(&b) {
		t.Error("colour on a strings.Builder")
	}
	t.Setenv("NO_COLOR", "1")
	e := &env{color: colorWanted(&b)}
	if got := e.paint(red, "x"); got != "x" {
		t.Errorf("paint = %q with NO_COLOR", got)
	}
}
