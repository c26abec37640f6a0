package botauth_test

import (
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/botauth"
	"github.com/robotsguard/robotsguard/robotstest"
)

func newKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize)))
}

func pub(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

// fixedClock reads a time of its own.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// received is req as a server receives it, for robotstest.VerifySignature.
func received(req *http.Request) *http.Request {
	r := httptest.NewRequest(req.Method, req.URL.RequestURI(), nil)
	r.Header = req.Header.Clone()
	r.Host = req.URL.Host
	if req.Host != "" {
		r.Host = req.Host
	}
	if req.URL.Scheme == "https" {
		r.TLS = &tls.ConnectionState{}
	}
	return r
}

// signed signs a GET of url with s and returns the request.
func signed(t *testing.T, s *botauth.Signer, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	return req
}

// Every request a robotsguard.Transport sends over the Signer is signed:
// the robots.txt fetch and its redirect, the page and the redirect the
// Client follows. The Origin fails the test on any that is not.
func TestTransportSignsEveryRequest(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /private/\n")
	key := newKey(0)
	o.RequireSignature(pub(key))
	o.Fault("/robots.txt", robotstest.Redirect("/robots-moved.txt"))
	o.Fault("/robots-moved.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
	}))
	o.Fault("/old", robotstest.Redirect("/new"))
	tr := o.Transport("FooBot/1.0")
	s := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example", Clock: o.Clock}
	tr.Base = s.RoundTripper(tr.Base)
	resp, err := (&http.Client{Transport: tr}).Get(o.URL + "/old")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var got []string
	for _, r := range o.Requests() {
		got = append(got, r.URL)
		if r.SignedBy.KeyID != botauth.Thumbprint(pub(key)) || r.SignedBy.Agent != "https://crawler.example" {
			t.Errorf("%s: SignedBy %+v, error %v", r.URL, r.SignedBy, r.SignatureErr)
		}
	}
	if want := "/robots.txt /robots-moved.txt /old /new"; strings.Join(got, " ") != want {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// The RoundTripper signs a clone: the caller's request keeps its header.
func TestRoundTripperClones(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Signature") == "" {
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	defer srv.Close()
	s := &botauth.Signer{Key: newKey(0), SignatureAgent: "https://crawler.example"}
	req, _ := http.NewRequest("GET", srv.URL, nil)
	resp, err := s.RoundTripper(srv.Client().Transport).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d: the request went unsigned", resp.StatusCode)
	}
	if len(req.Header) != 0 {
		t.Errorf("the caller's request was changed: %v", req.Header)
	}
}

// closeRecorder records that a body was closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

