package usage

import "time"

// xRobotsEvidence returns what the page's X-Robots-Tag fields and robots
// meta tags say of c for agent, as of now.
func xRobotsEvidence(p *Page, agent string, c Category, now time.Time) []Evidence { return nil }
