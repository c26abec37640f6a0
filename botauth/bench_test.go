package botauth_test

import (
	"crypto/ed25519"
	"net/http"
	"testing"

	"github.com/robotsguard/robotsguard/botauth"
)

// BenchmarkSign is the cost a Signer adds to each request: the signature
// base, an Ed25519 signature and the three fields.
func BenchmarkSign(b *testing.B) {
	s := &botauth.Signer{Key: newKey(0), SignatureAgent: "https://crawler.example"}
	req, _ := http.NewRequest("GET", "https://example.com/a/page?q=1", nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Sign(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEd25519 is the Ed25519 signature alone, over a signature base
// of the size Sign builds: the floor of BenchmarkSign.
func BenchmarkEd25519(b *testing.B) {
	key := newKey(0)
	msg := make([]byte, 320)
	b.ReportAllocs()
	for b.Loop() {
		ed25519.Sign(key, msg)
	}
}
