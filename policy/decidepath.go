package policy

// DecidePath is Decide for a path that is already in the form the RFC9309
// dialect compares: path (with its query) as CanonicalPath(PathOf(target))
// gives it, starting with "/". It does not read the path again to find and
// canonicalise it, so a caller that needs the canonical path for itself
// canonicalises a URL once. A path not in that form is compared as given,
// which can miss a rule: pass only CanonicalPath's results. In the other
// dialects, and for a path that does not start with "/", DecidePath is
// Decide.
func (g *Group) DecidePath(path string) Decision {
	if len(g.members()) == 0 || g.r.beh.encoding != encCanonical || path == "" || path[0] != '/' {
		return g.Decide(path)
	}
	return g.decision(g.decideNormalised(path))
}
