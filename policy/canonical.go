package policy

import "github.com/robotsguard/robotsguard/internal/canonical"

func init() {
	canonical.DecidePath = (*Group).decideCanonical
	canonical.PathStart = pathStart
}

// decideCanonical is DecidePath for a path the caller made canonical
// (CanonicalPath(PathOf(target))): in a dialect that compares paths in
// that form, it is not scanned again. In another dialect, or for a path
// that does not start with "/", it is DecidePath.
func (g *Group) decideCanonical(path string) Decision {
	if enc, ok := g.encoding(); path == "" || path[0] != '/' || !ok || enc != encCanonical {
		return g.DecidePath(path)
	}
	return g.decision(g.decideNormalised(path))
}