// A request that cannot be signed is not sent: the error says why, and
// errors.Is tells the cause; its body is closed. Through a
// robotsguard.Transport, no request reaches the Origin at all.
func TestUnsignable(t *testing.T) {
	key := newKey(0)
	for _, tc := range []struct {
		name string
		s    botauth.Signer
		want error
		msg  string
	}{
		{"no key", botauth.Signer{SignatureAgent: "https://crawler.example"}, botauth.ErrNoKey, "has no Ed25519 key"},
		{"http agent", botauth.Signer{Key: key, SignatureAgent: "http://crawler.example"}, botauth.ErrSignatureAgent, `"http://crawler.example"`},
		{"no agent", botauth.Signer{Key: key}, botauth.ErrSignatureAgent, "not an https URL"},
		{"missing field", botauth.Signer{Key: key, SignatureAgent: "https://c.example", Components: []string{"@authority", "x-crawl-id"}}, botauth.ErrUnsignable, "no x-crawl-id header field"},
		{"no authority", botauth.Signer{Key: key, SignatureAgent: "https://c.example", Components: []string{"@method"}}, botauth.ErrConfig, "neither @authority nor @target-uri"},
		{"unknown derived", botauth.Signer{Key: key, SignatureAgent: "https://c.example", Components: []string{"@authority", "@status"}}, botauth.ErrConfig, `"@status"`},
		{"bad label", botauth.Signer{Key: key, SignatureAgent: "https://c.example", Label: "Sig"}, botauth.ErrConfig, `Label "Sig"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &closeRecorder{Reader: strings.NewReader("x")}
			req, _ := http.NewRequest("POST", "https://example.com/a", body)
			_, err := tc.s.RoundTripper(nil).RoundTrip(req)
			var se *botauth.SignError
			if !errors.Is(err, tc.want) || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v saying %q", err, tc.want, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "robotsguard: botauth: POST https://example.com/a not signed, so not sent") {
				t.Errorf("message %q", err)
			}
			if !body.closed {
				t.Error("the body was not closed")
			}
			if err := tc.s.Sign(req); !errors.Is(err, tc.want) || len(req.Header) != 0 {
				t.Errorf("Sign: %v, header %v", err, req.Header)
			}

			o := robotstest.NewOrigin(t, "User-agent: *\nAllow: /\n")
			tr := o.Transport("FooBot/1.0")
			tr.Base = tc.s.RoundTripper(tr.Base)
			_, err = (&http.Client{Transport: tr}).Get(o.URL + "/page")
			if !errors.As(err, &se) || !errors.Is(se, tc.want) {
				t.Errorf("through the Transport: %v, want a *SignError of %v", err, tc.want)
			}
			if rs := o.Requests(); len(rs) != 0 {
				t.Errorf("the Origin received %d requests", len(rs))
			}
		})
	}
}

// Each form a Signer sends verifies with the independent verifier of
// robotstest, and the fields are as the draft shows them.
func TestSignVerifies(t *testing.T) {
	key := newKey(0)
	for _, tc := range []struct {
		name      string
		s         botauth.Signer
		url       string
		wantInput string // a prefix of the Signature-Input
		wantAgent string
	}{
		{"default", botauth.Signer{}, "https://example.com:443/a?b=c",
			`sig1=("@authority" "signature-agent";key="sig1");created=`, `sig1="https://crawler.example"`},
		{"target-uri", botauth.Signer{Components: []string{"@target-uri"}}, "http://Example.COM:8080/a%20b?q=1",
			`sig1=("@target-uri" "signature-agent";key="sig1");created=`, `sig1="https://crawler.example"`},
		{"legacy", botauth.Signer{LegacySignatureAgent: true, Label: "sig2"}, "https://example.com/",
			`sig2=("@authority" "signature-agent");created=`, `"https://crawler.example"`},
		{"narrow", botauth.Signer{Components: []string{"@method", "@authority", "@path", "@query"}}, "https://example.com/p?x",
			`sig1=("@method" "@authority" "@path" "@query" "signature-agent";key="sig1");created=`, `sig1="https://crawler.example"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Key, s.SignatureAgent, s.Clock = key, "https://crawler.example", fixedClock{t0}
			req := signed(t, &s, tc.url)
			if got := req.Header.Get("Signature-Input"); !strings.HasPrefix(got, tc.wantInput) ||
				!strings.Contains(got, `;keyid="`+botauth.Thumbprint(pub(key))+`";alg="ed25519";nonce="`) || !strings.HasSuffix(got, `;tag="web-bot-auth"`) {
				t.Errorf("Signature-Input: %s", got)
			}
			if got := req.Header.Get("Signature-Agent"); got != tc.wantAgent {
				t.Errorf("Signature-Agent: %s, want %s", got, tc.wantAgent)
			}
			by, err := robotstest.VerifySignature(received(req), t0, pub(key))
			if err != nil {
				t.Fatal(err)
			}
			if by.Agent != "https://crawler.example" {
				t.Errorf("SignedBy %+v", by)
			}
			// Changing what the signature covers breaks it.
			r := received(req)
			r.Host = "other.example"
			if _, err := robotstest.VerifySignature(r, t0, pub(key)); err == nil {
				t.Error("verified for another authority")
			}
		})
	}
}

