package robotsguard_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/usage"
)

const rslLicense = `<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license>
      <permits type="usage">search</permits>
      <prohibits type="usage">ai-train</prohibits>
    </license>
  </content>
</rsl>`

func TestUsageReadsRSLOnce(t *testing.T) {
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/license.xml":
			w.Header().Set("Content-Type", usage.RSLMediaType)
			w.Write([]byte(rslLicense))
		case "/page.xml":
			w.Write([]byte(`<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><prohibits>search</prohibits></license></content></rsl>`))
		default:
			w.Write([]byte("ok"))
		}
	})
	s.SetRobots("License: " + s.URL + "/license.xml\n\nUser-agent: *\nAllow: /\n")
	for range 3 {
		d := h.usageOf(s.URL+"/a", usage.TrainAI, nil)
		if d.Verdict != usage.Disallowed || d.Decisive.Source.Signal != usage.RSL || d.Conditions.Policy != s.URL+"/license.xml" {
			t.Fatalf("train-ai prohibited by the licence: %v %+v", d, d.Conditions)
		}
	}
	if d := h.usageOf(s.URL+"/a", usage.Search, nil); d.Verdict != usage.Allowed || d.Conditions.License.Payment != "free" {
		t.Errorf("search permitted by the licence: %v %+v", d, d.Conditions)
	}
	if d := h.usageOf(s.URL+"/a", usage.Crawl, nil); d.Decisive.Source.Signal != usage.RobotsRules {
		t.Errorf("crawl: %v", d)
	}
	if n := count(s, "/license.xml"); n != 1 {
		t.Errorf("license.xml fetched %d times, want 1", n)
	}
	// A page's Link names a licence of its own; the site's counts once.
	page := usage.ReadHeader(http.Header{"Link": {
		"<" + s.URL + "/page.xml>; rel=license; type=\"application/rsl+xml\", <" + s.URL + "/license.xml>; rel=license; type=\"application/rsl+xml\""}})
	d := h.usageOf(s.URL+"/a", usage.Search, page)
	if d.Verdict != usage.Disallowed || d.Decisive.Source.URL != s.URL+"/page.xml" {
		t.Errorf("search prohibited by the page's licence: %v", d)
	}
	if n := len(d.Evidence); n != 2 {
		t.Errorf("%d evidence, want 2 (one per document): %v", n, d.Evidence)
	}
}

func TestUsageRSLUnreadable(t *testing.T) {
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/license.xml":
			w.Write([]byte("<html><body>challenge</body></html>"))
		case "/gone.xml", "/.well-known/tdmrep.json":
			http.NotFound(w, r)
		default:
			w.Write([]byte("ok"))
		}
	})
	s.SetRobots("User-agent: *\nAllow: /\nLicense: " + s.URL + "/gone.xml\nLicense: " + s.URL + "/license.xml\n")
	d := h.usageOf(s.URL+"/a", usage.TrainAI, nil)
	// The first that cannot be read is listed; neither decides.
	if d.Verdict != usage.Unknown || len(d.Evidence) != 1 || !strings.Contains(d.Evidence[0].Source.String(), "gone.xml \"cannot be read: fetching") {
		t.Errorf("train-ai with licences that cannot be read: %v %v", d, d.Evidence)
	}
	s.SetRobots("User-agent: *\nAllow: /\nLicense: " + s.URL + "/license.xml\n")
	h.clock.Advance(25 * time.Hour)
	d = h.usageOf(s.URL+"/a", usage.TrainAI, nil)
	if len(d.Evidence) != 1 || !strings.Contains(d.Evidence[0].Source.String(), "not an RSL document") {
		t.Errorf("an HTML page for a licence: %v", d.Evidence)
	}
}

// TestLicenseRequired: a page answered 401 or 402 with a License challenge
// (RSL 1.0) fails with a *usage.LicenseRequiredError naming the licence
// to obtain; a request that carries a token is sent with it, and other
// 401s are responses as any other. Before, the 401 came back as a
// response, and the licence had to be found by the caller.
func TestLicenseRequired(t *testing.T) {
	h := newHarness(t)
	const license = "https://example.com/license.xml"
	o := newOrigin(t, h.clock, "", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/basic":
			w.Header().Set("WWW-Authenticate", `Basic realm="members"`)
			w.WriteHeader(http.StatusUnauthorized)
		case r.Header.Get("Authorization") == "License t0ken":
			io.WriteString(w, "licensed")
		default:
			w.Header().Set("Link", "<"+license+`>; rel="license"; type="application/rsl+xml"`)
			w.Header().Set("WWW-Authenticate", `License error="invalid_request"`)
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "a licence is required")
		}
	})
	_, err := h.get(o.URL + "/article")
	var le *usage.LicenseRequiredError
	if !errors.As(err, &le) || le.License != license || le.Status != http.StatusUnauthorized {
		t.Fatalf("GET without a token: %v (%T), want a *usage.LicenseRequiredError naming %s", err, err, license)
	}
	req, _ := http.NewRequest(http.MethodGet, o.URL+"/article", nil)
	if err := usage.SetLicenseToken(req.Header, "t0ken"); err != nil {
		t.Fatal(err)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("GET with a token: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "licensed" {
		t.Errorf("GET with a token: %q", b)
	}
	resp, err = h.client.Get(o.URL + "/basic")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a Basic challenge: %v, %v; want the 401 response", resp, err)
	}
	resp.Body.Close()
}
