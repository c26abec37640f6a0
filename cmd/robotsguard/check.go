package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/botauth"
	"github.com/robotsguard/robotsguard/policy"
	usagecat "github.com/robotsguard/robotsguard/usage"
)

// verdict is the decision on one URL, as check and diff print it.
type verdict struct {
	URL     string `json:"url"`
	Allowed bool   `json:"allowed"`
	// Basis says what decided: "rule", "no-match", "no-group",
	// "robots.txt", "unavailable", "unreachable", "status", "acap-field",
	// "acap-none", "acap-conflict" or "acap-reference"; with -usage,
	// "usage-" and the signal that decided ("usage-robots-rules",
	// "usage-acap", "usage-content-usage", "usage-content-signal",
	// "usage-x-robots-tag", "usage-meta-robots", "usage-tdmrep",
	// "usage-rsl"), or
	// "usage-unknown" when no signal speaks of the use.
	Basis string `json:"basis"`
	// Usage is the verdict on the use with -usage: "allowed",
	// "disallowed" or "unknown" (Allowed is then false only for
	// "disallowed").
	Usage      string   `json:"usage,omitempty"`
	Rule       string   `json:"rule,omitempty"`
	Line       int      `json:"line,omitempty"`
	Group      string   `json:"group,omitempty"`
	GroupLine  int      `json:"group_line,omitempty"`
	Robots     string   `json:"robots,omitempty"`
	Detail     string   `json:"detail,omitempty"`
	Qualifiers []string `json:"qualifiers,omitempty"`
	// Unread is true when the verdict rests on a robots.txt, or an ACAP
	// permissions reference, that could not be read (basis
	// "unreachable" or "acap-reference", or a -usage verdict the file's
	// lines could have changed), not on the site's word: the URL may be
	// allowed once the file can be read.
	Unread bool `json:"unread,omitempty"`
}

func fromDecision(u string, d policy.Decision) verdict {
	v := verdict{URL: u, Allowed: d.Allowed, Group: d.GroupAgent, GroupLine: d.GroupLine}
	switch d.Basis {
	case policy.BasisRule:
		v.Basis, v.Rule, v.Line = "rule", d.Rule.String(), d.Rule.Line
	case policy.BasisNoMatch:
		v.Basis = "no-match"
	case policy.BasisNoGroup:
		v.Basis = "no-group"
	case policy.BasisRobotsTxt:
		v.Basis = "robots.txt"
	}
	return v
}

func fromACAP(u string, d acap.Decision) verdict {
	v := verdict{URL: u, Allowed: d.Permitted}
	switch d.Basis {
	case acap.BasisField:
		v.Basis, v.Rule, v.Line, v.Group = "acap-field", d.Field.Text, d.Field.Line, d.Field.Crawler
		if d.Field.Source != "" {
			v.Detail = "in " + d.Field.Source
		}
	case acap.BasisConflict:
		v.Basis = "acap-conflict"
		var fs []string
		for _, f := range d.Conflict {
			fs = append(fs, f.String())
		}
		v.Detail = "conflict: " + strings.Join(fs, ", ")
		if len(d.Conflict) > 0 {
			v.Rule, v.Line, v.Group = d.Conflict[0].Text, d.Conflict[0].Line, d.Conflict[0].Crawler
		}
	default:
		v.Basis = "acap-none"
	}
	for _, q := range d.Qualifiers {
		v.Qualifiers = append(v.Qualifiers, q.String())
	}
	return v
}

// fromRefusal describes a refusal of the Transport.
func fromRefusal(u string, d *robotsguard.DisallowedError) verdict {
	v := verdict{URL: u, Robots: d.RobotsURL}
	switch d.Reason {
	case robotsguard.ReasonRule:
		v = fromDecision(u, d.Decision)
		v.Robots = d.RobotsURL
	case robotsguard.ReasonACAP:
		var r *acap.Refusal
		if errors.As(d, &r) {
			v = fromACAP(u, r.Decision)
		}
		v.Robots = d.RobotsURL
	case robotsguard.ReasonUnreachable:
		v.Basis, v.Unread = "unreachable", true
	case robotsguard.ReasonStatus:
		v.Basis = "status"
		v.Detail = "status " + strconv.Itoa(d.Status) + " disallows everything"
	case robotsguard.ReasonACAPReference:
		var re *acap.ReferenceError
		if errors.As(d, &re) {
			v = fromReference(u, re)
		}
		v.Basis, v.Unread, v.Robots = "acap-reference", true, d.RobotsURL
	}
	if d.Err != nil && v.Detail == "" {
		v.Detail = d.Err.Error()
	}
	v.Allowed = false
	return v
}

