package robotstest_test

import (
	"crypto/ed25519"
	"net/http"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/botauth"
	"github.com/robotsguard/robotsguard/robotstest"
)

// An Origin that requires signatures fails the test on an unsigned
// request and on one signed by another key, naming why, and passes one
// signed by its key.
func TestOriginRequireSignature(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nAllow: /\n")
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	o.RequireSignature(key.Public().(ed25519.PublicKey))
	other := ed25519.NewKeyFromSeed([]byte(strings.Repeat("k", ed25519.SeedSize)))

	signed := func(k ed25519.PrivateKey) *http.Client {
		tr := o.Transport("FooBot/1.0")
		s := &botauth.Signer{Key: k, SignatureAgent: "https://crawler.example", Clock: o.Clock}
		tr.Base = s.RoundTripper(tr.Base)
		return &http.Client{Transport: tr}
	}
	if _, _, err := get(t, signed(key), o.URL+"/good", ""); err != nil {
		t.Fatal(err)
	}
	if ftb.Failed() {
		t.Fatalf("a signed request failed the test: %v", o.Requests())
	}
	if _, _, err := get(t, signed(other), o.URL+"/other-key", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := get(t, o.Client("FooBot/1.0"), o.URL+"/unsigned", ""); err != nil {
		t.Fatal(err)
	}
	if !ftb.Failed() {
		t.Error("unsigned requests did not fail the test")
	}
	ftb.End()
	errs := strings.Join(ftb.Errors(), "\n")
	for _, want := range []string{
		`GET /other-key from "FooBot/1.0": robotstest: Web Bot Auth signature "sig1": keyid`,
		`GET /unsigned from "FooBot/1.0": robotstest: no valid Web Bot Auth signature`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors lack %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "/good") {
		t.Errorf("the signed request was reported:\n%s", errs)
	}
	for _, r := range o.Requests() {
		if r.URL == "/good" && r.SignedBy.KeyID != botauth.Thumbprint(key.Public().(ed25519.PublicKey)) {
			t.Errorf("/good: SignedBy %+v, err %v", r.SignedBy, r.SignatureErr)
		}
	}
}
