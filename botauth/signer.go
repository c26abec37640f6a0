package botauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DefaultLifetime is how long a signature is valid when Signer.Lifetime
// is zero: expires is created plus this.
const DefaultLifetime = 5 * time.Minute

// DefaultLabel is the label of the signature when Signer.Label is empty.
const DefaultLabel = "sig1"

// Tag is the tag parameter of every signature (draft-meunier-webbotauth-
// httpsig-protocol, "Generating HTTP Message Signature").
const Tag = "web-bot-auth"

// nonceSize is the size of the random nonce of each signature, that of
// Cloudflare's reference signer.
const nonceSize = 64

// Errors of Sign and of the RoundTripper, wrapped in a *SignError.
var (
	// ErrNoKey: the Signer has no Key, or one not of ed25519.PrivateKeySize bytes.
	ErrNoKey = errors.New("robotsguard: botauth: the Signer has no Ed25519 key")
	// ErrSignatureAgent: Signer.SignatureAgent is not an https URL
	// (the draft's "Signature-Agent": its scheme MUST be https).
	ErrSignatureAgent = errors.New("robotsguard: botauth: SignatureAgent is not an https URL")
	// ErrConfig: another field of the Signer cannot be used: a Label
	// that is not a Structured Fields key, a negative Lifetime or Skew,
	// Components that name an unknown derived component or neither
	// @authority nor @target-uri.
	ErrConfig = errors.New("robotsguard: botauth: the Signer cannot be used")
	// ErrUnsignable: the request lacks what a covered component needs
	// (a header field named in Components), or has a value that cannot
	// go into a signature base (a line break, non-ASCII).
	ErrUnsignable = errors.New("robotsguard: botauth: the request cannot be signed")
)

// A SignError is the error of a request that was not signed, and so was
// not sent: Err is ErrNoKey, ErrSignatureAgent, ErrConfig or
// ErrUnsignable (errors.Is), with Reason saying what exactly.
type SignError struct {
	Method string
	URL    string
	Err    error
	Reason string
}

