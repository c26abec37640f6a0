package sitemap

import "time"

// W3C Datetime (Sitemaps 0.9, "<lastmod>"), in its six granularities,
// with the slips real files make (no time zone, a space for the "T", a
// zone without its colon); RSS dates are RFC 822 and 1123 ones.
var (
	w3cLayouts = []string{
		time.RFC3339, // seconds, and any fraction of them
		"2006-01-02T15:04Z07:00",
		"2006-01-02",
		"2006-01",
		"2006",
		"2006-01-02T15:04:05",
		"2006-01-02 15:04:05",
		"2006-01-02T15:04:05Z0700",
		"2006-01-02 15:04:05Z07:00",
		"2006-01-02 15:04:05 -0700",
		"2006-01-02T15:04",
	}
	rfcLayouts = []string{
		time.RFC1123Z,
		time.RFC1123,
		"Mon, 2 Jan 2006 15:04:05 -0700",
		"Mon, 2 Jan 2006 15:04:05 MST",
		"2 Jan 2006 15:04:05 -0700",
		"2 Jan 2006 15:04:05 MST",
		time.RFC822Z,
		time.RFC822,
		time.RFC850,
	}
)

// parseDate reads a <lastmod>, a feed's date or a news:publication_date.
// A time without a zone is taken as UTC.
func parseDate(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	layouts := rfcLayouts
	if s[0] >= '0' && s[0] <= '9' && (len(s) == 4 || len(s) > 4 && s[4] == '-') {
		layouts = w3cLayouts
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
