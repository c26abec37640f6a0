package cache

import (
	"fmt"
	"net/http"
	"time"
)

// InitialAge returns the corrected initial age of the entry's response
// (RFC 9111 §4.2.3), which Freshness subtracts from the lifetime: its age
// at now is InitialAge plus the time since it was received.
func InitialAge(e *Entry) time.Duration { return e.initialAge() }

// CheckDirectives returns an error when the allocation-free reading of v,
// a Cache-Control field, differs from the cacheobject parser's, or counts
// its max-age directives otherwise than repeatedMaxAge; ok tells whether
// that reading took v.
func CheckDirectives(v string) (ok bool, err error) {
	fast, maxAges, ok := simpleDirectives(v)
	if !ok {
		return false, nil
	}
	slow, sok := parsedDirectives(v)
	if !sok || fast != slow {
		return true, fmt.Errorf("Cache-Control %q read as %+v, the cacheobject parser reads %+v (ok %v)", v, fast, slow, sok)
	}
	if rep := repeatedMaxAge(http.Header{"Cache-Control": {v}}); (maxAges > 1) != rep {
		return true, fmt.Errorf("Cache-Control %q: %d max-age directives counted, repeatedMaxAge says %v", v, maxAges, rep)
	}
	return true, nil
}
