package usage

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/robotsguard/robotsguard/policy"
)

// How RSL 1.0 is found and enforced over HTTP: the License line of
// robots.txt, the Link header field of a response, and the License
// authentication scheme (RSL's Crawler Authorization Protocol).

// Bounds on the HTTP parts of RSL.
const (
	maxRSLLinks      = 8        // licence URLs kept from robots.txt or a response
	maxRSLFieldBytes = 8 << 10  // bytes of Link and WWW-Authenticate fields read
	maxAuthParams    = 16       // parameters of a challenge kept
	maxRSLURL        = 2 << 10  // bytes of a licence URL
	maxLicenseToken  = 16 << 10 // bytes of a licence token sent
)

// RobotsLicenses returns the licence URLs of a robots.txt body's License
// lines, in file order, at most 8: RSL 1.0's discovery directive, which
// applies to every agent wherever it stands in the file (it belongs to no
// group). Only absolute http and https URLs count, as RSL requires. It reads
// what policy.Parser reads (the first 500 KiB), in time linear in its
// length, and allocates nothing when no line starts with "license".
func RobotsLicenses(body []byte) []string {
	if len(body) > policy.DefaultMaxSize {
		body = body[:policy.DefaultMaxSize]
	}
	var out []string
	// A line ends at CR or LF, found with IndexByte, as most lines are not
	// License lines and are passed over by their first byte alone. lf is
	// the offset in body of the next LF (len(body) when there is none),
	// or -1 once passed: found once, however many lines end at a CR
	// before it, so that the time stays linear.
	lf := -1
	for len(body) > 0 && len(out) < maxRSLLinks {
		if lf < 0 {
			if lf = bytes.IndexByte(body, '\n'); lf < 0 {
				lf = len(body)
			}
		}
		i := lf
		if j := bytes.IndexByte(body[:i], '\r'); j >= 0 {
			i = j
		}
		line := body[:i]
		next := min(i+1, len(body))
		body, lf = body[next:], lf-next
		line = line[blankPrefix(line):]
		if len(line) < 8 || line[0]|0x20 != 'l' {
			continue // not "license" (in any case: only ASCII folds to it)
		}
		if u := licenseLine(line); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// licenseLine returns the licence URL of a line of robots.txt, without
// its end and its leading blanks, when it is a License line, else "".
func licenseLine(line []byte) string {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	if len(line) < 8 || !bytes.EqualFold(line[:7], []byte("license")) {
		return ""
	}
	rest := bytes.TrimLeft(line[7:], " \t")
	if len(rest) == 0 || rest[0] != ':' {
		return ""
	}
	return licenseURL(string(bytes.TrimSpace(rest[1:])))
}

// blankPrefix returns the length of line's leading spaces, tabs and byte
// order marks (U+FEFF, in UTF-8).
func blankPrefix(line []byte) int {
	k := 0
	for k < len(line) {
		switch {
		case line[k] == ' ' || line[k] == '\t':
			k++
		case len(line)-k >= 3 && line[k] == 0xef && line[k+1] == 0xbb && line[k+2] == 0xbf:
			k += 3
		default:
			return k
		}
	}
	return k
}

// licenseURL returns s when it is an absolute http or https URL with a
// host, of at most 2 KiB, else "".
func licenseURL(s string) string {
	if len(s) > maxRSLURL {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return s
}

// LicenseLinks returns the RSL licences a response's Link header fields
// announce (RFC 8288 §3): the targets of links whose rel includes
// "license" and whose type is application/rsl+xml, resolved against base
// when it is not nil, at most 8. A target that is not then an absolute
// http or https URL is left out, as is a link that does not parse. It reads
// at most 8 KiB of the fields.
func LicenseLinks(h http.Header, base *url.URL) []string {
	var out []string
	budget := maxRSLFieldBytes
	for _, v := range h.Values("Link") {
		if budget <= 0 || len(out) == maxRSLLinks {
			break
		}
		if len(v) > budget {
			v = v[:budget]
		}
		budget -= len(v)
		for _, l := range parseLinks(v) {
			if !l.rsl || len(out) == maxRSLLinks {
				continue
			}
			target := l.target
			if base != nil {
				ref, err := url.Parse(target)
				if err != nil {
					continue
				}
				target = base.ResolveReference(ref).String()
			}
			if u := licenseURL(target); u != "" {
				out = append(out, u)
			}
		}
	}
	return out
}

// rslLink is one link of a Link field value.
type rslLink struct {
	target string
	rsl    bool // rel includes "license" and type is RSL's
}

// parseLinks reads a Link field value: "<target>; param=value, …". A link
// that does not parse ends the value there.
func parseLinks(v string) []rslLink {
	var out []rslLink
	for {
		v = strings.TrimLeft(v, " \t,")
		if v == "" || v[0] != '<' {
			return out
		}
		end := strings.IndexByte(v, '>')
		if end < 0 {
			return out
		}
		l := rslLink{target: strings.TrimSpace(v[1:end])}
		v = v[end+1:]
		var rel, typ string
		for {
			v = strings.TrimLeft(v, " \t")
			if v == "" || v[0] != ';' {
				break
			}
			var name, val string
			var ok bool
			name, val, v, ok = authParam(strings.TrimLeft(v[1:], " \t"))
			if !ok {
				return out
			}
			switch strings.ToLower(name) {
			case "rel":
				if rel == "" {
					rel = val
				}
			case "type":
				if typ == "" {
					typ = val
				}
			}
		}
		for _, r := range strings.Fields(rel) {
			if strings.EqualFold(r, "license") {
				mt, _, _ := strings.Cut(typ, ";")
				l.rsl = strings.EqualFold(strings.TrimSpace(mt), RSLMediaType)
			}
		}
		out = append(out, l)
	}
}

// authParam reads "name [= value]" at the start of s, where value is a
// token or a quoted-string (RFC 9110 §5.6.2, §5.6.4), and returns the rest.
// ok is false when s does not start with a token.
func authParam(s string) (name, val, rest string, ok bool) {
	n := tokenLen(s)
	if n == 0 {
		return "", "", s, false
	}
	name, rest = s[:n], strings.TrimLeft(s[n:], " \t")
	if rest == "" || rest[0] != '=' {
		return name, "", rest, true
	}
	rest = strings.TrimLeft(rest[1:], " \t")
	if rest != "" && rest[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(rest); i++ {
			switch c := rest[i]; c {
			case '\\':
				if i+1 < len(rest) {
					i++
					b.WriteByte(rest[i])
				}
			case '"':
				return name, b.String(), rest[i+1:], true
			default:
				b.WriteByte(c)
			}
		}
		return name, b.String(), "", true // an unclosed string runs to the end
	}
	m := tokenLen(rest)
	return name, rest[:m], rest[m:], true
}

// tokenLen returns the length of the token (RFC 9110 §5.6.2) s starts with.
func tokenLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return i
		}
	}
	return len(s)
}

