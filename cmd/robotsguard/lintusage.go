package main

import (
	"fmt"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/usage"
)

// lint's reading of the usage lines of a robots.txt: Content-Usage (IETF
// AI Preferences) and Content-Signal, which package usage reads, and
// check -usage with it. They are directives, not unknown keys: a site
// owner told to remove one would lose an opt-out crawlers honour.

// usageKeys are the keys of the lines package usage reads in a
// robots.txt, spelt as the conventions spell them.
var usageKeys = []string{"Content-Usage", "Content-Signal"}

// usageSignal returns the signal whose lines have the key k, or 0.
func usageSignal(k string) usage.Signal {
	switch {
	case strings.EqualFold(k, "content-usage"):
		return usage.ContentUsage
	case strings.EqualFold(k, "content-signal"):
		return usage.ContentSignal
	}
	return 0
}

// usageFindings checks the Content-Usage and Content-Signal lines of a
// file, as package usage reads them (rep is the file's RFC 9309 report):
// a line before any User-agent line, which applies to no crawler; a
// Content-Usage value that usage.ParsePreferences rejects, or from which
// it reads no preference for the vocabulary's labels; a Content-Signal
// value not read whole, or that gives no signal. Each is an
// "ignored-value" warning, as a Crawl-delay that does not parse is.
func usageFindings(rep []policy.LineReport) []finding {
	var fs []finding
	add := func(line int, msg, hint string) {
		fs = append(fs, finding{Line: line, Severity: sevWarning, Code: "ignored-value", Message: msg, Hint: hint})
	}
	seenAgent := false
	for _, r := range rep {
		if r.Kind == policy.KindUserAgent {
			seenAgent = true
			continue
		}
		sig := usageSignal(r.Key)
		if r.Kind != policy.KindOther || sig == 0 {
			continue
		}
		if !seenAgent {
			add(r.Line, fmt.Sprintf("%s before any User-agent line: it applies to no crawler", r.Key),
				`put it below a User-agent line: "User-agent: *" for every crawler`)
			continue
		}
		prefs := usagePrefs(r.Value)
		switch sig {
		case usage.ContentUsage:
			const hint = `write a Dictionary of labels and the tokens y or n, such as "train-ai=n, search=y" (lower-case labels, no quotes); a path, if any, comes first and starts with "/"`
			p, err := usage.ParsePreferences(prefs)
			switch {
			case err != nil:
				add(r.Line, fmt.Sprintf("%s %q does not parse (%s): crawlers read no preference from the line", r.Key, clip(r.Value), unprefixed(err)), hint)
			case p.IsZero():
				add(r.Line, fmt.Sprintf("%s %q states no preference: a label's value must be the token y or n", r.Key, clip(r.Value)), hint)
			case p.Category(usage.TrainAI) == usage.Unknown && p.Category(usage.AIInput) == usage.Unknown && p.Category(usage.Search) == usage.Unknown:
				add(r.Line, fmt.Sprintf("%s %q states no preference for the vocabulary's labels (train-ai, ai-use, search): crawlers ignore the others", r.Key, clip(r.Value)),
					"use the labels train-ai, ai-use and search (all, bots and train-genai, of earlier drafts, are no longer read)")
			}
		case usage.ContentSignal:
			const hint = `write comma-separated key=value pairs of search, ai-input and ai-train with yes or no, such as "search=yes, ai-train=no"`
			// Package usage exports no parser of a Content-Signal value:
			// a file of that one line is read as the line is.
			s := usage.ParseRobots([]byte("User-agent: *\nContent-Signal: "+prefs+"\n"), "")
			if probs, _ := s.Problems(); len(probs) > 0 {
				why := strings.TrimPrefix(unprefixed(probs[0].Err), "Content-Signal: ")
				add(r.Line, fmt.Sprintf("%s %q is not read whole (%s): crawlers ignore that part", r.Key, clip(r.Value), why), hint)
				continue
			}
			says := false
			for _, c := range []usage.Category{usage.Search, usage.AIInput, usage.TrainAI} {
				if len(s.Evidence("*", "/", c)) > 0 {
					says = true
				}
			}
			if !says {
				add(r.Line, fmt.Sprintf("%s %q gives no signal for search, ai-input or ai-train: crawlers read nothing from it", r.Key, clip(r.Value)), hint)
			}
		}
	}
	return fs
}

// usagePrefs returns the value of a usage line without its path: as
// usage.ParseRobots reads it, a value that starts with "/" starts with
// a path, up to the first space or tab.
func usagePrefs(v string) string {
	if !strings.HasPrefix(v, "/") {
		return v
	}
	i := strings.IndexAny(v, " \t")
	if i < 0 {
		return ""
	}
	return strings.TrimLeft(v[i:], " \t")
}

// clip cuts a value quoted in a message to 80 bytes.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return strings.ToValidUTF8(s[:80], "") + "…"
}
