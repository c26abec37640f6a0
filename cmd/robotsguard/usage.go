package main

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/usage"
)

// check -usage: what the site's signals say of a use of each URL.

// fromUsage describes a usage decision as a verdict: a URL is counted as
// disallowed only when the use is; an unknown use is reported as such.
func fromUsage(u string, d usage.Decision) verdict {
	v := verdict{URL: u, Allowed: d.Verdict != usage.Disallowed, Usage: d.Verdict.String()}
	if d.Verdict == usage.Unknown {
		v.Basis, v.Detail = "usage-unknown", "no signal speaks of "+string(d.Category)
	} else {
		s := d.Decisive.Source
		v.Basis = "usage-" + signalSlug(s.Signal)
		v.Rule, v.Line, v.Robots = s.Text, s.Line, s.URL
		if s.Place != usage.InFile {
			v.Detail = s.String()
		}
	}
	if d.Verdict != usage.Disallowed {
		v.Qualifiers = d.Conditions.Terms()
	}
	return v
}

// signalSlug names a signal in a verdict's basis.
func signalSlug(s usage.Signal) string {
	switch s {
	case usage.RobotsRules:
		return "robots-rules"
	case usage.ACAP:
		return "acap"
	case usage.ContentUsage:
		return "content-usage"
	case usage.ContentSignal:
		return "content-signal"
	case usage.XRobotsTag:
		return "x-robots-tag"
	case usage.MetaRobots:
		return "meta-robots"
	case usage.TDMRep:
		return "tdmrep"
	case usage.RSL:
		return "rsl"
	}
	return "signal"
}

// fileSite returns the site-level signals of a robots.txt read from a
// file: its rules, ACAP records, Content-Usage and Content-Signal lines,
// and those of a tdmrep.json file when one is given.
func fileSite(name string, body []byte, rules *policy.Robots, tdm []byte, tdmName string) (*usage.Site, error) {
	s := &usage.Site{RobotsURL: name, Rules: rules, Robots: usage.ParseRobots(body, name)}
	if ap := (acap.Parser{}).Parse(body); ap.HasRecords() {
		s.ACAP, s.Rules = ap, nil // ACAP pools the conventional records
	}
	if tdm != nil {
		f, err := usage.ParseTDMRep(tdm, tdmName)
		if err != nil {
			return nil, err
		}
		s.TDMRep, s.TDMRepURL = f, tdmName
	}
	return s, nil
}

// liveUsage decides u's use for c as a robotsguard.Transport does; snap
// is the robots.txt of u's origin.
func liveUsage(l *live, e *env, raw string, u *url.URL, snap *robotsguard.Snapshot, c usage.Category) (verdict, error) {
	req, err := l.request(e.ctx, u)
	if err != nil {
		return verdict{}, usagef("%v", err)
	}
	d, err := l.t.Usage(req, c, nil)
	if err != nil {
		return verdict{}, err
	}
	v := fromUsage(raw, d)
	// The signals that could not be read: all those of an unreachable
	// robots.txt (its rules, ACAP records and usage lines), or the ACAP
	// records of a permissions reference that could not be read, which
	// Usage leaves out.
	var unread []usage.Signal
	var re *acap.ReferenceError
	switch {
	case snap.Access == robotsguard.AccessUnreachable:
		unread = []usage.Signal{usage.RobotsRules, usage.ACAP, usage.ContentUsage, usage.ContentSignal}
	case l.t.ACAP != nil && snap.Access == robotsguard.AccessRules:
		if _, err := l.t.ACAPPolicy(e.ctx, u); errors.As(err, &re) {
			unread = []usage.Signal{usage.ACAP}
		}
	}
	v.Unread = restsOn(d, unread)
	if v.Unread && d.Verdict != usage.Disallowed && re != nil {
		v.Detail = "ACAP-permissions-reference " + re.Reference.Locator + " (line " + strconv.Itoa(re.Reference.Line) + ") unreadable: " + unprefixed(re.Err)
	}
	return v, nil
}

// restsOn reports whether decision d could change once the signals
// unread are read: unless a signal read disallows the use, which no
// other signal can undo (the most restrictive verdict wins).
func restsOn(d usage.Decision, unread []usage.Signal) bool {
	if len(unread) == 0 {
		return false
	}
	for _, ev := range d.Evidence {
		if ev.Verdict == usage.Disallowed && !slices.Contains(unread, ev.Source.Signal) {
			return false
		}
	}
	return true
}

// categoryNames lists the usage categories, for messages.
func categoryNames() string {
	var names []string
	for _, c := range usage.Categories() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}
