package main

import (
	"fmt"
	"sort"
	"strconv"

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

// diffOutput is diff's -json output.
type diffOutput struct {
	Old     string   `json:"old"`
	New     string   `json:"new"`
	Agents  []string `json:"agents"`
	URLs    int      `json:"urls"`    // URLs compared per agent
	Derived bool     `json:"derived"` // the URLs were derived from the files' rules
	Changes []change `json:"changes"`
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
	out := diffOutput{Old: oldSrc.Name, New: newSrc.Name, Changes: []change{}}
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
	code := exitOK
	if len(out.Changes) > 0 {
		code = exitVerdict
	}
	if *jsonOut {
		return code, writeJSON(e.stdout, out)
	}
	kv(e.stdout, "old", out.Old, "new", out.New)
	if out.Derived {
		fmt.Fprintf(e.stdout, "%d URLs derived from the rules of both files, %d agents\n\n", out.URLs, len(out.Agents))
	} else {
		fmt.Fprintf(e.stdout, "%d URLs, %d agents\n\n", out.URLs, len(out.Agents))
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
	fmt.Fprintf(e.stdout, "%d verdicts change\n", len(out.Changes))
	return code, nil
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
