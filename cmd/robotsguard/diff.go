package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/policy"
)

// change is a URL whose verdict differs between the two files, for an
// agent.
type change struct {
	Agent string  `json:"agent"`
	URL   string  `json:"url"`
	Old   verdict `json:"old"`
	New   verdict `json:"new"`
}

// pauseChange is an agent whose pause between requests differs between
// the two files.
type pauseChange struct {
	Agent string `json:"agent"`
	Old   pause  `json:"old"`
	New   pause  `json:"new"`
}

// pause is the pause a file asks of an agent between requests: its
// group's Crawl-delay, or else the interval of its Request-rate.
type pause struct {
	Seconds   float64 `json:"seconds"`              // 0 when the file asks none
	Directive string  `json:"directive,omitempty"`  // the line, "Crawl-delay: 0.2"
	Line      int     `json:"line,omitempty"`       // its line
	Group     string  `json:"group,omitempty"`      // the group followed
	GroupLine int     `json:"group_line,omitempty"` // its first user-agent line
}

// diffOutput is diff's -json output.
type diffOutput struct {
	Old     string        `json:"old"`
	New     string        `json:"new"`
	Agents  []string      `json:"agents"`
	URLs    int           `json:"urls"`    // URLs compared per agent
	Derived bool          `json:"derived"` // the URLs were derived from the files' rules
	Changes []change      `json:"changes"`
	Pauses  []pauseChange `json:"pauses"` // agents whose pause changes
}