// ErrLicenseRequired is the error of a response that refused a request for
// want of an RSL licence token: errors.Is(err, ErrLicenseRequired) holds
// for every *LicenseRequiredError.
var ErrLicenseRequired = errors.New("robotsguard: an RSL licence is required")

// A LicenseRequiredError is a response of status 401 (Unauthorized) or 402
// (Payment Required) with a challenge of the License authentication
// scheme in its WWW-Authenticate field: the site asks for an RSL licence
// token, which its licence server issues (RSL 1.0, Crawler Authorization
// Protocol).
type LicenseRequiredError struct {
	// URL is the request's URL, and Status the response's status.
	URL    string
	Status int
	// License is the URL of the RSL licence to obtain: the response's
	// Link to an RSL document (rel="license"), else the challenge's
	// "license" parameter, else "".
	License string
	// Params are the challenge's parameters, names lower-cased: such as
	// error and error_description.
	Params map[string]string
}

func (e *LicenseRequiredError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "robotsguard: %s: status %d: an RSL licence token is required (WWW-Authenticate: License)", e.URL, e.Status)
	if e.License != "" {
		fmt.Fprintf(&b, "; licence %s", e.License)
	}
	if d := e.Params["error_description"]; d != "" {
		fmt.Fprintf(&b, ": %s", d)
	} else if d := e.Params["error"]; d != "" {
		fmt.Fprintf(&b, ": %s", d)
	}
	return b.String()
}

