package usage

// A TDMRepFile is a parsed /.well-known/tdmrep.json.
type TDMRepFile struct{}

// ParseTDMRep reads a tdmrep.json body; url is its URL, for Source.URL.
func ParseTDMRep(body []byte, url string) (*TDMRepFile, error) { return &TDMRepFile{}, nil }

// tdmEvidence returns what TDMRep says of target's use for c: by the file
// when one of its rules covers target, else by the page's header fields,
// else by its meta tags.
func tdmEvidence(f *TDMRepFile, p *Page, target string, c Category) []Evidence { return nil }