// created and expires: Lifetime after the time of signing, Skew before;
// the verifier accepts within them and not past them.
func TestLifetimeAndSkew(t *testing.T) {
	key := newKey(0)
	s := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example", Clock: fixedClock{t0}, Lifetime: time.Minute, Skew: 30 * time.Second}
	req := signed(t, s, "https://example.com/")
	in := req.Header.Get("Signature-Input")
	if want := ";created=" + itoa(t0.Unix()-30) + ";expires=" + itoa(t0.Unix()+60) + ";"; !strings.Contains(in, want) {
		t.Errorf("Signature-Input %s lacks %s", in, want)
	}
	for _, tc := range []struct {
		at time.Time
		ok bool
	}{
		{t0.Add(-30 * time.Second), true}, // a verifier 30 s behind
		{t0.Add(-40 * time.Second), false},
		{t0.Add(time.Minute), true},
		{t0.Add(2 * time.Minute), false},
	} {
		if _, err := robotstest.VerifySignature(received(req), tc.at, pub(key)); (err == nil) != tc.ok {
			t.Errorf("verified at %v: %v, want ok=%v", tc.at.Sub(t0), err, tc.ok)
		}
	}
	// Zero Lifetime is DefaultLifetime.
	s.Lifetime = 0
	if in := signed(t, s, "https://example.com/").Header.Get("Signature-Input"); !strings.Contains(in, ";expires="+itoa(t0.Add(botauth.DefaultLifetime).Unix())+";") {
		t.Errorf("zero Lifetime: %s", in)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Key rotation: the directory lists the old and the new key; the Signer
// signs with the new one, which a verifier knowing both accepts, and one
// knowing only the old rejects.
func TestRotation(t *testing.T) {
	old, cur := newKey(1), newKey(2)
	dir, err := botauth.Directory(pub(old), pub(cur))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []ed25519.PrivateKey{old, cur} {
		if !strings.Contains(string(dir), `"kid":"`+botauth.Thumbprint(pub(k))+`"`) {
			t.Errorf("directory lacks %s: %s", botauth.Thumbprint(pub(k)), dir)
		}
	}
	s := &botauth.Signer{Key: cur, SignatureAgent: "https://crawler.example", Clock: fixedClock{t0}}
	req := signed(t, s, "https://example.com/")
	if _, err := robotstest.VerifySignature(received(req), t0, pub(old), pub(cur)); err != nil {
		t.Errorf("with both keys: %v", err)
	}
	if _, err := robotstest.VerifySignature(received(req), t0, pub(old)); err == nil {
		t.Error("verified with the old key alone")
	}
}

// Sign replaces the signature fields a request has (a redirect hop
// copies those of the hop before), and leaves the others.
func TestSignReplaces(t *testing.T) {
	key := newKey(0)
	s := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example", Clock: fixedClock{t0}}
	req, _ := http.NewRequest("GET", "https://a.example/", nil)
	req.Header.Set("Signature", "sig1=:AAAA:")
	req.Header.Add("Signature-Input", `sig1=("@authority");created=1`)
	req.Header.Set("X-Other", "kept")
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	if len(req.Header.Values("Signature")) != 1 || len(req.Header.Values("Signature-Input")) != 1 || req.Header.Get("X-Other") != "kept" {
		t.Errorf("header %v", req.Header)
	}
	if _, err := robotstest.VerifySignature(received(req), t0, pub(key)); err != nil {
		t.Error(err)
	}
}

// A value that cannot go into a signature base (a host not in ASCII, as
// the request was given) fails the request rather than sending it unsigned.
func TestUnsignableValue(t *testing.T) {
	s := &botauth.Signer{Key: newKey(0), SignatureAgent: "https://crawler.example"}
	req, err := http.NewRequest("GET", "https://exämple.com/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sign(req); !errors.Is(err, botauth.ErrUnsignable) || !strings.Contains(err.Error(), "@authority") {
		t.Errorf("Sign: %v, want ErrUnsignable for @authority", err)
	}
}

// The price a request offers (pay-per-crawl) is covered when it carries
// one: the signature binds it, and a request without one signs as before.
func TestSignCoversPrice(t *testing.T) {
	key := newKey(0)
	s := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example", Clock: fixedClock{t0}}
	req, _ := http.NewRequest("GET", "https://example.com/article", nil)
	req.Header.Set("Crawler-Max-Price", "USD 0.05")
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	const want = `sig1=("@authority" "crawler-max-price" "signature-agent";key="sig1");created=`
	if got := req.Header.Get("Signature-Input"); !strings.HasPrefix(got, want) {
		t.Errorf("Signature-Input: %s, want it to start %s", got, want)
	}
	if _, err := robotstest.VerifySignature(received(req), t0, pub(key)); err != nil {
		t.Fatal(err)
	}
	r := received(req)
	r.Header.Set("Crawler-Max-Price", "USD 5.00")
	if _, err := robotstest.VerifySignature(r, t0, pub(key)); err == nil {
		t.Error("verified with another price")
	}

	plain := signed(t, s, "https://example.com/article")
	if got := plain.Header.Get("Signature-Input"); strings.Contains(got, "crawler-") {
		t.Errorf("a request without a price covers one: %s", got)
	}
	// Named in Components, a price field is covered once, where named.
	s.Components = []string{"crawler-exact-price", "@authority"}
	req, _ = http.NewRequest("GET", "https://example.com/article", nil)
	req.Header.Set("Crawler-Exact-Price", "USD 0.01")
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Signature-Input"); !strings.HasPrefix(got, `sig1=("crawler-exact-price" "@authority" "signature-agent";key="sig1")`) {
		t.Errorf("Signature-Input: %s", got)
	}
}
