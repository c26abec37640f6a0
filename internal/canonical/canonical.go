// Package canonical lets package acap decide a path it has already made
// canonical with a policy.Group without the group scanning it again,
// without adding that to policy's public API.
package canonical

// DecidePath is set by package policy, as it is initialised, to a
// func(*policy.Group, string) policy.Decision that decides a path in the
// form policy.CanonicalPath gives (with its query, starting with "/",
// without a fragment) as Group.DecidePath does, without checking that it
// is in that form. A path in another form may be decided differently from
// Group.Decide: only a caller that made the path canonical itself may use
// it. A package that imports policy reads it once initialised.
var DecidePath any