// fromReference describes an ACAP permissions reference that could not
// be read: the crawlers of its record do not know their permissions.
func fromReference(u string, re *acap.ReferenceError) verdict {
	v := verdict{URL: u, Basis: "acap-reference", Unread: true, Robots: re.RobotsURL,
		Rule: "ACAP-permissions-reference: " + re.Reference.Locator, Line: re.Reference.Line}
	if re.Err != nil {
		v.Detail = re.Err.Error()
	}
	return v
}

// why describes the basis of a verdict in words, for the human output.
func (v verdict) why() string {
	switch v.Basis {
	case "rule", "acap-field":
		return v.Rule
	case "no-match":
		return "no rule matches"
	case "no-group":
		return "no group for the agent"
	case "robots.txt":
		return "/robots.txt is always allowed"
	case "unavailable":
		return "no robots.txt: " + v.Detail
	case "unreachable":
		return "robots.txt unreachable: " + strings.TrimPrefix(v.Detail, "robotsguard: ")
	case "status":
		return v.Detail
	case "acap-none":
		return "no ACAP field applies"
	case "acap-conflict":
		return v.Detail
	case "acap-reference":
		return "unreadable " + v.Rule + ": " + strings.TrimPrefix(v.Detail, "robotsguard: ")
	}
	if strings.HasPrefix(v.Basis, "usage-") {
		switch {
		case v.Detail != "":
			return v.Detail
		case v.Robots != "" && v.Line == 0:
			return v.Robots + " " + v.Rule
		}
		return v.Rule
	}
	return v.Basis
}

func (v verdict) lineCell() string {
	if v.Line == 0 {
		return "-"
	}
	return strconv.Itoa(v.Line)
}

func (v verdict) groupCell() string {
	switch {
	case v.Group == "":
		return "-"
	case v.GroupLine == 0:
		return strconv.Quote(v.Group)
	}
	return fmt.Sprintf("%q (line %d)", v.Group, v.GroupLine)
}

func (v verdict) word() string {
	if v.Usage != "" {
		return v.Usage
	}
	if v.Allowed {
		return "allowed"
	}
	return "disallowed"
}

// checkOutput is check's -json output.
type checkOutput struct {
	Agent      string          `json:"agent"`
	Dialect    string          `json:"dialect"`
	ACAP       string          `json:"acap,omitempty"`
	Usage      string          `json:"usage,omitempty"`
	Robots     []robotsSummary `json:"robots"`
	Results    []verdict       `json:"results"`
	Disallowed int             `json:"disallowed"`       // results not allowed, Unread or not
	Unread     int             `json:"unread,omitempty"` // results whose verdict is Unread
}

// robotsSummary names a robots.txt that check read.
type robotsSummary struct {
	Source string `json:"source"`           // the file, "-", or the robots.txt URL
	Status int    `json:"status,omitempty"` // live origins: the status served
	Access string `json:"access,omitempty"` // live origins: "use rules", "allow all", …
	Error  string `json:"error,omitempty"`
}

