// Package sitemap reads the sitemaps a site lists in its robots.txt
// (RFC 9309 §2.2.4; Google's robots.txt specification, "sitemap"), as
// the Sitemaps protocol 0.9 (sitemaps.org) defines them, and fetches
// them as a crawler's other requests are: through an http.Client whose
// Transport is a robotsguard.Transport.
//
//	client := &http.Client{Transport: &robotsguard.Transport{UserAgent: "FooBot/1.0"}}
//	for e, err := range sitemap.Site(ctx, client, "https://example.com") {
//		if err != nil {
//			log.Print(err) // a sitemap or an entry that could not be read: the walk goes on
//			continue
//		}
//		queue(e.Loc, e.LastMod)
//	}
//
// Parse reads one file; a Walker walks a site's sitemaps (Site) or given
// ones (Walk), following sitemap indexes.
//
// # Formats
//
// Parse reads XML sitemaps (a urlset of <url> entries, or a sitemapindex
// of <sitemap> entries), text sitemaps (one URL a line), RSS 2.0 and 1.0
// and Atom 1.0 and 0.3 feeds (Sitemaps 0.9, "Other Sitemap formats"),
// each compressed with gzip or not (told by the content, not the name:
// a server may have decoded a sitemap.xml.gz already). Of Google's
// extensions, it keeps image:loc (Entry.Images), news:news (Entry.News)
// and hreflang alternates (Entry.Alternates).
//
// Files are read as they arrive, token by token (encoding/xml's
// RawToken, or a line at a time): memory does not grow with a file's
// size, and a file of the protocol's 50 MiB is read in about 4 MiB of
// heap. Reading is lenient where real files are broken (byte order
// marks, unescaped "&", HTML entities, elements of a wrong or missing
// namespace, dates that do not parse) and strict with URLs: an entry
// whose URL is not absolute http(s) is reported, not returned.
//
// # Limits
//
// Each file is bounded by Sitemaps 0.9, "Sitemap file location": 50,000
// entries and 50 MiB uncompressed (Parser.MaxURLs, Parser.MaxBytes). A
// gzip file is inflated no further than MaxBytes, so that a gzip bomb
// costs no memory and bounded time; an element's text or a line past
// 64 KiB ends the file. A walk reads at most Walker.MaxFiles files and
// returns at most Walker.MaxURLs URLs, follows indexes Walker.MaxDepth
// deep (an index listing indexes is not read further by default: Sitemaps
// 0.9, "Using Sitemap index files"), and reads each sitemap once (an index
// that lists itself, or two that list each other).
//
// # Scope
//
// A sitemap may list the URLs under its own directory, on its own
// scheme, host and port (Sitemaps 0.9, "Sitemap file location"): the
// sitemap at https://example.com/catalog/sitemap.xml lists URLs starting
// with https://example.com/catalog/. A robots.txt that lists a sitemap
// vouches for it: the sitemap may list any URL of the robots.txt's
// origin, wherever the sitemap is (Sitemaps 0.9, "Sitemaps & Cross
// Submits"), and so may the sitemaps its index lists. A URL out of scope
// is reported (ErrOutOfScope) and not returned.
//
// # A sitemap that robots.txt disallows
//
// The readings differ. Google's robots.txt specification says Sitemap
// lines "may be followed by all crawlers, provided it is not disallowed":
// a disallowed sitemap is not fetched. Sitemaps 0.9 says nothing of it;
// listing a sitemap in robots.txt submits it, and one may read the
// listing as leave to fetch it whatever the rules say. This package
// follows Google: sitemaps are fetched through the Client, and a
// robotsguard.Transport refuses a disallowed one before it leaves (the
// error matches robotsguard.ErrDisallowed); the walk goes on with the
// others. The URLs a sitemap lists are returned whether robots.txt
// allows them or not: a listing is no permission, and the Transport
// decides each request the crawler then sends.
//
// # Errors
//
// Errors are *Error values that name the file and, for an entry, its URL,
// and match one of the package's sentinels with errors.Is: ErrInvalidURL
// and ErrOutOfScope for entries; ErrMalformed, ErrNotSitemap,
// ErrTooManyURLs, ErrTooLarge and ErrStatus for files; ErrDepth, ErrLoop,
// ErrBudget and ErrNoSitemaps for a walk; or a fetch's own error (for
// robotsguard.ErrDisallowed).
package sitemap
