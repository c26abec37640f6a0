package botauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"
)

func testKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	k, err := LoadPEM("testdata/rfc9421-ed25519.pem")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// unwrap joins the lines of an RFC 8792 '\'-wrapped text.
func unwrap(s string) string {
	s = strings.ReplaceAll(s, "\\\n ", "")
	return strings.ReplaceAll(s, "\\\n", "")
}

// The signature of RFC 9421 Appendix B.2.6: the test request, covered as
// the appendix covers it, signed with test-key-ed25519. Ed25519 is
// deterministic, so the signature is the appendix's byte for byte.
func TestRFC9421_B26(t *testing.T) {
	req, err := http.NewRequest("POST", "http://example.com/foo?param=Value&Pet=dog", strings.NewReader(`{"hello": "world"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Date", "Tue, 20 Apr 2021 02:07:55 GMT")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Digest", "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:")
	req.Header.Set("Content-Length", "18")
	cs, reason, err := components(req, []string{"date", "@method", "@path", "@authority", "content-type", "content-length"})
	if err != nil {
		t.Fatal(reason, err)
	}
	const wantBase = `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" \
 "content-type" "content-length");created=1618884473\
 ;keyid="test-key-ed25519"`
	ps := []param{intParam("created", 1618884473), strParam("keyid", "test-key-ed25519")}
	input, sig := signBase(testKey(t), cs, ps)
	if got := string(signatureBase(cs, input)); got != unwrap(wantBase) {
		t.Errorf("signature base:\n%s\nwant\n%s", got, unwrap(wantBase))
	}
	if got, want := "sig-b26="+input, `sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`; got != want {
		t.Errorf("Signature-Input: %s\nwant %s", got, want)
	}
	if got, want := "sig-b26="+byteSequence(sig), unwrap(`sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1\
 u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:`); got != want {
		t.Errorf("Signature: %s\nwant %s", got, want)
	}
}

// The ed25519 test vectors of draft-meunier-webbotauth-httpsig-protocol
// ("Test Vectors", "EdDSA Using Curve edwards25519"): a Signature-Agent
// Dictionary member, and the legacy String.
func TestWebBotAuthDraftVectors(t *testing.T) {
	req, _ := http.NewRequest("GET", "https://example.com/", nil)
	const keyid = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"
	for _, tc := range []struct {
		name     string
		agentID  string
		expires  int64
		nonce    string
		wantSig  string
		wantBase string
	}{{
		name:    "dictionary",
		agentID: `"signature-agent";key="agent2"`,
		expires: 4889289600,
		nonce:   "n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==",
		wantSig: "RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==",
		wantBase: `"@authority": example.com
"signature-agent";key="agent2": "https://signature-agent.test"
"@signature-params": ("@authority" "signature-agent";key="agent2")\
 ;created=1735689600\
 ;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"\
 ;alg="ed25519"\
 ;expires=4889289600\
 ;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA=="\
 ;tag="web-bot-auth"`,
	}, {
		name:    "legacy",
		agentID: `"signature-agent"`,
		expires: 1735693200,
		nonce:   "e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==",
		wantSig: "jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==",
		wantBase: `"@authority": example.com
"signature-agent": "https://signature-agent.test"
"@signature-params": ("@authority" "signature-agent")\
 ;created=1735689600\
 ;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"\
 ;alg="ed25519"\
 ;expires=1735693200\
 ;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg=="\
 ;tag="web-bot-auth"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cs, reason, err := components(req, []string{"@authority"})
			if err != nil {
				t.Fatal(reason, err)
			}
			cs = append(cs, covered{id: tc.agentID, value: quote("https://signature-agent.test")})
			key := testKey(t)
			if got := Thumbprint(key.Public().(ed25519.PublicKey)); got != keyid {
				t.Errorf("Thumbprint = %s, want %s", got, keyid)
			}
			input, sig := signBase(key, cs, []param{intParam("created", 1735689600), strParam("keyid", keyid),
				strParam("alg", "ed25519"), intParam("expires", tc.expires), strParam("nonce", tc.nonce), strParam("tag", Tag)})
			if got := string(signatureBase(cs, input)); got != unwrap(tc.wantBase) {
				t.Errorf("signature base:\n%s\nwant\n%s", got, unwrap(tc.wantBase))
			}
			if got := byteSequence(sig); got != ":"+tc.wantSig+":" {
				t.Errorf("Signature: sig2=%s, want sig2=:%s:", got, tc.wantSig)
			}
		})
	}
}

// The signed directory response of draft-meunier-webbotauth-httpsig-
// protocol ("Signed Directory Response"): the body Directory writes, its
// Content-Digest, and the signature, byte for byte.
func TestSignedDirectoryVector(t *testing.T) {
	key := testKey(t)
	body, err := Directory(key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	wantBody := unwrap(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-\
 dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw\
 3c5D0bs","use":"sig"}]}`)
	if string(body) != wantBody {
		t.Errorf("Directory:\n%s\nwant\n%s", body, wantBody)
	}
	created := time.Unix(1735689600, 0)
	h := signDirectory([]ed25519.PrivateKey{key}, body, "signature-agent.test", created, time.Unix(4889289600, 0).Sub(created))
	want := http.Header{
		"Content-Digest":  {"sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:"},
		"Signature-Input": {`binding=("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"`},
		"Signature":       {"binding=:l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==:"},
	}
	for k := range want {
		if h.Get(k) != want.Get(k) {
			t.Errorf("%s: %s\nwant %s", k, h.Get(k), want.Get(k))
		}
	}
}

// RFC 8037 Appendix A.3: the thumbprint of its example Ed25519 key.
func TestThumbprintRFC8037(t *testing.T) {
	x := "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
	pub, err := base64RawURL(x)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Thumbprint(pub), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"; got != want {
		t.Errorf("Thumbprint = %s, want %s", got, want)
	}
}

func base64RawURL(s string) (ed25519.PublicKey, error) {
	return base64.RawURLEncoding.DecodeString(s)
}
