package policy

import "github.com/robotsguard/robotsguard/internal/match"

// The matcher, which finds the rule of a group that decides a path, is
// package internal/match: package acap matches the conventional records
// it pools with its own there too. A Group holds a match.Plan when its
// rules are those of one small group of the file, and otherwise compiles
// a match.Matcher on its first decision (see Group.decideNormalised).

// PatternMatches reports whether a robots.txt pattern matches path, both in
// the same form (see CanonicalPattern and CanonicalPath): the pattern is
// anchored at the start of path, '*' matches any sequence of bytes and a
// final '$' the end of path. It takes time linear in their lengths.
func PatternMatches(pattern, path string) bool {
	return match.PatternMatches(pattern, path)
}