func cmdCheck(e *env, args []string) (int, error) {
	fs := newFlags(e, "check")
	robotsFile := fs.String("robots", "", "read the robots.txt from `FILE` (- for stdin) instead of each URL's origin")
	agent := fs.String("agent", "*", "decide for the crawler `NAME`, a product token or a whole User-Agent, sent as such (* follows the \"*\" group, and sends robotsguard-cli/VERSION)")
	dialectFlag := fs.String("dialect", "rfc9309", "read the robots.txt as `DIALECT`: rfc9309, google or koster1996")
	usage := fs.String("acap", "", "decide by the file's ACAP 1.1 records for `USAGE` (crawl, index, present-snippet, …)")
	category := fs.String("usage", "", "decide a use of each URL by every signal of its site: `CATEGORY` is "+categoryNames())
	tdmFile := fs.String("tdmrep", "", "with -robots and -usage, read the site's tdmrep.json from `FILE`")
	rslFile := fs.String("rsl", "", "with -robots and -usage, read the site's RSL licence from `FILE`")
	jsonOut := fs.Bool("json", false, "write JSON")
	urlsFile := fs.String("urls", "", "read URLs from `FILE` (- for stdin), one a line, or the first URL of each line of a log")
	signFlags := addSigningFlags(fs)
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if *agent == "" {
		return 0, usagef("-agent is empty: name a crawler, or * for none")
	}
	dialect, err := parseDialect(*dialectFlag)
	if err != nil {
		return 0, err
	}
	if *robotsFile == "-" && *urlsFile == "-" {
		return 0, usagef("-robots and -urls cannot both read stdin")
	}
	urls, err := e.urlsFrom(*urlsFile, fs.Args())
	if err != nil {
		return 0, err
	}
	if len(urls) == 0 {
		return 0, usagef("no URL to check")
	}
	if u := strings.ToLower(*usage); u != "" && !acap.Usage(u).Valid() {
		return 0, usagef("-acap %q is not an ACAP 1.1 usage type (crawl, follow, index, preserve, present, present-snippet, …, other)", *usage)
	}
	cat := usagecat.Category(strings.ToLower(*category))
	switch {
	case cat != "" && !cat.Valid():
		return 0, usagef("-usage %q is not a usage category (%s)", *category, categoryNames())
	case cat != "" && *usage != "":
		return 0, usagef("-usage and -acap cannot be used together (-usage weighs the ACAP records too)")
	case *tdmFile != "" && (cat == "" || *robotsFile == ""):
		return 0, usagef("-tdmrep needs -robots and -usage")
	case *rslFile != "" && (cat == "" || *robotsFile == ""):
		return 0, usagef("-rsl needs -robots and -usage")
	}
	sg, err := signFlags.signer()
	if err != nil {
		return 0, err
	}
	if sg != nil && *robotsFile != "" {
		return 0, usagef("-key signs the requests to each URL's origin: not with -robots")
	}
	p := policy.Parser{Dialect: dialect}
	out := checkOutput{Agent: *agent, Dialect: dialectName(dialect), ACAP: strings.ToLower(*usage), Usage: string(cat), Results: make([]verdict, 0, len(urls))}
	prog := &progress{e: e, total: len(urls)}

	if *robotsFile != "" {
		src, err := e.loadSource(*robotsFile, *agent, p, false)
		if err != nil {
			return 0, err
		}
		rs := robotsSummary{Source: src.Name}
		if src.snap != nil {
			rs = summarize(src.snap, src.live)
		}
		out.Robots = append(out.Robots, rs)
		var ap *acap.Policy
		if out.ACAP != "" {
			ap = acap.Parser{}.Parse(src.body)
		}
		var site *usagecat.Site
		if cat != "" && src.snap == nil {
			var tdm []byte
			if *tdmFile != "" {
				if tdm, err = os.ReadFile(*tdmFile); err != nil {
					return 0, &failure{err}
				}
			}
			if site, err = fileSite(src.Name, src.body, src.robots, tdm, *tdmFile); err != nil {
				return 0, &failure{err}
			}
			if *rslFile != "" {
				doc, err := os.ReadFile(*rslFile)
				if err != nil {
					return 0, &failure{err}
				}
				f, err := usagecat.ParseRSL(doc, *rslFile)
				if err != nil {
					return 0, &failure{err}
				}
				site.RSL = append(site.RSL, f)
			}
		}
		g := src.robots.Group(*agent)
		for i, u := range urls {
			var v verdict
			if cat != "" && src.snap != nil {
				pu, err := url.Parse(u)
				if err != nil {
					return 0, usagef("%q: %v", u, err)
				}
				if v, err = liveUsage(src.live, e, u, pu, src.snap, cat); err != nil {
					return 0, &failure{err}
				}
			} else if site != nil {
				v = fromUsage(u, usagecat.Decide(usagecat.Query{Agent: *agent, URL: u, Category: cat}, site, nil))
			} else if src.snap != nil && (ap == nil || src.snap.Access != robotsguard.AccessRules) {
				pu, err := url.Parse(u)
				if err != nil {
					return 0, usagef("%q: %v", u, err)
				}
				v = snapVerdict(u, pu, src.snap, *agent)
			} else if ap != nil {
				v = fromACAP(u, ap.Decide(acap.Query{Agent: *agent, URL: u, Usage: acap.Usage(out.ACAP)}))
			} else {
				v = fromDecision(u, g.Decide(u))
			}
			out.Results = append(out.Results, v)
			prog.step(i + 1)
		}
	} else {
		if err := checkLive(e, &out, p, urls, prog, sg); err != nil {
			return 0, err
		}
	}
	prog.done()
	code := exitOK
	for _, v := range out.Results {
		if !v.Allowed {
			out.Disallowed++
		}
		if v.Unread {
			out.Unread++
		}
		code = worseExit(code, v)
	}
	if *jsonOut {
		return code, writeJSON(e.stdout, out)
	}
	var pairs []string
	for _, r := range out.Robots {
		pairs = append(pairs, "robots.txt", r.describe())
	}
	what := fmt.Sprintf("%s, dialect %s", *agent, out.Dialect)
	if out.ACAP != "" {
		what += ", ACAP usage " + out.ACAP
	}
	if out.Usage != "" {
		what += ", usage " + out.Usage
	}
	kv(e.stdout, append(pairs, "agent", what)...)
	fmt.Fprintln(e.stdout)
	var t table
	t.addc(faint, "VERDICT", "LINE", "URL", "RULE", "GROUP")
	for _, v := range out.Results {
		c := green
		if !v.Allowed {
			c = red
		}
		why := v.why()
		if len(v.Qualifiers) > 0 {
			why += " [" + strings.Join(v.Qualifiers, " ") + "]"
		}
		t.addc(c, v.word(), v.lineCell(), v.URL, why, v.groupCell())
	}
	t.write(e, e.stdout)
	fmt.Fprintf(e.stdout, "\n%d of %d disallowed", out.Disallowed, len(out.Results))
	if out.Unread > 0 {
		verb := "rest"
		if out.Unread == 1 {
			verb = "rests"
		}
		fmt.Fprintf(e.stdout, "; %s %s on a file that could not be read", count(out.Unread, "verdict"), verb)
	}
	fmt.Fprintln(e.stdout)
	return code, nil
}

