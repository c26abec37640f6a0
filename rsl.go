package robotsguard

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/robotsguard/robotsguard/usage"
)

// rslSignal is the signal of RSL 1.0 (Really Simple Licensing): the
// licence documents a robots.txt names in its License lines, which apply to
// every agent, read for Transport.Usage's categories other than crawl, and
// fetched and cached as a robots.txt is (the Store, the size limit,
// FetchTimeout), once per document however many origins name it.
type rslSignal struct{}

// rslPart is rslSignal's part of a robots.txt: its licence URLs.
type rslPart struct{ urls []string }

func (p rslPart) memSize() int64 {
	n := int64(24 + 16*len(p.urls))
	for _, u := range p.urls {
		n += int64(len(u))
	}
	return n
}

func (p rslPart) expires() time.Time { return time.Time{} }

func (rslSignal) read(_ *Transport, r robotsRead, prev signalPart) signalPart {
	if prev != nil {
		return prev // the same body
	}
	if urls := usage.RobotsLicenses(r.body); len(urls) > 0 {
		return rslPart{urls}
	}
	return nil
}

// usage reads the licence documents the robots.txt names into site. A
// document that cannot be read (or parsed) is reported, the first one; it
// decides nothing.
func (rslSignal) usage(t *Transport, part signalPart, r robotsRead, c usage.Category, site *usage.Site) *unreadFile {
	p, ok := part.(rslPart)
	if !ok || c == usage.Crawl {
		return nil
	}
	return t.readLicenses(r, p.urls, site)
}

// readLicenses fetches and parses the RSL documents at urls into
// site.RSL, and returns the first that cannot be read, or nil.
func (t *Transport) readLicenses(r robotsRead, urls []string, site *usage.Site) *unreadFile {
	var first *unreadFile
	deadline := time.Now().Add(t.fetchTimeout())
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			continue // usage.RobotsLicenses and usage.LicenseLinks parsed it
		}
		f := t.siteFile(r.o, u, r.dial, r.ua, deadline)
		if f.err == nil && !t.hasRules(f) {
			f.err = &FetchError{URL: raw, Status: f.entry.Status}
		}
		var doc any
		if f.err == nil {
			// Parsed once for the entry's life.
			doc, err = f.parse(func(body []byte) (any, error) { return usage.ParseRSL(body, raw) })
		}
		if err = firstErr(f.err, err); err != nil {
			if first == nil {
				first = &unreadFile{usage.RSL, raw, err}
			}
			continue
		}
		site.RSL = append(site.RSL, doc.(*usage.RSLFile))
	}
	return first
}

// firstErr returns the first of errs that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// pageLicenses reads the RSL documents a page's Link fields name, for
// category c, into site, and returns the first that cannot be read.
func (t *Transport) pageLicenses(r robotsRead, page *usage.Page, c usage.Category, site *usage.Site) *unreadFile {
	if page == nil || len(page.Licenses) == 0 || c == usage.Crawl {
		return nil
	}
	var urls []string
	for _, u := range page.Licenses {
		if !slices.ContainsFunc(site.RSL, func(f *usage.RSLFile) bool { return f.URL == u }) {
			urls = append(urls, u) // a document the robots.txt names counts once
		}
	}
	return t.readLicenses(r, urls, site)
}

// The documents are fetched when Usage asks, not while the robots.txt is
// read: requests do not wait for them.
func (rslSignal) fetchBudget(*Transport) time.Duration { return 0 }
func (rslSignal) keepsBody() bool                      { return false }

// licenseRequired returns the *usage.LicenseRequiredError of resp, a page's
// response, when it is a 401 or 402 with a License challenge (RSL 1.0:
// the site asks for a licence token, see usage.CheckLicense), and nil
// otherwise: fields are read only on those statuses.
func licenseRequired(resp *http.Response) error {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusPaymentRequired {
		return nil
	}
	return usage.CheckLicense(resp)
}
