package cache

import "fmt"

// CheckDirectives returns an error when the allocation-free reading of v,
// a Cache-Control field, differs from the cacheobject parser's; ok tells
// whether that reading took v.
func CheckDirectives(v string) (ok bool, err error) {
	fast, ok := simpleDirectives(v)
	if !ok {
		return false, nil
	}
	slow, sok := parsedDirectives(v)
	if !sok || fast != slow {
		return true, fmt.Errorf("Cache-Control %q read as %+v, the cacheobject parser reads %+v (ok %v)", v, fast, slow, sok)
	}
	return true, nil
}
