package policy_test

import (
	"github.com/robotsguard/robotsguard/internal/canonical"
	"github.com/robotsguard/robotsguard/policy"
)

// decideCanonical is what package acap calls to decide a path it made
// canonical itself: TestDecidePath and FuzzMatch check it is DecidePath.
var decideCanonical = canonical.DecidePath.(func(*policy.Group, string) policy.Decision)