// Is reports whether target is ErrLicenseRequired.
func (e *LicenseRequiredError) Is(target error) bool { return target == ErrLicenseRequired }

// CheckLicense returns a *LicenseRequiredError when resp has status 401 or
// 402 and a License challenge in its WWW-Authenticate fields, and nil
// otherwise. It reads at most 8 KiB of the fields; the body is not read.
func CheckLicense(resp *http.Response) error {
	if resp == nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusPaymentRequired {
		return nil
	}
	params, ok := licenseChallenge(resp.Header.Values("WWW-Authenticate"))
	if !ok {
		return nil
	}
	e := &LicenseRequiredError{Status: resp.StatusCode, Params: params}
	var base *url.URL
	if resp.Request != nil && resp.Request.URL != nil {
		base = resp.Request.URL
		e.URL = base.String()
	}
	if links := LicenseLinks(resp.Header, base); len(links) > 0 {
		e.License = links[0]
	} else if l := params["license"]; l != "" {
		if base != nil {
			if ref, err := url.Parse(l); err == nil {
				l = base.ResolveReference(ref).String()
			}
		}
		e.License = licenseURL(l)
	}
	return e
}

// licenseChallenge finds the challenge of the License scheme in
// WWW-Authenticate field values (RFC 9110 §11.6.1) and returns its
// parameters. The values are a comma-separated list in which a challenge
// starts with its scheme, followed by a token68 or by its first
// name=value parameter; an element that is only a name=value parameter
// belongs to the challenge before it.
func licenseChallenge(values []string) (map[string]string, bool) {
	budget := maxRSLFieldBytes
	var params map[string]string
	license := false
	for _, v := range values {
		if budget <= 0 {
			break
		}
		if len(v) > budget {
			v = v[:budget]
		}
		budget -= len(v)
		for _, e := range splitList(v) {
			n := tokenLen(e)
			if n == 0 {
				continue // not a scheme nor a parameter
			}
			rest := strings.TrimLeft(e[n:], " \t")
			if rest != "" && rest[0] == '=' {
				// A parameter of the challenge before it.
				if license {
					addAuthParam(params, e)
				}
				continue
			}
			// A new challenge.
			if license {
				return params, true
			}
			license = strings.EqualFold(e[:n], "License")
			if license {
				params = map[string]string{}
				if m := tokenLen(rest); m > 0 && strings.Contains(rest[m:], "=") && strings.Trim(rest[m:], "= \t") != "" {
					addAuthParam(params, rest)
				}
			}
		}
	}
	return params, license
}

// addAuthParam adds the name=value parameter e to params, unless it holds
// maxAuthParams already or the name is there.
func addAuthParam(params map[string]string, e string) {
	name, val, _, ok := authParam(e)
	if !ok || len(params) >= maxAuthParams {
		return
	}
	k := strings.ToLower(name)
	if _, dup := params[k]; !dup {
		params[k] = val
	}
}

// splitList splits a field value at the commas outside quoted strings,
// trimming spaces and leaving out empty elements.
func splitList(v string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == ',':
			if e := strings.TrimSpace(v[start:i]); e != "" {
				out = append(out, e)
			}
			start = i + 1
		}
	}
	if start < len(v) {
		if e := strings.TrimSpace(v[start:]); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// ErrLicenseToken is the error of a licence token that cannot be sent.
var ErrLicenseToken = errors.New("robotsguard: a licence token must be a non-empty token68 of at most 16 KiB")

// SetLicenseToken sets the Authorization field of h to present an RSL
// licence token, as RSL 1.0's Crawler Authorization Protocol says:
// "Authorization: License TOKEN". The token, as the licence server issued
// it, must be a token68 (RFC 9110 §11.2: letters, digits, "-._~+/" and
// trailing "="); any other is refused with ErrLicenseToken, so that no
// field is sent that a server would misread.
func SetLicenseToken(h http.Header, token string) error {
	if token == "" || len(token) > maxLicenseToken {
		return ErrLicenseToken
	}
	t := strings.TrimRight(token, "=")
	if t == "" {
		return ErrLicenseToken
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return ErrLicenseToken
		}
	}
	h.Set("Authorization", "License "+token)
	return nil
}