func (e *SignError) Error() string {
	msg := fmt.Sprintf("robotsguard: botauth: %s %s not signed, so not sent: %s", e.Method, e.URL, strings.TrimPrefix(e.Err.Error(), "robotsguard: botauth: "))
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

func (e *SignError) Unwrap() error { return e.Err }

// A Signer signs HTTP requests as a Web Bot Auth crawler: an RFC 9421
// signature by its Ed25519 Key that covers the request's @authority (or
// the Components chosen) and its Signature-Agent, with created, expires,
// keyid (the key's Thumbprint), alg, a random nonce and tag
// "web-bot-auth".
//
// Sign signs a request of one's own; RoundTripper wraps a RoundTripper to
// sign every request it sends, as the Base of a robotsguard.Transport.
//
// Set the fields before the first use; a Signer is then safe for
// concurrent use.
type Signer struct {
	// Key signs. Required. To rotate keys, publish the new key's public
	// half in the directory beside the old one (Directory), then sign
	// with it; drop the old key once no signature by it is valid.
	Key ed25519.PrivateKey

	// SignatureAgent is the https URL where verifiers find the key: the
	// origin whose /.well-known/http-message-signatures-directory
	// serves Directory(...). Required.
	SignatureAgent string

	// Label names the signature in Signature-Input and Signature, and
	// its member of Signature-Agent. Empty means DefaultLabel, "sig1".
	Label string

	// Lifetime is how long each signature is valid: expires is the time
	// of signing plus Lifetime. Zero means DefaultLifetime. The draft
	// recommends no more than 24 hours; shorter limits replays.
	Lifetime time.Duration

	// Skew sets created this much before the time of signing, for
	// verifiers whose clocks run behind ours: a signature created "in
	// the future" is rejected. Zero means none.
	Skew time.Duration

	// Components are the components covered besides Signature-Agent, in
	// order: derived components (@authority, @target-uri, @method,
	// @path, @query, @scheme, @request-target; RFC 9421 §2.2) and
	// lower-case header field names (§2.1), which the request must then
	// carry. One of @authority and @target-uri is required. Nil means
	// @authority alone, the draft's minimum; @target-uri binds the
	// signature to the whole URL instead.
	Components []string

	// LegacySignatureAgent sends Signature-Agent as a bare String
	// ("https://…") and covers it whole, as earlier drafts did and some
	// verifiers still expect, instead of the Dictionary
	// (sig1="https://…") covered by its member.
	LegacySignatureAgent bool

	// Clock tells the time of signing. Nil means the system clock.
	Clock interface{ Now() time.Time }
}

// Sign signs req in place: it sets its Signature-Agent, Signature-Input
// and Signature header fields, replacing any it has (those of a redirect
// hop before, say). It changes nothing else. When req cannot be signed it
// returns a *SignError and leaves req as it was: a request meant to be
// signed is better not sent.
//
// Sign is for a request of one's own, before it is sent; a
// RoundTripper's requests belong to its caller, so RoundTripper signs a
// clone.
func (s *Signer) Sign(req *http.Request) error {
	h, err := s.headers(req)
	if err != nil {
		return err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	return nil
}

// headers returns the fields that sign req.
func (s *Signer) headers(req *http.Request) (http.Header, error) {
	fail := func(err error, format string, args ...any) error {
		u := ""
		if req.URL != nil {
			u = req.URL.Redacted()
		}
		return &SignError{Method: req.Method, URL: u, Err: err, Reason: fmt.Sprintf(format, args...)}
	}
	if req.URL == nil {
		return nil, fail(ErrUnsignable, "no URL")
	}
	if len(s.Key) != ed25519.PrivateKeySize {
		return nil, fail(ErrNoKey, "")
	}
	if u, err := url.Parse(s.SignatureAgent); err != nil || u.Scheme != "https" || u.Host == "" || !printable(s.SignatureAgent) {
		return nil, fail(ErrSignatureAgent, "%q", s.SignatureAgent)
	}
	label := s.Label
	if label == "" {
		label = DefaultLabel
	}
	if !isKey(label) {
		return nil, fail(ErrConfig, "Label %q is not a Structured Fields key (lower case letters, digits, _-.*)", label)
	}
	if s.Lifetime < 0 || s.Skew < 0 {
		return nil, fail(ErrConfig, "negative Lifetime or Skew")
	}
	names := s.Components
	if names == nil {
		names = []string{"@authority"}
	}
	cs, reason, err := components(req, names)
	if err != nil {
		return nil, fail(err, "%s", reason)
	}
	agent := quote(s.SignatureAgent) // a String, the legacy field value
	if s.LegacySignatureAgent {
		cs = append(cs, covered{id: quote("signature-agent"), value: agent})
	} else {
		cs = append(cs, covered{id: quote("signature-agent") + ";key=" + quote(label), value: agent})
		agent = label + "=" + agent
	}

	now := time.Now()
	if s.Clock != nil {
		now = s.Clock.Now()
	}
	lifetime := s.Lifetime
	if lifetime == 0 {
		lifetime = DefaultLifetime
	}
	nonce := make([]byte, nonceSize)
	rand.Read(nonce) // never fails (crypto/rand, Go 1.24)
	input, sig := signBase(s.Key, cs, []param{
		intParam("created", now.Add(-s.Skew).Unix()),
		intParam("expires", now.Add(lifetime).Unix()),
		strParam("keyid", Thumbprint(s.Key.Public().(ed25519.PublicKey))),
		strParam("alg", "ed25519"),
		strParam("nonce", base64.StdEncoding.EncodeToString(nonce)),
		strParam("tag", Tag),
	})
	return http.Header{
		"Signature-Agent": {agent},
		"Signature-Input": {label + "=" + input},
		"Signature":       {label + "=" + byteSequence(sig)},
	}, nil
}

// components returns the covered components names of req, or the error
// and the reason they cannot be.
func components(req *http.Request, names []string) (cs []covered, reason string, err error) {
	cs = make([]covered, 0, len(names)+1)
	target := false
	for _, n := range names {
		var v string
		var ok bool
		switch {
		case strings.HasPrefix(n, "@"):
			if v, ok = derivedValue(req, n); !ok {
				return nil, fmt.Sprintf("unknown derived component %q", n), ErrConfig
			}
			target = target || n == "@authority" || n == "@target-uri"
		case n == "" || n != strings.ToLower(n) || !printable(n):
			return nil, fmt.Sprintf("component %q is not a lower-case field name", n), ErrConfig
		case n == "signature" || n == "signature-input" || n == "signature-agent":
			return nil, fmt.Sprintf("component %q is set by the Signer", n), ErrConfig
		default:
			if v, ok = fieldValue(req.Header, n); !ok {
				return nil, fmt.Sprintf("no %s header field to cover", n), ErrUnsignable
			}
		}
		if !printable(v) {
			return nil, fmt.Sprintf("component %s has a byte that is not printable ASCII", n), ErrUnsignable
		}
		cs = append(cs, covered{id: quote(n), value: v})
	}
	if !target {
		return nil, "Components cover neither @authority nor @target-uri", ErrConfig
	}
	// The price a request offers (pay-per-crawl: crawler-max-price or
	// crawler-exact-price, set by a robotsguard.Transport's Payment) is
	// covered whenever the request carries it, so that the signature
	// binds the offer: a relay cannot raise it, nor a copy of a signed
	// request without an offer gain one.
	for _, n := range priceFields {
		if slices.Contains(names, n) {
			continue
		}
		if v, ok := fieldValue(req.Header, n); ok {
			if !printable(v) {
				return nil, fmt.Sprintf("component %s has a byte that is not printable ASCII", n), ErrUnsignable
			}
			cs = append(cs, covered{id: quote(n), value: v})
		}
	}
	return cs, "", nil
}

// priceFields are the pay-per-crawl fields covered when present.
var priceFields = [...]string{"crawler-max-price", "crawler-exact-price"}

// isKey reports whether s is a Structured Fields key (RFC 9651 §3.1.2).
func isKey(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] == '*') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_-.*", c) >= 0) {
			return false
		}
	}
	return true
}
