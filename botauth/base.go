package botauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// A covered component is one line of the signature base: its component
// identifier as serialized (RFC 9421 §2: a String and its parameters,
// `"signature-agent";key="sig1"`), and its value.
type covered struct {
	id    string
	value string
}

// A param is a signature parameter (RFC 9421 §2.3): an Integer or a
// String.
type param struct {
	key string
	s   string
	n   int64
	str bool
}

func intParam(key string, n int64) param { return param{key: key, n: n} }
func strParam(key, s string) param       { return param{key: key, s: s, str: true} }

// quote serializes s as a Structured Fields String (RFC 9651 §4.1.6).
func quote(s string) string { return `"` + escape(s) + `"` }

// byteSequence serializes b as a Byte Sequence (RFC 9651 §4.1.8).
func byteSequence(b []byte) string { return ":" + base64.StdEncoding.EncodeToString(b) + ":" }

// escape escapes '"' and '\' for a Structured Fields String (RFC 9651
// §4.1.6); the caller has checked that s is printable ASCII.
func escape(s string) string {
	if !strings.ContainsAny(s, `"\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// printable reports whether s may be a Structured Fields String: only
// printable ASCII (RFC 9651 §3.3.3).
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// signatureParams serializes the value of "@signature-params" (RFC 9421
// §2.3), which is also the Signature-Input member's: the Inner List of the
// covered component identifiers, then the parameters in order.
func signatureParams(cs []covered, ps []param) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.id)
	}
	b.WriteByte(')')
	for _, p := range ps {
		b.WriteByte(';')
		b.WriteString(p.key)
		b.WriteByte('=')
		if p.str {
			b.WriteString(quote(p.s))
		} else {
			b.WriteString(strconv.FormatInt(p.n, 10))
		}
	}
	return b.String()
}

// signatureBase is the signature base of RFC 9421 §2.5: a line per
// covered component, its identifier, ": " and its value, then the
// "@signature-params" line, with no newline after it.
func signatureBase(cs []covered, sigParams string) []byte {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.id)
		b.WriteString(": ")
		b.WriteString(c.value)
		b.WriteByte('\n')
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(sigParams)
	return []byte(b.String())
}

// signBase signs the signature base of cs and ps with key (Ed25519, RFC
// 9421 §3.3.6), and returns the Signature-Input member value and the
// signature.
func signBase(key ed25519.PrivateKey, cs []covered, ps []param) (input string, sig []byte) {
	input = signatureParams(cs, ps)
	return input, ed25519.Sign(key, signatureBase(cs, input))
}

// authority is the value of @authority (RFC 9421 §2.2.3): the request's
// host and port (RFC 9110 §7.2), lower-cased, the scheme's default port
// left out.
func authority(req *http.Request) string {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	return normalAuthority(host, strings.ToLower(req.URL.Scheme))
}

// normalAuthority lower-cases host (a host and maybe a port) and leaves
// out the default port of scheme.
func normalAuthority(host, scheme string) string {
	host = strings.ToLower(host)
	if h, port, err := net.SplitHostPort(host); err == nil {
		if port == "" || port == "80" && scheme == "http" || port == "443" && scheme == "https" {
			if strings.Contains(h, ":") {
				return "[" + h + "]"
			}
			return h
		}
	}
	return host
}

// derivedValue returns the value of the derived component name (RFC 9421
// §2.2) of req, as the request goes out: its target is
// req.URL.RequestURI(), what net/http sends.
func derivedValue(req *http.Request, name string) (string, bool) {
	switch name {
	case "@method":
		if req.Method == "" {
			return http.MethodGet, true
		}
		return req.Method, true
	case "@authority":
		return authority(req), true
	case "@scheme":
		return strings.ToLower(req.URL.Scheme), true
	case "@target-uri":
		return strings.ToLower(req.URL.Scheme) + "://" + authority(req) + req.URL.RequestURI(), true
	case "@request-target":
		return req.URL.RequestURI(), true
	case "@path":
		if p := req.URL.EscapedPath(); p != "" {
			return p, true
		}
		return "/", true
	case "@query":
		return "?" + req.URL.RawQuery, true
	}
	return "", false
}

// fieldValue returns the value of the header field name (RFC 9421 §2.1):
// its field lines, each trimmed, joined with ", "; false when the request
// has none.
func fieldValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	trimmed := make([]string, len(vs))
	for i, v := range vs {
		trimmed[i] = strings.Trim(v, " \t")
	}
	return strings.Join(trimmed, ", "), true
}
