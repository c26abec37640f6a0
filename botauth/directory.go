package botauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// DirectoryPath is the well-known path of the key directory (draft-
// meunier-webbotauth-httpsig-protocol, "Well-Known
// 'http-message-signatures-directory' URI").
const DirectoryPath = "/.well-known/http-message-signatures-directory"

// DirectoryMediaType is the media type the directory is served with
// (draft-meunier-webbotauth-httpsig-protocol, "Directory Format").
const DirectoryMediaType = "application/http-message-signatures-directory+json"

// DirectoryTag is the tag of the signatures of a directory response
// (draft-meunier-webbotauth-httpsig-protocol, "Validating the Domain
// Binding").
const DirectoryTag = "http-message-signatures-directory"

// jwk is a directory entry: an OKP key (RFC 8037 §2) whose kid is its
// Thumbprint, as the draft requires of a directory at the well-known URI.
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	Kid string `json:"kid"`
	X   string `json:"x"`
	Use string `json:"use"`
}

// Directory returns the key directory of keys: a JSON Web Key Set (RFC
// 7517 §5) with an entry per key, in order, each with its Thumbprint as
// kid and "use":"sig", as
//
//	{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"…","x":"…","use":"sig"}]}
//
// To rotate keys, list the old and the new. It fails when keys is empty
// or a key is not of ed25519.PublicKeySize bytes.
func Directory(keys ...ed25519.PublicKey) ([]byte, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: a directory needs a key", ErrKey)
	}
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: make([]jwk, len(keys))}
	for i, k := range keys {
		if len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("%w: key %d has %d bytes", ErrKey, i+1, len(k))
		}
		set.Keys[i] = jwk{Kty: "OKP", Crv: "Ed25519", Kid: Thumbprint(k), X: base64.RawURLEncoding.EncodeToString(k), Use: "sig"}
	}
	return json.Marshal(set)
}

// DefaultDirectoryLifetime is how long the signatures of a directory
// response are valid when DirectoryHandler.Lifetime is zero.
const DefaultDirectoryLifetime = 24 * time.Hour

// A DirectoryHandler serves the key directory of Keys at any path it is
// mounted on (DirectoryPath), with the DirectoryMediaType, and signs each
// response with every key, as the draft recommends ("Validating the
// Domain Binding"): a signature per key, labelled "binding", "binding2",
// …, covering the request's @authority (with the req flag, RFC 9421
// §2.4) and the Content-Digest of the body (RFC 9530), with created,
// expires, keyid and tag "http-message-signatures-directory".
//
// Fields are read at each request; do not change them while it serves.
type DirectoryHandler struct {
	// Keys are the keys published, in order; each signs the response.
	Keys []ed25519.PrivateKey
	// Lifetime is how long the response's signatures are valid. Zero
	// means DefaultDirectoryLifetime.
	Lifetime time.Duration
	// MaxAge is the max-age of the response's Cache-Control, which
	// bounds how long a verifier keeps a removed key. Zero means one
	// day, as in the draft's example.
	MaxAge time.Duration
	// Clock tells the time of signing. Nil means the system clock.
	Clock interface{ Now() time.Time }
}

func (d *DirectoryHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	pubs := make([]ed25519.PublicKey, len(d.Keys))
	for i, k := range d.Keys {
		if len(k) != ed25519.PrivateKeySize {
			http.Error(w, "robotsguard: botauth: a directory key is not an Ed25519 key", http.StatusInternalServerError)
			return
		}
		pubs[i] = k.Public().(ed25519.PublicKey)
	}
	body, err := Directory(pubs...)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	now := time.Now()
	if d.Clock != nil {
		now = d.Clock.Now()
	}
	lifetime, maxAge := d.Lifetime, d.MaxAge
	if lifetime <= 0 {
		lifetime = DefaultDirectoryLifetime
	}
	if maxAge <= 0 {
		maxAge = 24 * time.Hour
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	h := w.Header()
	for k, v := range signDirectory(d.Keys, body, normalAuthority(r.Host, scheme), now, lifetime) {
		h[k] = v
	}
	h.Set("Content-Type", DirectoryMediaType)
	h.Set("Cache-Control", "max-age="+strconv.FormatInt(int64(maxAge/time.Second), 10))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// signDirectory returns the Content-Digest, Signature-Input and Signature
// fields that sign a directory response of body, to a request whose
// @authority is auth, with each key.
func signDirectory(keys []ed25519.PrivateKey, body []byte, auth string, now time.Time, lifetime time.Duration) http.Header {
	sum := sha256.Sum256(body)
	digest := "sha-256=" + byteSequence(sum[:])
	h := http.Header{"Content-Digest": {digest}}
	cs := []covered{{id: quote("@authority") + ";req", value: auth}, {id: quote("content-digest"), value: digest}}
	for i, k := range keys {
		label := "binding"
		if i > 0 {
			label += strconv.Itoa(i + 1)
		}
		input, sig := signBase(k, cs, []param{
			intParam("created", now.Unix()),
			intParam("expires", now.Add(lifetime).Unix()),
			strParam("keyid", Thumbprint(k.Public().(ed25519.PublicKey))),
			strParam("tag", DirectoryTag),
		})
		h["Signature-Input"] = append(h["Signature-Input"], label+"="+input)
		h["Signature"] = append(h["Signature"], label+"="+byteSequence(sig))
	}
	return h
}
