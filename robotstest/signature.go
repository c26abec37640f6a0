package robotstest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// A verifier of Web Bot Auth signatures (draft-meunier-webbotauth-httpsig-
// protocol, "Validating Message Signature"; RFC 9421 §3.2), for tests of
// crawlers that sign their requests. It shares no code with the signer of
// package botauth: it parses the fields, builds the signature base and
// computes key thumbprints on its own, so that a mistake in one shows as a
// failure of the other.

// ErrSignature is matched (errors.Is) by every error of VerifySignature.
var ErrSignature = errors.New("robotstest: no valid Web Bot Auth signature")

// A SignatureError says why a request's signature was not accepted.
type SignatureError struct {
	Label  string // the Signature-Input member, "" when none was read
	Reason string
}

func (e *SignatureError) Error() string {
	if e.Label == "" {
		return "robotstest: no valid Web Bot Auth signature: " + e.Reason
	}
	return fmt.Sprintf("robotstest: Web Bot Auth signature %q: %s", e.Label, e.Reason)
}

func (e *SignatureError) Is(target error) bool { return target == ErrSignature }

// SignatureSkew is how far a signature's created time may be ahead of
// the verifier's clock, and its expires time behind it.
const SignatureSkew = 5 * time.Second

// A SignedBy is what a valid signature tells of its signer.
type SignedBy struct {
	Label string // the Signature-Input member that verified
	KeyID string // its keyid: the JWK thumbprint of the key
	Agent string // the Signature-Agent URL it covers
}

// VerifySignature checks that r, a request as a server receives it (Host,
// RequestURI; the scheme is https when r.TLS is set), carries a Web Bot
// Auth signature by one of keys valid at now: a Signature-Input member
// tagged "web-bot-auth", with created, expires and a keyid that is the
// RFC 7638 thumbprint of one of keys; covering @authority or @target-uri,
// and the Signature-Agent member keyed to its label (or the whole field,
// in its older bare String form), an https URL; with created no later
// than now+SignatureSkew, expires no earlier than now-SignatureSkew; and
// whose Ed25519 signature over the RFC 9421 §2.5 signature base verifies.
// The first member that verifies is returned; otherwise the error (a
// *SignatureError) says why the last one tried did not.
func VerifySignature(r *http.Request, now time.Time, keys ...ed25519.PublicKey) (SignedBy, error) {
	inputs, err := sfDictionary(strings.Join(r.Header.Values("Signature-Input"), ", "))
	if err != nil {
		return SignedBy{}, &SignatureError{Reason: "Signature-Input: " + err.Error()}
	}
	sigs, err := sfDictionary(strings.Join(r.Header.Values("Signature"), ", "))
	if err != nil {
		return SignedBy{}, &SignatureError{Reason: "Signature: " + err.Error()}
	}
	last := &SignatureError{Reason: "no Signature-Input member is tagged web-bot-auth"}
	for _, in := range inputs {
		if tag, _ := in.param("tag"); tag.v != "web-bot-auth" || tag.token {
			continue
		}
		by, err := verifyMember(r, now, in, sigs, keys)
		if err == nil {
			return by, nil
		}
		last = &SignatureError{Label: in.key, Reason: err.Error()}
	}
	return SignedBy{}, last
}

func verifyMember(r *http.Request, now time.Time, in sfMember, sigs []sfMember, keys []ed25519.PublicKey) (SignedBy, error) {
	by := SignedBy{Label: in.key}
	if !in.inner {
		return by, errors.New("not an inner list")
	}
	var sig []byte
	for _, s := range sigs {
		if s.key == in.key && !s.inner {
			sig, _ = s.item.v.([]byte)
		}
	}
	if len(sig) != ed25519.SignatureSize {
		return by, errors.New("no Signature member of 64 bytes with its label")
	}
	created, ok1 := intParam(in, "created")
	expires, ok2 := intParam(in, "expires")
	keyid, ok3 := in.param("keyid")
	if !ok1 || !ok2 || !ok3 {
		return by, errors.New("created, expires and keyid are required")
	}
	by.KeyID, _ = keyid.v.(string)
	if alg, ok := in.param("alg"); ok && alg.v != "ed25519" {
		return by, fmt.Errorf("alg %v is not ed25519", alg.v)
	}
	switch unix := now.Unix(); {
	case created > unix+int64(SignatureSkew/time.Second):
		return by, fmt.Errorf("created %d is in the future (now %d)", created, unix)
	case expires < unix-int64(SignatureSkew/time.Second):
		return by, fmt.Errorf("expired at %d (now %d)", expires, unix)
	case expires < created:
		return by, errors.New("expires before created")
	}
	var key ed25519.PublicKey
	for _, k := range keys {
		if jwkThumbprint(k) == by.KeyID {
			key = k
		}
	}
	if key == nil {
		return by, fmt.Errorf("keyid %q is the thumbprint of no known key", by.KeyID)
	}
	base, agent, err := signatureBase(r, in)
	if err != nil {
		return by, err
	}
	if agent == "" {
		return by, errors.New("the signature covers no Signature-Agent")
	}
	by.Agent = agent
	if !ed25519.Verify(key, []byte(base), sig) {
		return by, errors.New("the signature does not verify")
	}
	return by, nil
}

func intParam(m sfMember, key string) (int64, bool) {
	v, ok := m.param(key)
	n, isInt := v.v.(int64)
	return n, ok && isInt
}

