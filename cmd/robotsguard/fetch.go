package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
)

// fetchOutput is fetch's -json output.
type fetchOutput struct {
	Origin    string     `json:"origin"`
	URL       string     `json:"url"`                 // the robots.txt
	Redirects []redirect `json:"redirects,omitempty"` // followed, in order
	Status    int        `json:"status"`              // of the final response, 0 when none
	Access    string     `json:"access"`              // "use rules", "allow all", "disallow all", "unreachable"
	Meaning   string     `json:"meaning"`
	Outcome   string     `json:"outcome,omitempty"` // "fetched", "failed", …
	Error     string     `json:"error,omitempty"`
	Bytes     int        `json:"bytes"`
	Truncated bool       `json:"truncated,omitempty"` // past 500 KiB, the rest was not read
	// Lifetime is how long the Transport uses the file (seconds, rounded
	// up: see wholeSeconds), and
	// LifetimeSource what set it, as the Transport's Observer names it.
	Lifetime       float64   `json:"lifetime_seconds"`
	LifetimeSource string    `json:"lifetime_source,omitempty"`
	FreshUntil     time.Time `json:"fresh_until"` // when the Transport fetches the file again
	ETag           string    `json:"etag,omitempty"`
	LastModified   string    `json:"last_modified,omitempty"`
	// Delay is the pause kept between requests of -agent (seconds), and
	// DelayAsked the one the file asks of it (its Crawl-delay or the
	// interval of its Request-rate), when it asks for one.
	Agent      string      `json:"agent"`
	Delay      float64     `json:"delay_seconds"`
	DelayAsked float64     `json:"delay_asked_seconds,omitempty"`
	Agents     []agentInfo `json:"agents"`
	Sitemaps   []string    `json:"sitemaps"`
	ACAP       *acapInfo   `json:"acap,omitempty"`
	// SignatureInput and SignatureAgent are the fields that signed the
	// robots.txt request, with -key.
	SignatureInput string `json:"signature_input,omitempty"`
	SignatureAgent string `json:"signature_agent,omitempty"`
}

type redirect struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Location string `json:"location"`
}

// agentInfo is a user-agent line of the file with its extensions.
type agentInfo struct {
	Agent       string  `json:"agent"` // lower-case product token, "*"
	Line        int     `json:"line"`
	Rules       int     `json:"rules"`                  // of its group as written
	CrawlDelay  float64 `json:"crawl_delay,omitempty"`  // seconds
	RequestRate string  `json:"request_rate,omitempty"` // "1/10s"
}

type acapInfo struct {
	Version    string   `json:"version,omitempty"`
	References []string `json:"references,omitempty"`
	Actions    []string `json:"actions,omitempty"` // addressed to -agent
	Problems   []string `json:"problems,omitempty"`
}

