// Package canonical lets package acap find the canonical path of a URL,
// and find the rule of a policy.Group that decides a path it has already
// made canonical, as package policy does, without the group scanning it
// again and without adding either to policy's public API.
package canonical

// PathStart is set by package policy, as it is initialised, to a
// function that returns the index of the path of url, when url is an http
// or https URL whose authority a '/' ends, or a path that starts with one
// '/', as policy.PathOf reads them; begin is -1 for such a URL without a
// path (its path is "/"), and ok is false for the other forms.
var PathStart func(url string) (begin int, ok bool)

// RulePath is set by package policy, as it is initialised, to a
// func(*policy.Group, string) (allow bool, pattern string, idx int32, ok bool)
// that finds the rule deciding a path in the form policy.CanonicalPath
// gives (with its query, starting with "/", without a fragment) as
// Group.DecidePath does, without checking that it is in that form, and
// without building the Decision. When a rule decides the path (ok), it
// returns whether the rule allows, its pattern, and its index, by which
// Rule returns the whole rule. A path in another form may be decided
// differently from Group.Decide: only a caller that made the path
// canonical itself may use it. A package that imports policy reads it
// once initialised.
var RulePath any

// Rule is set by package policy, as it is initialised, to a
// func(*policy.Group, int32) policy.Rule that returns the rule of the
// group whose index RulePath returned.
var Rule any
