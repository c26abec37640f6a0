package robotsguard

import (
	"net/url"
	"time"

	"github.com/robotsguard/robotsguard/usage"
)

// tdmRep is the signal of TDMRep (W3C community report): a site's
// /.well-known/tdmrep.json, read for Transport.Usage's tdm and train-ai
// categories only, fetched and cached as a robots.txt is. robots.txt holds
// nothing of it.
type tdmRep struct{}

func (tdmRep) read(*Transport, robotsRead, signalPart) signalPart { return nil }

// usage reads the site's TDMRep file into site, from memory while fresh,
// else from the Store or fetched. It leaves site.TDMRep nil when the site
// has none (a status the StatusPolicy reads as unavailable), and reports
// the file unread when it cannot be read. A site whose file cannot be had
// does not use the protocol, as TDMRep says: the failure decides nothing.
func (tdmRep) usage(t *Transport, _ signalPart, r robotsRead, c usage.Category, site *usage.Site) *unreadFile {
	if c != usage.TDM && c != usage.TrainAI {
		return nil
	}
	u := &url.URL{Scheme: "http", Host: r.o.host, Path: usage.TDMRepPath}
	if r.o.https {
		u.Scheme = "https"
	}
	site.TDMRepURL = r.o.String() + usage.TDMRepPath
	f := t.siteFile(r.o, u, r.dial, r.ua, time.Now().Add(t.fetchTimeout()))
	if f.err != nil {
		return &unreadFile{usage.TDMRep, site.TDMRepURL, f.err}
	}
	if !t.hasRules(f) {
		return nil // no file
	}
	// Parsed once for the entry's life, a file that does not parse too:
	// a large one must not cost its parse on every call.
	v, err := f.parse(func(body []byte) (any, error) { return usage.ParseTDMRep(body, site.TDMRepURL) })
	if err != nil {
		return &unreadFile{usage.TDMRep, site.TDMRepURL, err}
	}
	site.TDMRep = v.(*usage.TDMRepFile)
	return nil
}

func (tdmRep) fetchBudget(*Transport) time.Duration { return 0 }
func (tdmRep) keepsBody() bool                      { return false }
