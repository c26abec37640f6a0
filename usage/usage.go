package usage

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/acap"
)

// A Category is a use a crawler may make of a page. The names are those of
// the command line's -usage flag.
type Category string

// The categories every signal is mapped onto (see the package documentation
// for the mapping of each signal).
const (
	Crawl   Category = "crawl"    // fetch the page
	Search  Category = "search"   // index it and show it in search results
	Snippet Category = "snippet"  // show a text snippet or preview of it
	Archive Category = "archive"  // keep a copy and show it (a cached page)
	TrainAI Category = "train-ai" // train or fine-tune AI models with it
	AIInput Category = "ai-input" // give it to an AI model as input (retrieval, grounding)
	TDM     Category = "tdm"      // text and data mining
)

// Categories returns every category, in the order of the constants.
func Categories() []Category {
	return []Category{Crawl, Search, Snippet, Archive, TrainAI, AIInput, TDM}
}

// Valid reports whether c is one of the categories.
func (c Category) Valid() bool {
	switch c {
	case Crawl, Search, Snippet, Archive, TrainAI, AIInput, TDM:
		return true
	}
	return false
}

// A Verdict is what the signals say of one use.
type Verdict uint8

const (
	// Unknown: no signal speaks of the use. What to do then is the
	// crawler's call (RFC 9309 allows crawling; the law of some places
	// allows text and data mining unless it is reserved).
	Unknown Verdict = iota
	Allowed
	Disallowed
)

// String returns "unknown", "allowed" or "disallowed".
func (v Verdict) String() string {
	switch v {
	case Allowed:
		return "allowed"
	case Disallowed:
		return "disallowed"
	}
	return "unknown"
}

// A Signal names the convention a piece of evidence was read under.
type Signal uint8

const (
	RobotsRules   Signal = iota + 1 // Allow and Disallow lines of robots.txt (RFC 9309)
	ACAP                            // ACAP 1.1 records of robots.txt
	ContentUsage                    // IETF AI Preferences: Content-Usage (robots.txt line or HTTP header)
	ContentSignal                   // Content-Signal lines of robots.txt
	XRobotsTag                      // X-Robots-Tag response header
	MetaRobots                      // <meta name="robots"> and <meta name="AGENT"> in HTML
	TDMRep                          // TDM Reservation Protocol: tdmrep.json, headers, meta tags
	RSL                             // Really Simple Licensing 1.0: the licence documents of robots.txt License lines and Link headers
)

var signalNames = [...]string{
	RobotsRules:   "robots.txt rules",
	ACAP:          "ACAP",
	ContentUsage:  "Content-Usage",
	ContentSignal: "Content-Signal",
	XRobotsTag:    "X-Robots-Tag",
	MetaRobots:    "robots meta tag",
	TDMRep:        "TDMRep",
	RSL:           "RSL",
}

// String returns the signal's usual name, such as "X-Robots-Tag".
func (s Signal) String() string {
	if int(s) < len(signalNames) && signalNames[s] != "" {
		return signalNames[s]
	}
	return fmt.Sprintf("Signal(%d)", s)
}

// Status says how settled the signal's definition is: "standard",
// "draft", "vendor convention" or "community report", with its reference.
func (s Signal) Status() string {
	switch s {
	case RobotsRules:
		return "standard (RFC 9309)"
	case ACAP:
		return "industry specification, not maintained (ACAP 1.1, 2009)"
	case ContentUsage:
		return "draft (IETF aipref: draft-ietf-aipref-vocab, draft-ietf-aipref-attach)"
	case ContentSignal:
		return "vendor convention (contentsignals.org, Cloudflare)"
	case XRobotsTag, MetaRobots:
		return "vendor convention (Google Search Central, followed by other engines)"
	case TDMRep:
		return "community report (W3C TDM Reservation Protocol, 2024)"
	case RSL:
		return "industry specification (RSL 1.0, RSL Technical Steering Committee, 2025)"
	}
	return "unknown"
}