func cmdFetch(e *env, args []string) (int, error) {
	fs := newFlags(e, "fetch")
	agent := fs.String("agent", "*", "fetch as the crawler `NAME`, a product token or a whole User-Agent, and show its group's pause (* follows the \"*\" group, and sends robotsguard-cli/VERSION)")
	jsonOut := fs.Bool("json", false, "write JSON")
	signFlags := addSigningFlags(fs)
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := flagAfterArgs(fs.Args()); err != nil {
		return 0, err
	}
	if *agent == "" {
		return 0, usagef("-agent is empty: name a crawler, or * for none")
	}
	if fs.NArg() != 1 || !isURL(fs.Arg(0)) {
		return 0, usagef("fetch takes one http or https URL")
	}
	sg, err := signFlags.signer()
	if err != nil {
		return 0, err
	}
	l := newLive(*agent, policy.Parser{}, true)
	l.sign(sg)
	snap, err := l.snapshot(e.ctx, fs.Arg(0))
	if err != nil {
		return 0, err
	}
	out := fetchOutput{Origin: snap.Origin, URL: snap.URL, Status: snap.Status, Access: snap.Access.String(),
		Meaning: meaning(snap), FreshUntil: snap.FreshUntil.UTC().Truncate(time.Second), Agent: *agent,
		Delay: snap.Delay.Seconds(), DelayAsked: snap.DelayAsked.Seconds(), Agents: []agentInfo{}, Sitemaps: []string{}}
	if snap.Err != nil {
		out.Error = snap.Err.Error()
	}
	if ev, ok := l.event(snap.URL); ok {
		out.Outcome, out.Lifetime, out.LifetimeSource = ev.Outcome.String(), wholeSeconds(ev.Lifetime).Seconds(), ev.LifetimeSource
		out.Bytes = ev.Bytes
		if ev.Status != 0 {
			out.Status = ev.Status // the last response, even one the Transport could not use
		}
	}
	chain := l.rec.chain(snap.URL)
	for i, h := range chain {
		if i < len(chain)-1 { // the last response is the final status, even a 3xx not followed
			out.Redirects = append(out.Redirects, redirect{URL: h.URL, Status: h.Status, Location: h.Location})
		}
	}
	if len(chain) > 0 {
		out.SignatureInput, out.SignatureAgent = chain[0].SignatureInput, chain[0].SignatureAgent
	}
	if n := len(chain); n > 0 {
		last := chain[n-1]
		if last.Status/100 == 3 {
			out.Status = last.Status
		}
		out.ETag, out.LastModified = last.Header.Get("ETag"), last.Header.Get("Last-Modified")
	}
	if r := snap.Rules; r != nil {
		out.Truncated = r.Truncated()
		for _, rec := range r.Records() {
			for _, a := range rec.Agents {
				ai := agentInfo{Agent: a.Token, Line: a.Line, Rules: len(rec.Rules), CrawlDelay: a.CrawlDelay.Seconds()}
				if a.RequestRate.Requests > 0 {
					ai.RequestRate = strconv.Itoa(a.RequestRate.Requests) + "/" + duration(a.RequestRate.Per)
				}
				out.Agents = append(out.Agents, ai)
			}
		}
		out.Sitemaps = append(out.Sitemaps, r.Sitemaps()...)
	}
	if ap := snap.ACAP; ap != nil && ap.HasRecords() {
		ai := &acapInfo{Version: ap.Version()}
		for _, ref := range ap.References() {
			ai.References = append(ai.References, fmt.Sprintf("%s (line %d)", ref.Locator, ref.Line))
		}
		for _, a := range ap.Actions(*agent) {
			ai.Actions = append(ai.Actions, a.String())
		}
		for _, p := range ap.Problems() {
			ai.Problems = append(ai.Problems, p.String())
		}
		out.ACAP = ai
	}
	code := exitOK
	if snap.Access == robotsguard.AccessUnreachable {
		code = exitFailure
	}
	if *jsonOut {
		return code, writeJSON(e.stdout, out)
	}
	status := "none"
	if out.Status != 0 {
		status = fmt.Sprintf("%d %s", out.Status, http.StatusText(out.Status))
	}
	statusColor := green
	switch snap.Access {
	case robotsguard.AccessUnreachable, robotsguard.AccessDisallowAll:
		statusColor = red
	case robotsguard.AccessAllowAll:
		statusColor = yellow
	}
	pairs := []string{"origin", out.Origin, "robots.txt", out.URL}
	for _, r := range out.Redirects {
		pairs = append(pairs, "redirect", fmt.Sprintf("%s  %d → %s", r.URL, r.Status, r.Location))
	}
	if sg != nil {
		signed := e.paint(red, "no: the request was not sent")
		if out.SignatureInput != "" {
			signed = "Signature-Agent: " + out.SignatureAgent
		}
		pairs = append(pairs, "signed", signed, "signature-input", out.SignatureInput)
	}
	pairs = append(pairs, "status", status, "meaning", e.paint(statusColor, out.Meaning))
	if out.Error != "" {
		pairs = append(pairs, "error", unprefixed(snap.Err))
	}
	if out.Outcome != "" {
		size := fmt.Sprintf("%s, %d bytes", out.Outcome, out.Bytes)
		if out.Truncated {
			size += " (cut at 500 KiB)"
		}
		pairs = append(pairs, "fetch", size)
	}
	life := "-"
	if out.Lifetime > 0 {
		d := lifetime(time.Duration(out.Lifetime * float64(time.Second)))
		life = fmt.Sprintf("%s (%s)", duration(d), lifetimeWords(out.LifetimeSource, d))
	}
	pairs = append(pairs, "cache lifetime", life, "next fetch", out.FreshUntil.Format(time.RFC3339))
	var vals []string
	if out.ETag != "" {
		vals = append(vals, "ETag "+out.ETag)
	}
	if out.LastModified != "" {
		vals = append(vals, "Last-Modified "+out.LastModified)
	}
	if len(vals) == 0 {
		vals = append(vals, "none")
	}
	pairs = append(pairs, "validators", strings.Join(vals, ", "))
	pairs = append(pairs, "pace", pace(snap, *agent))
	kv(e.stdout, pairs...)
	if len(out.Agents) > 0 {
		fmt.Fprintln(e.stdout)
		var t table
		t.addc(faint, "AGENT", "LINE", "RULES", "CRAWL-DELAY", "REQUEST-RATE")
		for _, a := range out.Agents {
			cd, rr := "-", "-"
			if a.CrawlDelay > 0 {
				cd = duration(time.Duration(a.CrawlDelay * float64(time.Second)))
			}
			if a.RequestRate != "" {
				rr = a.RequestRate
			}
			t.add(a.Agent, strconv.Itoa(a.Line), strconv.Itoa(a.Rules), cd, rr)
		}
		t.write(e, e.stdout)
	}
	if len(out.Sitemaps) > 0 {
		fmt.Fprintln(e.stdout)
		for _, s := range out.Sitemaps {
			kv(e.stdout, "sitemap", s)
		}
	}
	if a := out.ACAP; a != nil {
		fmt.Fprintln(e.stdout)
		v := a.Version
		if v == "" {
			v = "none given"
		}
		ps := []string{"ACAP", "records present, version " + v}
		for _, r := range a.References {
			ps = append(ps, "ACAP reference", r)
		}
		for _, r := range a.Actions {
			ps = append(ps, "ACAP request", r)
		}
		for _, r := range a.Problems {
			ps = append(ps, "ACAP problem", r)
		}
		kv(e.stdout, ps...)
	}
	return code, nil
}

// meaning says what the Transport does with the origin's requests.
func meaning(s *robotsguard.Snapshot) string {
	switch s.Access {
	case robotsguard.AccessRules:
		if s.Err != nil {
			return "unreachable now; a cached copy's rules apply"
		}
		return "the rules apply"
	case robotsguard.AccessAllowAll:
		return "no usable robots.txt: everything is allowed"
	case robotsguard.AccessDisallowAll:
		return "everything is disallowed"
	case robotsguard.AccessUnreachable:
		return "unreachable: every request is refused until it can be fetched"
	}
	return s.Access.String()
}

// pace says what pause the Transport keeps between requests of agent,
// and why.
func pace(s *robotsguard.Snapshot, agent string) string {
	switch s.Access {
	case robotsguard.AccessDisallowAll, robotsguard.AccessUnreachable:
		return "none: no request is sent"
	}
	p := duration(s.Delay) + " between requests of " + agent
	switch {
	case s.DelayAsked == 0:
		p += " (the default: the file asks for no pause)"
	case s.DelayAsked > s.Delay:
		p += " (the file asks " + duration(s.DelayAsked) + ", capped at " + duration(s.Delay) + ")"
	}
	return p
}
