package sitemap

import "time"

// An Entry is one <url> of a sitemap (a page, Kind URL) or one <sitemap>
// of a sitemap index (Kind Index), a line of a text sitemap, or an item
// of an RSS or Atom feed.
type Entry struct {
	Kind Kind
	// Loc is the entry's absolute http or https URL, as the file gives it
	// less surrounding white space (Sitemaps 0.9, "<loc>": entity-escaped,
	// fewer than 2,048 characters).
	Loc string
	// LastMod is the entry's <lastmod> (a feed's pubDate, updated or
	// modified), zero when it has none or LastModRaw does not parse as a
	// W3C Datetime or an RFC 1123 or RFC 822 date. LastModRaw is the value
	// as written.
	LastMod    time.Time
	LastModRaw string
	// ChangeFreq is the entry's <changefreq> in lower case ("daily"), or
	// "" when it has none. Sitemaps 0.9 calls it a hint, not a command.
	ChangeFreq string
	// Priority is the entry's <priority>, between 0 and 1, or -1 when it
	// has none or one that does not parse (the protocol's default is 0.5).
	Priority float64
	// Images are the entry's image:image elements (Google's image
	// sitemap extension), at most 1,000.
	Images []Image
	// News is the entry's news:news element (Google's news sitemap
	// extension), or nil.
	News *News
	// Alternates are the entry's xhtml:link rel="alternate" elements: the
	// page in other languages or regions (Google's hreflang sitemaps), as
	// written: their URLs are not checked, as Loc is.
	Alternates []Alternate
	// Sitemap is the file that lists the entry, when a Walker read it;
	// "" from Parse.
	Sitemap string
}

// Kind tells a page from a sitemap.
type Kind uint8

const (
	URL   Kind = iota // a page: <url> of a urlset, a text line, a feed item
	Index             // a sitemap: <sitemap> of a sitemapindex
)

func (k Kind) String() string {
	if k == Index {
		return "sitemap"
	}
	return "url"
}

// An Image is an image:image of an entry: the image's URL (image:loc).
// Google reads image:loc alone; the other fields are deprecated and not
// kept.
type Image struct {
	Loc string
}

// News is the news:news element of an entry (Google's news sitemaps):
// the publication, the article's publication date and its title.
type News struct {
	Name, Language string // of the news:publication
	Title          string
	Published      time.Time // news:publication_date; zero when it does not parse
	PublishedRaw   string
}

// An Alternate is the page of an entry in another language or region: an
// xhtml:link rel="alternate" with its hreflang ("de", "en-GB",
// "x-default") and href.
type Alternate struct {
	Hreflang, Href string
}