// worseExit returns check's exit status once v is counted, code being
// that of the verdicts before it: exitVerdict when the site disallows
// v (a rule, a status that disallows everything, ACAP fields), else
// exitFailure when v rests on a file that could not be read, else code.
// exitVerdict wins over exitFailure: a URL the site itself disallows
// stays disallowed whatever the unread file says, a fact no retry
// changes, which a script that retries or skips on 3 must not miss; 3
// then says that no URL is known to be disallowed, but that some
// verdicts are not known.
func worseExit(code int, v verdict) int {
	switch {
	case !v.Allowed && !v.Unread:
		return exitVerdict
	case v.Unread && code == exitOK:
		return exitFailure
	}
	return code
}

// checkLive decides urls as a robotsguard.Transport does, fetching the
// robots.txt of each origin.
func checkLive(e *env, out *checkOutput, p policy.Parser, urls []string, prog *progress, sg *botauth.Signer) error {
	parsed := make([]*url.URL, len(urls))
	var origins []string
	seen := map[string]bool{}
	for i, s := range urls {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("%q is not an http or https URL (use -robots FILE to check paths)", s)
		}
		parsed[i] = u
		o := u.Scheme + "://" + u.Host
		if !seen[o] {
			seen[o] = true
			origins = append(origins, o)
		}
	}
	l := newLive(out.Agent, p, out.ACAP != "" || out.Usage != "")
	l.sign(sg)
	if err := l.t.Prefetch(e.ctx, origins...); err != nil {
		return &failure{err}
	}
	snaps := map[string]*robotsguard.Snapshot{}
	for _, o := range origins {
		u, _ := url.Parse(o)
		snap, err := l.t.Snapshot(e.ctx, u)
		if err != nil {
			return &failure{err}
		}
		snaps[o] = snap
		out.Robots = append(out.Robots, summarize(snap, l))
	}
	for i, u := range parsed {
		snap := snaps[u.Scheme+"://"+u.Host]
		var v verdict
		if out.Usage != "" {
			var err error
			if v, err = liveUsage(l, e, urls[i], u, snap, usagecat.Category(out.Usage)); err != nil {
				return &failure{err}
			}
		} else if out.ACAP != "" {
			ap, err := l.t.ACAPPolicy(e.ctx, u)
			var re *acap.ReferenceError
			switch {
			case err == nil:
				v = fromACAP(urls[i], ap.Decide(acap.Query{Agent: out.Agent, URL: urls[i], Usage: acap.Usage(out.ACAP)}))
				v.Robots = snap.URL
			case errors.As(err, &re):
				v = fromReference(urls[i], re)
			case snap.Access == robotsguard.AccessUnreachable || snap.Access == robotsguard.AccessDisallowAll:
				// As the Transport decides: unreachable, or the
				// status's word.
				v = snapVerdict(urls[i], u, snap, out.Agent)
			default:
				v = verdict{URL: urls[i], Basis: "unreachable", Detail: err.Error(), Robots: snap.URL, Unread: true}
			}
		} else {
			req, err := l.request(e.ctx, u)
			if err != nil {
				return usagef("%v", err)
			}
			err = l.t.Check(req)
			var d *robotsguard.DisallowedError
			switch {
			case err == nil:
				v = allowedVerdict(urls[i], u, snap, out.Agent)
			case errors.As(err, &d):
				v = fromRefusal(urls[i], d)
			default:
				return &failure{err}
			}
		}
		out.Results = append(out.Results, v)
		prog.step(i + 1)
	}
	return nil
}

