package policy

import (
	"strings"

	"github.com/robotsguard/robotsguard/internal/match"
)

// DecidePath is Decide for a path with its query, starting with "/", as
// CanonicalPath(PathOf(target)) gives it: it does not look for a scheme
// and host, so a caller that needs the canonical path for itself
// canonicalises a URL once. A path in the dialect's form is only scanned;
// one that is not (raw UTF-8, lower-case escapes, escaped letters) is made
// so first, as Decide does, so DecidePath never allows what Decide
// refuses. A path that does not start with "/", or that holds a fragment,
// is decided by Decide.
func (g *Group) DecidePath(path string) Decision {
	return g.decision(g.lookupPath(path))
}

// lookupPath returns the rule that decides path for DecidePath, or
// match.NoRule, and why.
func (g *Group) lookupPath(path string) (match.Ref, Basis) {
	if path == "" || path[0] != '/' || strings.IndexByte(path, '#') >= 0 {
		return g.lookup(path)
	}
	return g.decide(path, false)
}
