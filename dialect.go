package robotsguard

import (
	"time"

	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/policy"
)

// fetching is what a dialect asks of the Transport besides parsing: how it
// reads statuses and how long it keeps a file. A new dialect is one entry
// of fetchingRules.
type fetching struct {
	status StatusPolicy
	cache  cache.Policy
}

var fetchingRules = [...]fetching{
	policy.RFC9309: {status: DefaultStatusPolicy},
	policy.Google:  {status: DefaultStatusPolicy},
	// The 1996 draft: 401 and 403 disallow everything (section 3.1), and
	// a response without cache directives is kept for 7 days (section
	// 3.4).
	policy.Koster1996: {
		status: Koster1996StatusPolicy,
		cache:  cache.Policy{MaxAge: 7 * 24 * time.Hour, DefaultAge: 7 * 24 * time.Hour},
	},
}

func (t *Transport) dialect() fetching {
	if d := t.Parser.Dialect; int(d) < len(fetchingRules) {
		return fetchingRules[d]
	}
	return fetchingRules[policy.RFC9309]
}

func (t *Transport) statusPolicy() StatusPolicy {
	if t.StatusPolicy != nil {
		return t.StatusPolicy
	}
	return t.dialect().status
}

func (t *Transport) cachePolicy() cache.Policy {
	if t.CachePolicy == (cache.Policy{}) {
		return t.dialect().cache
	}
	return t.CachePolicy
}