// describe is the robots.txt line of check's human output:
// "https://example.com/robots.txt (status 200: use rules)".
func (r robotsSummary) describe() string {
	s := r.Source
	switch {
	case r.Status != 0:
		s += fmt.Sprintf(" (status %d: %s)", r.Status, r.Access)
	case r.Access != "":
		s += fmt.Sprintf(" (no response: %s)", r.Access)
	}
	if r.Error != "" {
		s += ": " + strings.TrimPrefix(r.Error, "robotsguard: ")
	}
	return s
}

// summarize describes a live robots.txt: its status is the one it was
// served with, or that of the failed fetch.
func summarize(snap *robotsguard.Snapshot, l *live) robotsSummary {
	rs := robotsSummary{Source: snap.URL, Status: snap.Status, Access: snap.Access.String()}
	if snap.Err != nil {
		rs.Error = snap.Err.Error()
	}
	if rs.Status == 0 {
		rs.Status = failedStatus(snap.Err)
	}
	if rs.Status == 0 && l != nil {
		if ev, ok := l.event(snap.URL); ok {
			rs.Status = ev.Status
		}
	}
	return rs
}

// failedStatus returns the status of a failed fetch that err holds, or 0.
func failedStatus(err error) int {
	var fe *robotsguard.FetchError
	if errors.As(err, &fe) {
		return fe.Status
	}
	return 0
}

// snapVerdict decides u as the Transport does with snap: by its rules,
// or by its status when it allows or disallows everything, or refused
// when it is unreachable.
func snapVerdict(raw string, u *url.URL, snap *robotsguard.Snapshot, agent string) verdict {
	switch snap.Access {
	case robotsguard.AccessDisallowAll:
		return verdict{URL: raw, Basis: "status", Robots: snap.URL,
			Detail: "status " + strconv.Itoa(snap.Status) + " disallows everything"}
	case robotsguard.AccessUnreachable:
		v := verdict{URL: raw, Basis: "unreachable", Robots: snap.URL, Detail: "unreachable", Unread: true}
		if snap.Err != nil {
			v.Detail = snap.Err.Error()
		}
		return v
	case robotsguard.AccessRules:
		v := fromDecision(raw, snap.Rules.Group(agent).DecideURL(u))
		v.Robots = snap.URL
		return v
	}
	return allowedVerdict(raw, u, snap, agent)
}

// allowedVerdict explains why the Transport allowed u.
func allowedVerdict(raw string, u *url.URL, snap *robotsguard.Snapshot, agent string) verdict {
	var v verdict
	switch snap.Access {
	case robotsguard.AccessRules:
		v = fromDecision(raw, snap.Rules.Group(agent).DecideURL(u))
	case robotsguard.AccessAllowAll:
		v = verdict{URL: raw, Basis: "unavailable"}
		if snap.Status != 0 {
			v.Detail = "status " + strconv.Itoa(snap.Status) + " allows everything"
		} else {
			v.Detail = "everything allowed"
		}
	default:
		v = verdict{URL: raw, Basis: snap.Access.String()}
	}
	v.Allowed, v.Robots = true, snap.URL
	return v
}
