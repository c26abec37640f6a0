// Package match finds the robots.txt rule that decides a path: the
// matching that package policy does for its Groups, and that package acap
// does for the conventional records it pools with its own, in one place.
//
// The rules of a file are a Set: every rule, in file order (Rule), with
// the text their patterns are spans of and the Options of the dialect
// that reads them. The groups a crawler follows are Runs of the Set.
// A small group is matched rule by rule: through a Plan when it is one
// run (NewPlan), or as parsed (MatchRun); a larger one through the
// Matcher that Compile builds. Either returns the deciding rule as a Ref,
// which ranks rules as RFC 9309 §2.2.2 does (or, under Options.FirstMatch,
// as the 1996 draft does). A Group is one list of rules compiled on its
// own, for a caller that holds rules rather than a Set (package acap).
//
// Paths are compared in the form the patterns were normalised to: the
// callers put them in that form first. PathStart finds where the path of
// a URL of the common forms starts.
package match
