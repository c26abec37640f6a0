package usage

import (
	"time"

	"github.com/robotsguard/robotsguard/acap"
	"github.com/robotsguard/robotsguard/policy"
)

// A Site holds the signals a site gives for all its pages: its robots.txt
// (conventional rules, ACAP records, Content-Usage and Content-Signal lines)
// and its /.well-known/tdmrep.json. Any field may be nil.
type Site struct {
	// RobotsURL is the robots.txt's URL, for explanations.
	RobotsURL string
	Rules     *policy.Robots
	ACAP      *acap.Policy
	Robots    *RobotsSignals
	TDMRep    *TDMRepFile
}

// A Query asks whether Agent may use URL for Category.
type Query struct {
	// Agent is the crawler's product token or full User-Agent value.
	Agent    string
	URL      string
	Category Category
	// Now is the time conditions with an end (unavailable_after) are
	// judged against; the zero Time means time.Now.
	Now time.Time
}