// jwkThumbprint is the RFC 7638 §3 thumbprint of an Ed25519 key, whose
// required members are crv, kty and x (RFC 8037 Appendix A.3).
func jwkThumbprint(k ed25519.PublicKey) string {
	j := `{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(k) + `"}`
	sum := sha256.Sum256([]byte(j))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// signatureBase builds the RFC 9421 §2.5 signature base of r for the
// Signature-Input member in, and returns the Signature-Agent URL it
// covers, "" if none. Each component comes once; @authority or
// @target-uri is required.
func signatureBase(r *http.Request, in sfMember) (base, agent string, err error) {
	var b strings.Builder
	seen := map[string]bool{}
	target := false
	for _, c := range in.items {
		name, ok := c.item.v.(string)
		if !ok || c.item.token {
			return "", "", errors.New("a component identifier is not a String")
		}
		var id strings.Builder
		sfSerialize(&id, c)
		if seen[id.String()] {
			return "", "", fmt.Errorf("component %s twice", id.String())
		}
		seen[id.String()] = true
		var v string
		switch {
		case strings.HasPrefix(name, "@"):
			if len(c.params) > 0 {
				return "", "", fmt.Errorf("component %s: parameters are not supported", id.String())
			}
			if v, err = derived(r, name); err != nil {
				return "", "", err
			}
			target = target || name == "@authority" || name == "@target-uri"
		case name == "signature-agent":
			if v, agent, err = signatureAgent(r, c); err != nil {
				return "", "", err
			}
		default:
			if len(c.params) > 0 {
				return "", "", fmt.Errorf("component %s: parameters are not supported", id.String())
			}
			if name != strings.ToLower(name) {
				return "", "", fmt.Errorf("component %q is not lower case", name)
			}
			vs := r.Header.Values(name)
			if len(vs) == 0 {
				return "", "", fmt.Errorf("component %q: no such field", name)
			}
			for i := range vs {
				vs[i] = strings.Trim(vs[i], " \t")
			}
			v = strings.Join(vs, ", ")
		}
		if strings.ContainsAny(v, "\r\n") {
			return "", "", fmt.Errorf("component %s has a line break", id.String())
		}
		b.WriteString(id.String())
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	if !target {
		return "", "", errors.New("the signature covers neither @authority nor @target-uri")
	}
	b.WriteString(`"@signature-params": `)
	sfSerialize(&b, sfMember{inner: true, items: in.items, params: in.params})
	return b.String(), agent, nil
}

// derived returns the value of a derived component (RFC 9421 §2.2) of r.
func derived(r *http.Request, name string) (string, error) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := strings.ToLower(r.Host)
	if h, port, err := net.SplitHostPort(host); err == nil && (scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		host = h
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
	}
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil {
		return "", fmt.Errorf("request target %q: %v", r.RequestURI, err)
	}
	switch name {
	case "@method":
		return r.Method, nil
	case "@authority":
		return host, nil
	case "@scheme":
		return scheme, nil
	case "@target-uri":
		if u.IsAbs() { // absolute-form, as sent to a proxy
			return r.RequestURI, nil
		}
		return scheme + "://" + host + r.RequestURI, nil
	case "@request-target":
		return r.RequestURI, nil
	case "@path":
		if u.EscapedPath() == "" {
			return "/", nil
		}
		return u.EscapedPath(), nil
	case "@query":
		return "?" + u.RawQuery, nil
	}
	return "", fmt.Errorf("derived component %q is not supported", name)
}

// signatureAgent returns the value of the component c, "signature-agent"
// with a key parameter naming a member of the Dictionary (RFC 9421
// §2.1.2), or without one the field as it is (the older String form), and
// the URL it carries, which must be https.
func signatureAgent(r *http.Request, c sfMember) (value, agent string, err error) {
	raw := strings.Join(r.Header.Values("Signature-Agent"), ", ")
	if raw == "" {
		return "", "", errors.New("no Signature-Agent field")
	}
	var m sfMember
	switch {
	case len(c.params) == 0:
		if m, err = sfItemField(raw); err != nil {
			return "", "", errors.New("Signature-Agent is not a String (legacy form): " + err.Error())
		}
		value = strings.Trim(raw, " \t")
	case len(c.params) == 1 && c.params[0].key == "key":
		key, ok := c.params[0].val.v.(string)
		if !ok || c.params[0].val.token {
			return "", "", errors.New(`"signature-agent";key is not a String`)
		}
		dict, err := sfDictionary(raw)
		if err != nil {
			return "", "", errors.New("Signature-Agent: " + err.Error())
		}
		found := false
		for _, d := range dict {
			if d.key == key {
				m, found = d, true
			}
		}
		if !found {
			return "", "", fmt.Errorf("Signature-Agent has no member %q", key)
		}
		var b strings.Builder
		sfSerialize(&b, m)
		value = b.String()
	default:
		return "", "", errors.New(`"signature-agent": unsupported parameters`)
	}
	s, ok := m.item.v.(string)
	if !ok || m.inner || m.item.token {
		return "", "", errors.New("the Signature-Agent member is not a String")
	}
	if u, err := url.Parse(s); err != nil || u.Scheme != "https" || u.Host == "" {
		return "", "", fmt.Errorf("Signature-Agent %q is not an https URL", s)
	}
	return value, s, nil
}
