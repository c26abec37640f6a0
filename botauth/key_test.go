package botauth_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/botauth"
)

// A key written by MarshalPEM reads back, private and public; what is not
// an Ed25519 PKCS#8 key fails with ErrKey.
func TestKeys(t *testing.T) {
	k := newKey(3)
	text, err := botauth.MarshalPEM(k)
	if err != nil {
		t.Fatal(err)
	}
	back, err := botauth.ParsePrivateKey(text)
	if err != nil || !back.Equal(k) {
		t.Fatalf("ParsePrivateKey: %v", err)
	}
	p, err := botauth.ParsePublicKey(text)
	if err != nil || !p.Equal(pub(k)) {
		t.Fatalf("ParsePublicKey of a private key: %v", err)
	}
	// The RFC 9421 Appendix B.1.4 public key, an SPKI PEM block.
	p, err = botauth.ParsePublicKey([]byte("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n"))
	if err != nil || botauth.Thumbprint(p) != "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U" {
		t.Fatalf("ParsePublicKey: %v", err)
	}
	for _, bad := range []string{
		"",
		"not pem",
		"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
		"-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
	} {
		if _, err := botauth.ParsePrivateKey([]byte(bad)); !errors.Is(err, botauth.ErrKey) {
			t.Errorf("ParsePrivateKey(%q): %v", bad, err)
		}
		if _, err := botauth.ParsePublicKey([]byte(bad)); !errors.Is(err, botauth.ErrKey) {
			t.Errorf("ParsePublicKey(%q): %v", bad, err)
		}
	}
	if _, err := botauth.Directory(); !errors.Is(err, botauth.ErrKey) {
		t.Errorf("Directory(): %v", err)
	}
	if _, err := botauth.Directory(ed25519.PublicKey("short")); !errors.Is(err, botauth.ErrKey) {
		t.Errorf("Directory(short): %v", err)
	}
}

// The DirectoryHandler serves the directory with its media type, and a
// signature per key over the request's authority and the body's digest.
func TestDirectoryHandler(t *testing.T) {
	old, cur := newKey(1), newKey(2)
	srv := httptest.NewServer(&botauth.DirectoryHandler{Keys: []ed25519.PrivateKey{old, cur}, Clock: fixedClock{t0}})
	defer srv.Close()
	resp, err := http.Get(srv.URL + botauth.DirectoryPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want, _ := botauth.Directory(pub(old), pub(cur))
	if string(body) != string(want) {
		t.Errorf("body %s, want %s", body, want)
	}
	if ct := resp.Header.Get("Content-Type"); ct != botauth.DirectoryMediaType {
		t.Errorf("Content-Type %q", ct)
	}
	sum := sha256.Sum256(body)
	if got, want := resp.Header.Get("Content-Digest"), "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":"; got != want {
		t.Errorf("Content-Digest %q, want %q", got, want)
	}
	in := strings.Join(resp.Header.Values("Signature-Input"), ", ")
	for i, k := range []ed25519.PrivateKey{old, cur} {
		label := []string{"binding", "binding2"}[i]
		if !strings.Contains(in, label+`=("@authority";req "content-digest");created=`+itoa(t0.Unix())) ||
			!strings.Contains(in, `keyid="`+botauth.Thumbprint(pub(k))+`";tag="http-message-signatures-directory"`) {
			t.Errorf("Signature-Input lacks %s by key %d: %s", label, i+1, in)
		}
	}
	if n := len(resp.Header.Values("Signature")); n != 2 {
		t.Errorf("%d Signature fields, want 2", n)
	}
	resp, err = http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}
