// Package botauth signs a crawler's HTTP requests for Web Bot Auth: each
// request carries an RFC 9421 HTTP Message Signature by the crawler's
// Ed25519 key, which a site verifies against the keys the crawler
// publishes, so that it can tell the crawler from anyone who copies its
// User-Agent.
//
//	key, err := botauth.LoadPEM("key.pem")
//	…
//	signer := &botauth.Signer{Key: key, SignatureAgent: "https://crawler.example"}
//	t := &robotsguard.Transport{UserAgent: "FooBot/1.0", Base: signer.RoundTripper(nil)}
//	client := &http.Client{Transport: t} // every request it sends is signed
//
// As the Base of a robotsguard.Transport, the Signer signs every request
// the Transport sends: robots.txt fetches and their redirects, pages, and
// the redirects an http.Client follows. Signer.Sign signs a request of
// one's own. A request that cannot be signed is never sent unsigned: it
// fails with a *SignError.
//
// # What is signed
//
// The protocol is draft-meunier-webbotauth-httpsig-protocol (the revision
// of August 2026 in the authors' repository, the text read for this
// package; the working group's draft-ietf-webbotauth-httpsig-protocol-01
// was not available to read), which profiles RFC 9421 and supersedes the
// architecture of draft-meunier-web-bot-auth-architecture. A signature
// ("Generating HTTP Message Signature"):
//
//   - covers @authority (RFC 9421 §2.2.3), or @target-uri (§2.2.2), or
//     more (Signer.Components), the Signature-Agent member keyed by the
//     signature's label (RFC 9421 §2.1.2, the key parameter), and the
//     price a request offers when it carries one (crawler-max-price or
//     crawler-exact-price: pay-per-crawl, see robotsguard.Transport's
//     Payment), so that the signature binds the offer;
//   - has the parameters created and expires (RFC 9421 §2.3; expires is
//     Signer.Lifetime later, five minutes by default), keyid, the JWK
//     SHA-256 thumbprint of the key (RFC 7638 §3 with RFC 8037 Appendix
//     A.3: Thumbprint), alg "ed25519", a random nonce (64 bytes, as
//     Cloudflare's reference signer sends), and tag "web-bot-auth";
//   - is built from the signature base of RFC 9421 §2.5 and sent in the
//     Signature-Input and Signature fields (§3.1, §4), with Ed25519
//     (§3.3.6).
//
// Signature-Agent ("Signature-Agent" in the draft) is a Structured Fields
// Dictionary (RFC 9651 §3.2), sig1="https://crawler.example"; earlier
// revisions (draft-meunier-web-bot-auth-architecture-02, which
// Cloudflare's Web Bot Auth documentation of July 2026 still cites) sent
// a bare String, which some verifiers still expect:
// Signer.LegacySignatureAgent sends that form, covered whole.
//
// # The key directory
//
// Verifiers find the keys at SignatureAgent's origin, at DirectoryPath
// (/.well-known/http-message-signatures-directory), a JSON Web Key Set
// (RFC 7517 §5) served as DirectoryMediaType ("Directory Format").
// Directory writes it; DirectoryHandler serves it and signs each response
// with each key, covering @authority and Content-Digest ("Validating the
// Domain Binding"). To rotate keys ("Key Rotation"), list the new key
// beside the old, sign with the new one, and drop the old once no
// signature by it can still be valid.
//
// # Time
//
// A verifier rejects a signature created in its future or expired in its
// past. Signer.Skew dates created back for verifiers whose clocks run
// behind; Signer.Clock is the clock of signing (a robotstest.Clock in
// tests).
//
// # Testing
//
// robotstest.Origin.RequireSignature makes a test site fail the test on
// any request without a valid signature; its verifier,
// robotstest.VerifySignature, is written apart from this package (its own
// parser, signature base and thumbprint), so that each checks the other.
// The tests of this package reproduce RFC 9421 Appendix B.2.6 and the
// draft's Ed25519 test vectors byte for byte, with the key of RFC 9421
// Appendix B.1.4.
package botauth
