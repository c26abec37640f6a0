package robotstest

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// rfcKey is the public key of RFC 9421 Appendix B.1.4, test-key-ed25519.
func rfcKey(t testing.TB) ed25519.PublicKey {
	k, err := base64.RawURLEncoding.DecodeString("JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The verifier's signature base and check, on RFC 9421 Appendix B.2.6
// (whose keyid is no thumbprint, and which has no tag: only the base and
// the signature are checked here).
func TestVerifierRFC9421_B26(t *testing.T) {
	r := httptest.NewRequest("POST", "http://example.com/foo?param=Value&Pet=dog", strings.NewReader(`{"hello": "world"}`))
	r.Header.Set("Date", "Tue, 20 Apr 2021 02:07:55 GMT")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Content-Length", "18")
	in, err := sfDictionary(`sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`)
	if err != nil {
		t.Fatal(err)
	}
	base, _, err := signatureBase(r, in[0])
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString("wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==")
	if !ed25519.Verify(rfcKey(t), []byte(base), sig) {
		t.Errorf("B.2.6 does not verify over the base\n%s", base)
	}
}

// draftRequest is the request of a test vector of draft-meunier-
// webbotauth-httpsig-protocol ("EdDSA Using Curve edwards25519").
func draftRequest(agent, input, sig string) *http.Request {
	r := httptest.NewRequest("GET", "http://example.com/", nil)
	r.Header.Set("Signature-Agent", agent)
	r.Header.Set("Signature-Input", input)
	r.Header.Set("Signature", sig)
	return r
}

var draftVectors = []struct {
	name, agent, input, sig string
}{{
	"dictionary",
	`agent2="https://signature-agent.test"`,
	`sig2=("@authority" "signature-agent";key="agent2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"`,
	`sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:`,
}, {
	"legacy",
	`"https://signature-agent.test"`,
	`sig2=("@authority" "signature-agent");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"`,
	`sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:`,
}}

func TestVerifierDraftVectors(t *testing.T) {
	now := time.Unix(1735689600, 0)
	for _, v := range draftVectors {
		t.Run(v.name, func(t *testing.T) {
			by, err := VerifySignature(draftRequest(v.agent, v.input, v.sig), now, rfcKey(t))
			if err != nil {
				t.Fatal(err)
			}
			if by.Agent != "https://signature-agent.test" || by.KeyID != "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U" || by.Label != "sig2" {
				t.Errorf("SignedBy = %+v", by)
			}
			// What must fail: another authority, a changed agent, a
			// time past expires, another key.
			r := draftRequest(v.agent, v.input, v.sig)
			r.Host = "example.org"
			if _, err := VerifySignature(r, now, rfcKey(t)); err == nil {
				t.Error("verified for another authority")
			}
			r = draftRequest(strings.Replace(v.agent, "test", "tesT", 1), v.input, v.sig)
			if _, err := VerifySignature(r, now, rfcKey(t)); err == nil {
				t.Error("verified with another Signature-Agent")
			}
			if _, err := VerifySignature(draftRequest(v.agent, v.input, v.sig), time.Unix(4889289600+60, 0), rfcKey(t)); err == nil {
				t.Error("verified after expires")
			}
			other := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
			if _, err := VerifySignature(draftRequest(v.agent, v.input, v.sig), now, other); err == nil {
				t.Error("verified with another key")
			}
		})
	}
}

// FuzzVerifySignature: whatever the three fields hold, the verifier
// neither panics nor accepts a signature that is not the vector's; and
// the dictionaries it parses serialize to text it parses to the same.
func FuzzVerifySignature(f *testing.F) {
	for _, v := range draftVectors {
		f.Add(v.agent, v.input, v.sig)
	}
	f.Add(`a=?1;b, c=(1 2);x=:AA==:`, `s=("@authority" "@target-uri" "@path" "@query" "@method" "x");tag="web-bot-auth";created=1;expires=2;keyid="k"`, `s=:AAAA:`)
	f.Fuzz(func(t *testing.T, agent, input, sig string) {
		now := time.Unix(1735689600, 0)
		r := draftRequest(agent, input, sig)
		by, err := VerifySignature(r, now, rfcKey(t))
		if err == nil && !valid(by, sig) {
			t.Fatalf("verified %+v", by)
		}
		for _, s := range []string{agent, input, sig} {
			d, err := sfDictionary(s)
			if err != nil {
				continue
			}
			once := sfDictionaryString(d)
			d2, err := sfDictionary(once)
			if err != nil {
				t.Fatalf("%q parses, its serialization %q does not: %v", s, once, err)
			}
			if twice := sfDictionaryString(d2); once != twice {
				t.Fatalf("serializations differ: %q, %q", once, twice)
			}
		}
	})
}

// valid reports whether a signature the fuzzer got verified is one of the
// vectors' signatures (the only ones by the test key it can know).
func valid(by SignedBy, sig string) bool {
	for _, v := range draftVectors {
		if strings.Contains(sig, strings.TrimPrefix(v.sig, "sig2=")) {
			return by.KeyID == "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"
		}
	}
	return false
}

// sfDictionaryString serializes a dictionary (RFC 9651 §4.1.2).
func sfDictionaryString(d []sfMember) string {
	var b strings.Builder
	for i, m := range d {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.key + "=")
		sfSerialize(&b, m)
	}
	return b.String()
}
