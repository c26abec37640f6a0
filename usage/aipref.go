package usage

// RobotsSignals are the usage signals of a robots.txt: its Content-Usage
// and Content-Signal lines, by group.
type RobotsSignals struct{}

// ParseRobots reads the usage signals of a robots.txt body; url is the
// file's URL, for Source.URL.
func ParseRobots(body []byte, url string) *RobotsSignals { return &RobotsSignals{} }

// Evidence returns what the file's lines say of target's use for c by
// agent.
func (r *RobotsSignals) Evidence(agent, target string, c Category) []Evidence { return nil }

// contentUsageHeaderEvidence returns what the page's Content-Usage header
// fields say of c.
func contentUsageHeaderEvidence(p *Page, c Category) []Evidence { return nil }

// Empty reports whether the file has no usage signal.
func (r *RobotsSignals) Empty() bool { return true }

// MemSize returns the memory r holds, in bytes, for cache bounds.
func (r *RobotsSignals) MemSize() int { return 0 }