// A Place tells where a signal was read.
type Place uint8

const (
	InFile   Place = iota + 1 // a site-wide file: robots.txt or tdmrep.json
	InHeader                  // a response header field
	InMeta                    // a meta tag in the head of an HTML page
)

// A Source locates one piece of evidence, for explanations and audits.
type Source struct {
	Signal Signal
	Place  Place
	// URL is the file's URL (InFile), or "" when the caller gave none.
	URL string
	// Line is the line of the file (robots.txt), or the 1-based index of
	// the rule in tdmrep.json; 0 for headers and meta tags.
	Line int
	// Name is the header field's name ("X-Robots-Tag") or the meta tag's
	// name ("robots", "googlebot", "tdm-reservation"); "" in files.
	Name string
	// Text is the line, value or rule as written (trimmed, and cut at
	// 200 bytes).
	Text string
}

// String describes the source in one line, such as
// `X-Robots-Tag header "googlebot: noindex"` or
// `https://example.com/robots.txt line 4 "Content-Signal: ai-train=no"`.
func (s Source) String() string {
	if s == (Source{}) {
		return "no source"
	}
	var b strings.Builder
	switch s.Place {
	case InFile:
		if s.URL != "" {
			b.WriteString(s.URL)
		} else {
			b.WriteString(s.Signal.String())
		}
		if s.Line > 0 {
			switch s.Signal {
			case TDMRep:
				fmt.Fprintf(&b, " rule %d", s.Line)
			case RSL:
				fmt.Fprintf(&b, " content %d", s.Line)
			default:
				fmt.Fprintf(&b, " line %d", s.Line)
			}
		}
	case InHeader:
		fmt.Fprintf(&b, "%s header", s.Name)
	case InMeta:
		fmt.Fprintf(&b, "<meta name=%q>", s.Name)
	default:
		b.WriteString(s.Signal.String())
	}
	if s.Text != "" {
		fmt.Fprintf(&b, " %q", s.Text)
	}
	return b.String()
}

// Conditions are the terms attached to a use that is not disallowed (and
// to a disallowed one, its Policy). The zero Conditions attach none.
type Conditions struct {
	// MaxSnippet is the longest text snippet allowed, in characters
	// (max-snippet); 0 when none is set. A max-snippet of 0 disallows
	// snippets instead, and -1 sets no limit, so neither appears here.
	MaxSnippet int
	// MaxImagePreview is the largest image preview allowed: "none",
	// "standard" or "large" (max-image-preview); "" when none is set.
	MaxImagePreview string
	// MaxVideoPreview is the longest video preview allowed
	// (max-video-preview), when HasMaxVideoPreview: 0 allows a still image
	// only.
	MaxVideoPreview    time.Duration
	HasMaxVideoPreview bool
	// NotAfter is when the permission ends (unavailable_after): the use
	// is disallowed from then on. Zero when none.
	NotAfter time.Time
	// NoImageIndex: images on the page are not to be indexed
	// (noimageindex). NoTranslate: no translation is to be offered
	// (notranslate). NoFollow: links on the page are not to be followed
	// (nofollow). IndexIfEmbedded: the page may be indexed when embedded,
	// despite noindex (indexifembedded).
	NoImageIndex, NoTranslate, NoFollow, IndexIfEmbedded bool
	// Policy is the URL of a licence or policy that sets the terms of the
	// use (tdm-policy): of a disallowed use too, since it says how a
	// licence can be had.
	Policy string
	// ACAP holds the qualifiers of the ACAP permission that allowed the
	// use; the crawler must honour them all. A time-limit counts from when
	// the crawler got the page: acap.Qualifier.Deadline gives its end.
	ACAP []acap.Qualifier
	// ContentUse is the use level of a Content-Signal line's use key
	// (Cloudflare's managed robots.txt): how AI systems may consume the
	// content, at most: "immediate", "reference" or "full", from the least
	// permissive to the most; "" when none is given.
	ContentUse string
	// License holds the terms of the RSL licence that permits the use
	// (payment, licence server, users, regions), or nil; its document is
	// the Policy.
	License *LicenseTerms
}

