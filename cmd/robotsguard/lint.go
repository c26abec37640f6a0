package main

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// A finding is something a site owner should fix in a robots.txt.
type finding struct {
	Line     int    `json:"line"`     // 1-based; 0 for the whole file
	Severity string `json:"severity"` // "error", "warning" or "info"
	Code     string `json:"code"`     // stable identifier, e.g. "missing-colon"
	Message  string `json:"message"`
	Hint     string `json:"hint"`
	Example  string `json:"example,omitempty"` // a URL that shows the problem
}

// Severities.
const (
	sevError   = "error"   // crawlers do not read the file as its author meant
	sevWarning = "warning" // some crawlers read it differently, or it has no effect
	sevInfo    = "info"    // worth knowing, harmless
)

// lintCodes lists the code of every finding lint reports on a body, in
// the order the package documentation describes them.
var lintCodes = []string{
	"html", "binary", "not-robots", "too-large", "bom", "invalid-utf8",
	"missing-colon", "misspelt", "unknown-directive",
	"agent-token", "rule-outside-group", "pattern-start", "shadowed", "redundant",
	"crawl-delay-capped", "ignored-value", "sitemap-relative",
	"dialect-difference", "acap",
}

// lintOutput is lint's -json output.
type lintOutput struct {
	Source   string    `json:"source"`
	Bytes    int       `json:"bytes"`
	Findings []finding `json:"findings"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
}

func cmdLint(e *env, args []string) (int, error) {
	fs := newFlags(e, "lint")
	jsonOut := fs.Bool("json", false, "write JSON")
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := flagAfterArgs(fs.Args()); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, usagef("lint takes one FILE or URL")
	}
	src, err := e.loadSource(fs.Arg(0), "*", policy.Parser{}, false)
	if err != nil {
		return 0, err
	}
	out := lintOutput{Source: src.Name, Bytes: len(src.body), Findings: []finding{}}
	var nr *robotsguard.NotRobotsTxtError
	challenge := false
	switch {
	case src.snap == nil:
	case src.snap.Access == robotsguard.AccessUnreachable && errors.As(src.snap.Err, &nr) && nr.Challenge != "":
		challenge = true
		out.Findings = append(out.Findings, finding{Severity: sevError, Code: "challenge",
			Message: fmt.Sprintf("status %d: not a robots.txt but a bot challenge, %s: crawlers that read it by its status crawl everything; robotsguard reads the origin as unreachable", nr.Status, nr.Challenge),
			Hint:    "let crawlers fetch /robots.txt without a challenge"})
	case src.snap.Access == robotsguard.AccessUnreachable:
		return 0, fail("%s is unreachable: %s", src.snap.URL, unprefixed(src.snap.Err))
	case src.snap.Access == robotsguard.AccessDisallowAll:
		return 0, fail("%s: status %d disallows everything", src.snap.URL, src.snap.Status)
	}
	if challenge {
		// No file to lint.
	} else if src.snap != nil && src.snap.Access == robotsguard.AccessAllowAll {
		out.Findings = append(out.Findings, finding{Severity: sevInfo, Code: "unavailable",
			Message: fmt.Sprintf("status %d: no robots.txt, so crawlers may fetch everything", src.snap.Status),
			Hint:    "serve a robots.txt with status 200 if you want rules"})
	} else {
		out.Findings = append(out.Findings, lint(src.body)...)
		if src.snap != nil && src.snap.Rules.Truncated() {
			// The body is only what was read: the file is larger.
			for i, f := range out.Findings {
				if f.Code == "too-large" {
					out.Findings[i].Message = fmt.Sprintf("the file is more than 500 KiB; crawlers read the first 500 KiB (%d bytes) and ignore the rest from this line on", policy.DefaultMaxSize)
				}
			}
		}
		if src.snap != nil && src.snap.Rules.Truncated() && !hasCode(out.Findings, "too-large") {
			out.Findings = append(out.Findings, finding{Severity: sevError, Code: "too-large",
				Message: "the file is larger than 500 KiB: crawlers ignore the rest (and the Transport did not download it)",
				Hint:    "shorten the file: merge rules with wildcards, drop rules for pages that no longer exist"})
		}
		if src.snap != nil {
			if ct := contentType(src.live, src.snap.URL); strings.Contains(ct, "html") && !hasCode(out.Findings, "html") {
				out.Findings = append(out.Findings, finding{Severity: sevWarning, Code: "html",
					Message: "served as " + ct, Hint: "serve robots.txt as text/plain"})
			}
		}
	}
	for _, f := range out.Findings {
		switch f.Severity {
		case sevError:
			out.Errors++
		case sevWarning:
			out.Warnings++
		}
	}
	code := exitOK
	if out.Errors > 0 {
		code = exitVerdict
	}
	if *jsonOut {
		return code, writeJSON(e.stdout, out)
	}
	var t table
	for _, f := range out.Findings {
		c := faint
		switch f.Severity {
		case sevError:
			c = red
		case sevWarning:
			c = yellow
		}
		loc := src.Name
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		t.addc(c, f.Severity, loc, f.Code, f.Message)
		if f.Hint != "" {
			t.add("", "", "", e.paint(faint, "fix: "+f.Hint))
		}
	}
	t.write(e, e.stdout)
	fmt.Fprintf(e.stdout, "%s: %s, %s, %s\n", src.Name, count(out.Errors, "error"), count(out.Warnings, "warning"), count(len(out.Findings), "finding"))
	return code, nil
}

func hasCode(fs []finding, code string) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}

// contentType returns the Content-Type of the robots.txt response.
func contentType(l *live, robotsURL string) string {
	ch := l.rec.chain(robotsURL)
	if len(ch) == 0 {
		return ""
	}
	return ch[len(ch)-1].Header.Get("Content-Type")
}

// lint returns the findings on a robots.txt body, sorted by line.
func lint(body []byte) []finding {
	var fs []finding
	add := func(line int, sev, code, msg, hint string) {
		fs = append(fs, finding{Line: line, Severity: sev, Code: code, Message: msg, Hint: hint})
	}
	if kind := contentKind(body); kind != "" {
		add(0, sevError, kind, "this is not a robots.txt but "+map[string]string{"html": "an HTML or XML page", "binary": "binary data"}[kind]+
			": RFC 9309 crawlers find no rules in it and fetch everything",
			"serve a plain-text robots.txt at /robots.txt (or a 404 if you have none)")
		return fs
	}
	lines := splitLines(body)
	if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) {
		add(1, sevInfo, "bom", "the file starts with a byte order mark; RFC 9309 and Google skip it, some older parsers read it as part of the first key",
			"save the file as UTF-8 without BOM")
	}
	if len(body) > policy.DefaultMaxSize {
		add(lineAt(body, policy.DefaultMaxSize), sevError, "too-large",
			fmt.Sprintf("the file is %d bytes; crawlers read the first 500 KiB (%d bytes) and ignore the rest from this line on", len(body), policy.DefaultMaxSize),
			"shorten the file: merge rules with wildcards, drop rules for pages that no longer exist")
	}
	bad := 0
	for i, l := range lines {
		if !utf8.ValidString(l) {
			if bad++; bad <= 3 {
				add(i+1, sevWarning, "invalid-utf8", "the line is not valid UTF-8; crawlers percent-encode its bytes as they are",
					"save the file as UTF-8")
			}
		}
	}

	rfc := policy.Parser{}.Report(body)
	directives, text := 0, 0
	for _, r := range rfc {
		if r.HasDirective {
			directives++
		} else if !r.Empty && !r.Comment {
			text++
		}
	}
	if directives == 0 && text > 0 {
		add(0, sevError, "not-robots", "no line of the file is a robots.txt directive: it looks like an error page or an API response served as robots.txt; crawlers find no rules in it",
			"serve a plain-text robots.txt at /robots.txt (or a 404 if you have none)")
		return fs
	}
	goo := policy.Parser{Dialect: policy.Google}.Report(body)
	seenAgent, inGroup := false, false
	for i, r := range rfc {
		g := policy.LineReport{}
		if i < len(goo) {
			g = goo[i]
		}
		n := r.Line
		switch {
		case g.MissingColon && g.Kind == policy.KindUserAgent:
			msg := "User-agent line without a colon: RFC 9309 crawlers ignore it"
			if inGroup {
				msg += ", so the rules below it join the group above"
			} else {
				msg += ", so the rules below it belong to no group"
			}
			add(n, sevError, "missing-colon", msg+" (Google reads it)", colonHint(rawText(lines, n), g.Kind))
		case g.MissingColon && googleActs(g.Kind):
			add(n, sevWarning, "missing-colon", fmt.Sprintf("%q has no colon: Google reads it as %s, RFC 9309 crawlers ignore it", rawText(lines, n), canonicalKey(g.Key)),
				colonHint(rawText(lines, n), g.Kind))
		case r.Kind == policy.KindOther && googleActs(g.Kind) && g.Kind != r.Kind:
			add(n, sevWarning, "misspelt", fmt.Sprintf("%q is misspelt: Google reads it as %s, other crawlers ignore it", r.Key, canonicalKey(g.Key)),
				fmt.Sprintf("spell it %q", canonicalKey(g.Key)))
		case r.Kind == policy.KindOther && !r.Known:
			k := strings.ToLower(r.Key)
			if strings.HasPrefix(k, "acap-") || usageSignal(k) != 0 {
				break // read by package acap, or by package usage (usageFindings)
			}
			if near := nearKey(k); near != "" {
				add(n, sevWarning, "misspelt", fmt.Sprintf("unknown key %q: crawlers ignore the line", r.Key), fmt.Sprintf("spell it %q", near))
			} else {
				add(n, sevInfo, "unknown-directive", fmt.Sprintf("unknown key %q: crawlers ignore the line", r.Key),
					"remove it, or make it a comment (#)")
			}
		}
		switch r.Kind {
		case policy.KindUserAgent:
			seenAgent, inGroup = true, true
		case policy.KindAllow, policy.KindDisallow:
			if !seenAgent {
				add(n, sevError, "rule-outside-group", "a rule before any User-agent line: crawlers ignore it",
					`put a "User-agent: *" line above it`)
			}
			if v := r.Value; v != "" && v[0] != '/' && v[0] != '*' {
				hint := `start the pattern with "/" (or "*")`
				if isURL(v) {
					hint = fmt.Sprintf("patterns are paths: write %q", policy.PathOf(v))
				}
				add(n, sevWarning, "pattern-start", fmt.Sprintf("the pattern %q does not start with \"/\" or \"*\": crawlers read it differently, and most never match it", v), hint)
			}
		case policy.KindOther:
			if !inGroup {
				break // outside a group: reported as ignored-value
			}
			switch strings.ToLower(r.Key) {
			case "crawl-delay":
				if d, ok := policy.ParseCrawlDelay(r.Value); ok && d > robotsguard.DefaultMaxDelay {
					add(n, sevWarning, "crawl-delay-capped", fmt.Sprintf("Crawl-delay %s s: crawlers cap it (robotsguard at %v; Google ignores Crawl-delay)", r.Value, robotsguard.DefaultMaxDelay),
						fmt.Sprintf("ask for %v or less, or disallow what must not be crawled", robotsguard.DefaultMaxDelay))
				}
			case "request-rate":
				if rate, ok := policy.ParseRequestRate(r.Value); ok && rate.Interval() > robotsguard.DefaultMaxDelay {
					iv := rate.Interval()
					add(n, sevWarning, "crawl-delay-capped", fmt.Sprintf("Request-rate %s asks for %v between requests: crawlers cap it (robotsguard at %v)", r.Value, iv, robotsguard.DefaultMaxDelay),
						"ask for a faster rate, or disallow what must not be crawled")
				}
			}
		}
	}
	fs = append(fs, usageFindings(rfc)...)
	robots := policy.Parser{}.Parse(body)
	fs = append(fs, agentTokens(rfc, robots)...)
	for _, u := range robots.Unknown() {
		switch strings.ToLower(u.Key) {
		case "crawl-delay", "request-rate":
			add(u.Line, sevWarning, "ignored-value", fmt.Sprintf("%s %q is ignored: its value does not parse or it is outside a group", u.Key, u.Value),
				"write it below a User-agent line, as a number of seconds (Crawl-delay: 5) or a rate (Request-rate: 1/5s)")
		case "sitemap", "site-map":
			add(u.Line, sevWarning, "sitemap-relative", fmt.Sprintf("Sitemap %q is not an absolute URL: crawlers ignore it", u.Value),
				"write the full URL, https://example.com/sitemap.xml")
		}
	}
	fs = append(fs, deadRules(robots)...)
	fs = append(fs, dialectDifferences(body, lines, robots)...)
	if ap := (acap.Parser{}).Parse(body); ap.HasRecords() {
		for _, p := range ap.Problems() {
			if p.Source == "" {
				add(p.Line, sevWarning, "acap", fmt.Sprintf("ACAP field ignored or reread: %s", p.Reason), "see ACAP 1.1 part 1, section 2")
			}
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Line < fs[j].Line })
	return fs
}

// googleActs reports whether Google's reading acts on a line of kind k.
func googleActs(k policy.Kind) bool {
	switch k {
	case policy.KindUserAgent, policy.KindAllow, policy.KindDisallow, policy.KindSitemap:
		return true
	}
	return false
}

// colonHint is the fix for a line of kind k written without its colon:
// the line with the key as written and a colon, when its value fits the
// key.
func colonHint(raw string, k policy.Kind) string {
	key, value, _ := strings.Cut(strings.TrimSpace(raw), " ")
	if i := strings.IndexAny(key, "\t"); i >= 0 {
		key, value = key[:i], key[i+1:]+" "+value
	}
	value = strings.TrimSpace(value)
	ok := false
	switch k {
	case policy.KindUserAgent:
		ok = value != "" && !strings.ContainsAny(value, " \t")
	case policy.KindAllow, policy.KindDisallow:
		ok = value == "" || value[0] == '/' || value[0] == '*'
	case policy.KindSitemap:
		ok = isURL(value)
	}
	if !ok {
		return "if the line is meant as a directive, put a colon after its key; otherwise remove it or make it a comment (#)"
	}
	return fmt.Sprintf("write %q", key+": "+value)
}

// contentKind tells whether body is an HTML page or binary data served as
// robots.txt ("html", "binary"), or "" for text.
func contentKind(body []byte) string {
	head := body[:min(len(body), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 || bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		return "binary"
	}
	ctl := 0
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' {
			ctl++
		}
	}
	if len(head) > 0 && ctl*10 > len(head) {
		return "binary"
	}
	low := bytes.ToLower(head[:min(len(head), 4<<10)])
	t := bytes.TrimLeft(bytes.TrimPrefix(low, []byte("\xef\xbb\xbf")), " \t\r\n")
	markup := false
	for _, tag := range []string{"<html", "<!doctype html", "<head", "<body", "<script", "<meta ", "<title", "<div", "<h1", "<p>", "<?xml"} {
		if bytes.Contains(low, []byte(tag)) {
			markup = true
		}
	}
	if markup && (bytes.HasPrefix(t, []byte("<")) || !bytes.Contains(low, []byte("user-agent"))) {
		return "html"
	}
	return ""
}

// splitLines splits body into lines as the parser does: at "\n", "\r\n"
// and "\r".
func splitLines(body []byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\n':
			out = append(out, string(body[start:i]))
			start = i + 1
		case '\r':
			out = append(out, string(body[start:i]))
			if i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(body) {
		out = append(out, string(body[start:]))
	}
	return out
}

// lineAt returns the line that holds byte offset off of body.
func lineAt(body []byte, off int) int {
	return len(splitLines(body[:off])) + 1 - boolInt(off > 0 && (body[off-1] != '\n' && body[off-1] != '\r'))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rawText returns line n (1-based) without its comment, trimmed.
func rawText(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	l := lines[n-1]
	if i := strings.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}

var standardKeys = []string{"user-agent", "allow", "disallow", "sitemap", "crawl-delay", "request-rate", "host", "clean-param", "noindex"}

// canonicalKey spells a key as robots.txt files usually do.
func canonicalKey(k string) string {
	switch strings.ToLower(k) {
	case "user-agent":
		return "User-agent"
	case "allow":
		return "Allow"
	case "disallow":
		return "Disallow"
	case "sitemap":
		return "Sitemap"
	}
	return k
}

// nearKey returns the standard key, or the key of a line package usage
// reads, that k misspells, or "".
func nearKey(k string) string {
	if len(k) < 4 {
		return ""
	}
	for _, s := range standardKeys {
		if d := editDistance(k, s); d > 0 && d <= 2 && d*3 < len(s) {
			return canonicalKey(s)
		}
	}
	for _, s := range usageKeys {
		if d := editDistance(k, strings.ToLower(s)); d > 0 && d <= 2 {
			return s
		}
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// agentTokens finds the User-agent lines whose name is not the product
// token RFC 9309 reads from them: "MJ12bot" names "mj", "360Spider"
// names none, so crawlers that send those names do not follow the group.
func agentTokens(rep []policy.LineReport, r *policy.Robots) []finding {
	tokens := map[int]string{}
	for _, rec := range r.Records() {
		for _, a := range rec.Agents {
			tokens[a.Line] = a.Token
		}
	}
	var fs []finding
	for _, l := range rep {
		if l.Kind != policy.KindUserAgent || l.Value == "*" {
			continue
		}
		tok, ok := tokens[l.Line]
		if !ok {
			continue
		}
		name := l.Value
		if i := strings.IndexAny(name, "/ \t"); i >= 0 {
			name = name[:i]
		}
		name = strings.TrimRight(name, "*")
		if strings.EqualFold(name, tok) {
			continue
		}
		msg := fmt.Sprintf("%q is not a product token (letters, '_' and '-'): RFC 9309 and Google read the token %q from it, so only a crawler whose product token is %q follows this group", l.Value, tok, tok)
		if tok == "" {
			msg = fmt.Sprintf("%q is not a product token (letters, '_' and '-'): RFC 9309 and Google crawlers follow no group by it", l.Value)
		}
		fs = append(fs, finding{Line: l.Line, Severity: sevWarning, Code: "agent-token", Message: msg,
			Hint: "address the crawler by the product token it sends; one whose name holds digits or other characters can only be reached through the \"*\" group"})
	}
	return fs
}
