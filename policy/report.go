package policy

import "github.com/robotsguard/robotsguard/internal/ascii"

// A LineReport tells how one line of a robots.txt was read, for linters and
// editors that annotate a file.
type LineReport struct {
	LineInfo
	// Key is the line's key when HasDirective is true: "user-agent",
	// "allow", "disallow" or "sitemap" for those records (whatever their
	// spelling), and the key as written for any other.
	Key   string
	Value string // the value as the Handler received it (patterns normalised)
	// Known is true when Kind is KindOther and the key is a non-standard
	// record that crawlers commonly read (crawl-delay, request-rate, host,
	// clean-param, noarchive, noindex, nofollow): not an error, just not
	// part of RFC 9309.
	Known bool
}

// knownOther lists the keys that a LineReport marks Known: those Google's
// reporting library calls "unused" tags, and the ones Robots interprets.
var knownOther = []string{"clean-param", "crawl-delay", "host", "noarchive", "noindex", "nofollow", "request-rate"}

// A Reporter is a LineHandler that records a LineReport for every line.
// Pass it to Parser.Scan, or call Parser.Report.
type Reporter struct {
	Lines []LineReport // one per line, in file order

	cur LineReport // the directive of the line being read
}

// Report returns a LineReport for every line of body, as the parser reads
// it: a line-oriented view of the same parse that Parse performs.
func (p Parser) Report(body []byte) []LineReport {
	var rep Reporter
	p.Scan(body, &rep)
	return rep.Lines
}

func (rep *Reporter) directive(key string, value []byte) {
	rep.cur.Key, rep.cur.Value = key, string(value)
}

func (rep *Reporter) UserAgent(_ int, v []byte) { rep.directive("user-agent", v) }
func (rep *Reporter) Allow(_ int, v []byte)     { rep.directive("allow", v) }
func (rep *Reporter) Disallow(_ int, v []byte)  { rep.directive("disallow", v) }
func (rep *Reporter) Sitemap(_ int, v []byte)   { rep.directive("sitemap", v) }

func (rep *Reporter) Other(_ int, key, value []byte) {
	rep.directive(string(key), value)
	for _, k := range knownOther {
		if ascii.EqualFold(key, k) {
			rep.cur.Known = true
		}
	}
}

// Line completes the report of a line. Scan calls it after the directive
// callback, if any.
func (rep *Reporter) Line(info LineInfo) {
	info.Text = nil // only valid during the call
	rep.cur.LineInfo = info
	if !info.HasDirective {
		rep.cur.Key, rep.cur.Value = "", ""
	}
	rep.Lines = append(rep.Lines, rep.cur)
	rep.cur = LineReport{}
}
