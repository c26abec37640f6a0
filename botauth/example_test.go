package botauth_test

import (
	"crypto/ed25519"
	"fmt"
	"net/http"
	"os"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/botauth"
)

// A Transport whose every request is signed: robots.txt fetches, pages
// and redirects.
func Example() {
	key, err := botauth.LoadPEM("testdata/rfc9421-ed25519.pem") // the RFC's test key: use your own
	if err != nil {
		fmt.Println(err)
		return
	}
	signer := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example"}
	client := &http.Client{Transport: &robotsguard.Transport{
		UserAgent: "FooBot/1.0 (+https://crawler.example/bot)",
		Base:      signer.RoundTripper(nil),
	}}
	_ = client // client.Get(…)

	// The directory to serve at https://crawler.example/.well-known/http-message-signatures-directory
	dir, _ := botauth.Directory(key.Public().(ed25519.PublicKey))
	os.Stdout.Write(dir)
	// Output:
	// {"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}
}

// Signing a request of one's own.
func ExampleSigner_Sign() {
	key, _ := botauth.LoadPEM("testdata/rfc9421-ed25519.pem")
	signer := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example"}
	req, _ := http.NewRequest("GET", "https://example.com/page", nil)
	if err := signer.Sign(req); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.Header.Get("Signature-Agent"))
	// Output:
	// sig1="https://crawler.example"
}
