package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/robotsguard/robotsguard/botauth"
)

// signing is the -key and -signature-agent flags of check and fetch:
// with both, every request the command sends is signed (package botauth).
type signing struct {
	key   *string
	agent *string
}

func addSigningFlags(fs *flag.FlagSet) *signing {
	return &signing{
		key:   fs.String("key", "", "sign every request as a Web Bot Auth crawler with the Ed25519 key of the PKCS#8 PEM `FILE` (see keygen); needs -signature-agent"),
		agent: fs.String("signature-agent", "", "with -key, the https `URL` whose /.well-known/http-message-signatures-directory serves the key (see directory)"),
	}
}

// signer returns the Signer the flags ask for, nil for none.
func (s *signing) signer() (*botauth.Signer, error) {
	switch {
	case *s.key == "" && *s.agent == "":
		return nil, nil
	case *s.key == "":
		return nil, usagef("-signature-agent needs -key")
	case *s.agent == "":
		return nil, usagef("-key needs -signature-agent, the https URL that serves the key directory")
	}
	key, err := botauth.LoadPEM(*s.key)
	if err != nil {
		return nil, fail("%s", strings.TrimPrefix(err.Error(), "robotsguard: botauth: "))
	}
	sg := &botauth.Signer{Key: key, SignatureAgent: *s.agent}
	// Sign nothing yet, but find a bad -signature-agent now, as a usage
	// error, rather than at each request.
	probe, _ := http.NewRequest(http.MethodGet, "https://example.com/", nil)
	if err := sg.Sign(probe); errors.Is(err, botauth.ErrSignatureAgent) {
		return nil, usagef("-signature-agent %q is not an https URL", *s.agent)
	}
	return sg, nil
}

// sign makes the requests of l signed by sg, when sg is not nil: it
// signs below the Transport, so robots.txt fetches and redirects are
// signed, and above the recorder, which sees what was sent.
func (l *live) sign(sg *botauth.Signer) {
	if sg != nil {
		l.t.Base = sg.RoundTripper(l.rec)
	}
}

func cmdKeygen(e *env, args []string) (int, error) {
	fs := newFlags(e, "keygen")
	out := fs.String("o", "", "write the key to `FILE` (created, mode 0600; an existing file is kept) instead of standard output")
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() > 0 {
		return 0, usagef("keygen takes no argument")
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return 0, fail("generating a key: %v", err)
	}
	text, err := botauth.MarshalPEM(key)
	if err != nil {
		return 0, fail("%v", unprefixed(err))
	}
	if *out == "" {
		_, err := e.stdout.Write(text)
		return exitOK, err
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fail("%v", err)
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		return 0, fail("%v", err)
	}
	if err := f.Close(); err != nil {
		return 0, fail("%v", err)
	}
	fmt.Fprintf(e.stdout, "%s: Ed25519 key, keyid %s\n", *out, botauth.Thumbprint(key.Public().(ed25519.PublicKey)))
	return exitOK, nil
}

func cmdDirectory(e *env, args []string) (int, error) {
	fs := newFlags(e, "directory")
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := flagAfterArgs(fs.Args()); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, usagef("directory takes one or more key files")
	}
	var keys []ed25519.PublicKey
	for _, name := range fs.Args() {
		b, err := os.ReadFile(name)
		if err != nil {
			return 0, fail("%v", err)
		}
		k, err := botauth.ParsePublicKey(b)
		if err != nil {
			return 0, fail("%s: %s", name, strings.TrimPrefix(err.Error(), "robotsguard: botauth: "))
		}
		keys = append(keys, k)
	}
	dir, err := botauth.Directory(keys...)
	if err != nil {
		return 0, fail("%s", strings.TrimPrefix(err.Error(), "robotsguard: botauth: "))
	}
	fmt.Fprintf(e.stdout, "%s\n", dir)
	return exitOK, nil
}
