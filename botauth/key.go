package botauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrKey is matched by the errors of ParsePrivateKey, ParsePublicKey and
// LoadPEM when the text holds no Ed25519 key they can read.
var ErrKey = errors.New("robotsguard: botauth: not an Ed25519 key")

// ParsePrivateKey reads an Ed25519 private key from PEM text: a
// "PRIVATE KEY" block holding PKCS#8 (RFC 5208, with the Ed25519 key
// of RFC 8410 §7), as "openssl genpkey -algorithm ed25519" and
// MarshalPEM write it. Text before and after the block is ignored.
func ParsePrivateKey(pemText []byte) (ed25519.PrivateKey, error) {
	b, _ := pem.Decode(pemText)
	if b == nil || b.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%w: no PEM block of type PRIVATE KEY (PKCS#8)", ErrKey)
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: the PKCS#8 key is a %T", ErrKey, k)
	}
	return ek, nil
}

// ParsePublicKey reads an Ed25519 public key from PEM text: a "PUBLIC
// KEY" block (SubjectPublicKeyInfo, RFC 8410 §4), or the public half of a
// "PRIVATE KEY" block as ParsePrivateKey reads it.
func ParsePublicKey(pemText []byte) (ed25519.PublicKey, error) {
	b, _ := pem.Decode(pemText)
	if b != nil && b.Type == "PRIVATE KEY" {
		k, err := ParsePrivateKey(pemText)
		if err != nil {
			return nil, err
		}
		return k.Public().(ed25519.PublicKey), nil
	}
	if b == nil || b.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("%w: no PEM block of type PUBLIC KEY or PRIVATE KEY", ErrKey)
	}
	k, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	ek, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: the public key is a %T", ErrKey, k)
	}
	return ek, nil
}

// LoadPEM reads the Ed25519 private key of the PEM file at path (see
// ParsePrivateKey). Its errors name the file, and match ErrKey or the
// error of os.ReadFile.
func LoadPEM(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &fileError{path, err}
	}
	k, err := ParsePrivateKey(b)
	if err != nil {
		return nil, &fileError{path, err}
	}
	return k, nil
}

// fileError is an error of the key file path.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	return "robotsguard: botauth: key file " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "robotsguard: botauth: ")
}

func (e *fileError) Unwrap() error { return e.err }

// MarshalPEM writes key as a PEM "PRIVATE KEY" block (PKCS#8), which
// ParsePrivateKey and OpenSSL read.
func MarshalPEM(key ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// Thumbprint is the JWK SHA-256 thumbprint of key (RFC 7638 §3, with the
// members of an OKP key given in RFC 8037 Appendix A.3: crv, kty, x, in
// that order), base64url without padding: the keyid of its signatures and
// the kid of its directory entry.
func Thumbprint(key ed25519.PublicKey) string {
	sum := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(key) + `"}`))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