func cmdDiff(e *env, args []string) (int, error) {
	fs := newFlags(e, "diff")
	agent := fs.String("agent", "", "compare for the crawler `NAME` only, and fetch a URL's robots.txt as NAME (default: every agent either file names, and *; fetch as robotsguard-cli/VERSION)")
	jsonOut := fs.Bool("json", false, "write JSON")
	urlsFile := fs.String("urls", "", "read URLs from `FILE` (- for stdin): a URL list, or a crawl log (each line's request target or first http(s) URL)")
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() < 2 {
		return 0, usagef("diff takes OLD and NEW, each a file or an http(s) URL")
	}
	if fs.Arg(0) == "-" && fs.Arg(1) == "-" || *urlsFile == "-" && (fs.Arg(0) == "-" || fs.Arg(1) == "-") {
		return 0, usagef("only one of OLD, NEW and -urls may read stdin")
	}
	urls, err := e.urlsFrom(*urlsFile, fs.Args()[2:])
	if err != nil {
		return 0, err
	}
	p := policy.Parser{}
	// A live side is fetched as -agent: a site may serve each agent its
	// own file.
	as := "*"
	if *agent != "" {
		as = *agent
	}
	oldSrc, err := e.load(fs.Arg(0), as, p)
	if err != nil {
		return 0, err
	}
	newSrc, err := e.load(fs.Arg(1), as, p)
	if err != nil {
		return 0, err
	}
	out := diffOutput{Old: oldSrc.Name, New: newSrc.Name, Changes: []change{}, Pauses: []pauseChange{}}
	if len(urls) == 0 {
		urls = derivedURLs(oldSrc.robots, newSrc.robots)
		out.Derived = true
	}
	out.URLs = len(urls)
	if *agent != "" {
		out.Agents = []string{*agent}
	} else {
		out.Agents = agentsOf(oldSrc.robots, newSrc.robots)
	}
	for _, a := range out.Agents {
		og, ng := oldSrc.robots.Group(a), newSrc.robots.Group(a)
		for _, u := range urls {
			d1, d2 := og.Decide(u), ng.Decide(u)
			if d1.Allowed == d2.Allowed {
				continue
			}
			out.Changes = append(out.Changes, change{Agent: a, URL: u, Old: fromDecision(u, d1), New: fromDecision(u, d2)})
		}
	}
	for _, a := range out.Agents {
		p1, p2 := oldSrc.pause(a), newSrc.pause(a)
		if p1.Seconds != p2.Seconds {
			out.Pauses = append(out.Pauses, pauseChange{Agent: a, Old: p1, New: p2})
		}
	}
	code := exitOK
	if len(out.Changes) > 0 || len(out.Pauses) > 0 {
		code = exitVerdict
	}
	if *jsonOut {
		return code, writeJSON(e.stdout, out)
	}
	kv(e.stdout, "old", out.Old, "new", out.New)
	if out.Derived {
		fmt.Fprintf(e.stdout, "%s derived from the rules of both files, %s\n\n", count(out.URLs, "URL"), count(len(out.Agents), "agent"))
	} else {
		fmt.Fprintf(e.stdout, "%s, %s\n\n", count(out.URLs, "URL"), count(len(out.Agents), "agent"))
	}
	if len(out.Changes) > 0 {
		var t table
		t.addc(faint, "AGENT", "URL", "OLD", "NEW")
		for _, c := range out.Changes {
			col := green
			if !c.New.Allowed {
				col = red
			}
			t.addc(col, c.Agent, c.URL, describe(c.Old), describe(c.New))
		}
		t.write(e, e.stdout)
		fmt.Fprintln(e.stdout)
	}
	if len(out.Pauses) > 0 {
		var t table
		t.addc(faint, "AGENT", "OLD PAUSE", "NEW PAUSE")
		for _, c := range out.Pauses {
			col := green
			if c.New.Seconds > c.Old.Seconds {
				col = yellow // slower
			}
			t.addc(col, c.Agent, c.Old.describe(c.Agent), c.New.describe(c.Agent))
		}
		t.write(e, e.stdout)
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintf(e.stdout, "%s, %s\n", changes(len(out.Changes), "verdict"), changes(len(out.Pauses), "pause"))
	return code, nil
}

// changes counts n things that change: "1 verdict changes", "0 pauses change".
func changes(n int, thing string) string {
	if n == 1 {
		return "1 " + thing + " changes"
	}
	return strconv.Itoa(n) + " " + thing + "s change"
}

// describe is a pause of agent in a few words: "200ms by Crawl-delay: 0.2
// (line 3)", with the group when it is another agent's ("*").
func (p pause) describe(agent string) string {
	if p.Seconds == 0 {
		return "none asked"
	}
	s := duration(time.Duration(p.Seconds * float64(time.Second)))
	if p.Directive != "" {
		s += " by " + p.Directive + " (line " + strconv.Itoa(p.Line)
		tok := policy.ProductToken(agent)
		if tok == "" {
			tok = agent // "*"
		}
		if p.Group != strings.ToLower(tok) {
			s += ", group " + strconv.Quote(p.Group)
		}
		s += ")"
	}
	return s
}

// pause returns the pause the file asks of agent between requests, with
// the line that asks it.
func (s *source) pause(agent string) pause {
	g := s.robots.Group(agent)
	var p pause
	key := "crawl-delay"
	d, ok := g.CrawlDelay()
	rate, rok := g.RequestRate()
	switch {
	case ok:
	case rok:
		key, d = "request-rate", rate.Interval()
	default:
		return p
	}
	p.Seconds, p.Group, p.GroupLine = d.Seconds(), g.Agent(), g.Line()
	if s.report == nil {
		s.report = policy.Parser{}.Report(s.body)
	}
	// The line is in a record of the group, below the agent's
	// user-agent line: the first there with the group's value.
	recs := s.robots.Records()
	for i, rec := range recs {
		end := math.MaxInt
		if i+1 < len(recs) {
			end = recs[i+1].Line
		}
		for _, a := range rec.Agents {
			if a.Token != g.Agent() {
				continue
			}
			for _, l := range s.report {
				if l.Line < a.Line || l.Line >= end || strings.ToLower(l.Key) != key {
					continue
				}
				same := parseRate(l.Value) == rate
				if key == "crawl-delay" {
					v, ok := policy.ParseCrawlDelay(l.Value)
					same = ok && v == d
				}
				if same {
					p.Directive, p.Line = l.Key+": "+l.Value, l.Line
					return p
				}
			}
		}
	}
	return p
}

// parseRate reads a Request-rate value, the zero Rate when it does not parse.
func parseRate(v string) policy.Rate {
	r, _ := policy.ParseRequestRate(v)
	return r
}

// describe is a verdict in a few words: "disallowed by Disallow: /a (line 3)".
func describe(v verdict) string {
	s := v.word()
	switch v.Basis {
	case "rule":
		return s + " by " + v.Rule + " (line " + strconv.Itoa(v.Line) + ")"
	default:
		return s + " (" + v.why() + ")"
	}
}

// agentsOf returns the product tokens both files name, sorted, with "*".
func agentsOf(rs ...*policy.Robots) []string {
	set := map[string]bool{"*": true}
	for _, r := range rs {
		for _, rec := range r.Records() {
			for _, a := range rec.Agents {
				if a.Token != "" {
					set[a.Token] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] == "*" || out[j] != "*" && out[i] < out[j] })
	return out
}

// derivedURLs returns paths derived from every rule of the files, sorted.
func derivedURLs(rs ...*policy.Robots) []string {
	set := map[string]bool{"/": true}
	for _, r := range rs {
		for _, rec := range r.Records() {
			for _, ru := range rec.Rules {
				for _, c := range diffCandidates(ru.Pattern) {
					set[c] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for u := range set {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