// Terms lists the conditions as the directives that set them, with
// key=value for those that have a value: "max-snippet=120",
// "max-image-preview=standard", "max-video-preview=0" (seconds),
// "not-after=2099-12-31T00:00:00Z", "noimageindex", "notranslate",
// "nofollow", "indexifembedded", "use=LEVEL", "policy=URL", then the ACAP
// qualifiers and the RSL licence's terms.
func (c Conditions) Terms() []string {
	var out []string
	add := func(k, v string) { out = append(out, k+"="+v) }
	if c.MaxSnippet > 0 {
		add("max-snippet", strconv.Itoa(c.MaxSnippet))
	}
	if c.MaxImagePreview != "" {
		add("max-image-preview", c.MaxImagePreview)
	}
	if c.HasMaxVideoPreview {
		add("max-video-preview", strconv.FormatInt(int64(c.MaxVideoPreview/time.Second), 10))
	}
	if !c.NotAfter.IsZero() {
		add("not-after", c.NotAfter.UTC().Format(time.RFC3339))
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{c.NoImageIndex, "noimageindex"}, {c.NoTranslate, "notranslate"}, {c.NoFollow, "nofollow"}, {c.IndexIfEmbedded, "indexifembedded"}} {
		if f.on {
			out = append(out, f.name)
		}
	}
	if c.ContentUse != "" {
		add("use", c.ContentUse)
	}
	if c.Policy != "" {
		add("policy", c.Policy)
	}
	for _, q := range c.ACAP {
		out = append(out, q.String())
	}
	return append(out, c.License.Terms()...)
}

// String returns the Terms separated by spaces.
func (c Conditions) String() string { return strings.Join(c.Terms(), " ") }

// IsZero reports whether c attaches no condition.
func (c Conditions) IsZero() bool {
	return c.MaxSnippet == 0 && c.MaxImagePreview == "" && !c.HasMaxVideoPreview &&
		c.NotAfter.IsZero() && !c.NoImageIndex && !c.NoTranslate && !c.NoFollow &&
		!c.IndexIfEmbedded && c.Policy == "" && len(c.ACAP) == 0 && c.License == nil &&
		c.ContentUse == ""
}

// An Evidence is what one signal says of one use: a verdict, the
// conditions it attaches, and where it was read.
type Evidence struct {
	Category   Category
	Verdict    Verdict // Allowed or Disallowed; Unknown when it only attaches conditions
	Conditions Conditions
	Source     Source
}

// String describes the evidence in one line.
func (e Evidence) String() string {
	return fmt.Sprintf("%s %s by %s", e.Category, e.Verdict, e.Source)
}

// A Decision answers "may this agent use this URL for this category?".
type Decision struct {
	Category Category
	Verdict  Verdict
	// Conditions gathers the conditions of every evidence that does not
	// disallow, the most restrictive of each kind.
	Conditions Conditions
	// Decisive is the evidence the verdict rests on (the first that
	// disallowed, or the first that allowed), when Verdict is not Unknown.
	Decisive Evidence
	// Evidence lists every signal that spoke of the category, in the
	// order they were weighed.
	Evidence []Evidence
}

// Allowed reports whether the use is allowed outright. Unknown is not
// allowed: a crawler that proceeds without a verdict says so in its code.
func (d Decision) Allowed() bool { return d.Verdict == Allowed }

// String explains the decision in one line, such as
// `train-ai disallowed by https://example.com/robots.txt line 4 "Content-Signal: ai-train=no"`.
func (d Decision) String() string {
	if d.Verdict == Unknown {
		return fmt.Sprintf("%s unknown: no signal allows or disallows it", d.Category)
	}
	return d.Decisive.String()
}
