package policy

import "net/url"

// escapedPath returns u.EscapedPath(), the path as a request sends it. For
// most URLs that is u.Path itself: u has no RawPath, and net/url escapes
// none of its bytes. escapedPath tells so with a table, eight bytes at a
// time, where EscapedPath asks of every byte through a call whether to
// escape it.
func escapedPath(u *url.URL) string {
	p := u.Path
	if u.RawPath != "" {
		return u.EscapedPath()
	}
	for s := p; ; s = s[8:] {
		if len(s) < 8 {
			for _, c := range []byte(s) {
				if escapes[c] != 0 {
					return u.EscapedPath()
				}
			}
			break
		}
		if escapes[s[0]]|escapes[s[1]]|escapes[s[2]]|escapes[s[3]]|
			escapes[s[4]]|escapes[s[5]]|escapes[s[6]]|escapes[s[7]] != 0 {
			return u.EscapedPath()
		}
	}
	return p
}

// escapes is 0 for the bytes that net/url leaves as they are in a path
// (RFC 3986's unreserved characters, and the reserved ones a path
// segment may hold, but '?'), 1 for the others.
var escapes = func() (t [256]uint8) {
	for c := range t {
		t[c] = 1
	}
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~$&+,/:;=@") {
		t[c] = 0
	}
	return t
}()
