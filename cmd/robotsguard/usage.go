package main

import (
	"net/url"
	"strings"

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

// liveUsage decides u's use for c as a robotsguard.Transport does.
func liveUsage(l *live, e *env, raw string, u *url.URL, c usage.Category) (verdict, error) {
	req, err := l.request(e.ctx, u)
	if err != nil {
		return verdict{}, usagef("%v", err)
	}
	d, err := l.t.Usage(req, c, nil)
	if err != nil {
		return verdict{}, err
	}
	return fromUsage(raw, d), nil
}

// categoryNames lists the usage categories, for messages.
func categoryNames() string {
	var names []string
	for _, c := range usage.Categories() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}
