package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
	"github.com/robotsguard/robotsguard/sitemap"
)

// sitemapURL is an entry of sitemaps's -json output.
type sitemapURL struct {
	Loc        string      `json:"loc"`
	Kind       string      `json:"kind,omitempty"` // "sitemap" for an index's entry read from a file
	LastMod    string      `json:"lastmod,omitempty"`
	LastModRaw string      `json:"lastmod_raw,omitempty"` // when it does not parse
	ChangeFreq string      `json:"changefreq,omitempty"`
	Priority   *float64    `json:"priority,omitempty"`
	Images     []string    `json:"images,omitempty"`
	Alternates []alternate `json:"alternates,omitempty"`
	News       *news       `json:"news,omitempty"`
	Sitemap    string      `json:"sitemap,omitempty"` // the file that lists it
}

type alternate struct {
	Hreflang string `json:"hreflang"`
	Href     string `json:"href"`
}

type news struct {
	Name      string `json:"name,omitempty"`
	Language  string `json:"language,omitempty"`
	Title     string `json:"title,omitempty"`
	Published string `json:"published,omitempty"` // as written
}

// sitemapError is an error of sitemaps's -json output.
type sitemapError struct {
	Sitemap string `json:"sitemap,omitempty"`
	Loc     string `json:"loc,omitempty"`
	Line    int    `json:"line,omitempty"`
	Error   string `json:"error"`
}

// maxJSONErrors is how many errors -json lists; errors_total counts all.
const maxJSONErrors = 1000

func cmdSitemaps(e *env, args []string) (int, error) {
	fs := newFlags(e, "sitemaps")
	agent := fs.String("agent", "*", "fetch as the crawler `NAME`, a product token or a whole User-Agent (* follows the \"*\" group, and sends robotsguard-cli/VERSION)")
	jsonOut := fs.Bool("json", false, "write JSON")
	limit := fs.Int("limit", 0, "list at most `N` URLs (0: all)")
	if err := e.parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := flagAfterArgs(fs.Args()); err != nil {
		return 0, err
	}
	switch {
	case *agent == "":
		return 0, usagef("-agent is empty: name a crawler, or * for none")
	case *limit < 0:
		return 0, usagef("-limit %d: give a count, or 0 for all", *limit)
	case fs.NArg() == 0:
		return 0, usagef("sitemaps takes a site's URL, a sitemap's URL or a file")
	}
	w := &sitemap.Walker{Client: sitemapClient(*agent)}
	out := newSitemapWriter(e, *jsonOut)
	unreadable := false
	for _, arg := range fs.Args() {
		var seq iter.Seq2[sitemap.Entry, error]
		var file io.Closer
		switch {
		case isURL(arg):
			u, err := url.Parse(arg)
			if err != nil {
				return 0, usagef("%v", err)
			}
			if u.Path == "" || u.Path == "/" || u.Path == "/robots.txt" {
				seq = w.Site(e.ctx, arg) // a site: the sitemaps its robots.txt lists
			} else {
				seq = w.Walk(e.ctx, arg)
			}
		default:
			f, err := os.Open(arg)
			if err != nil {
				out.problem(&failure{err})
				unreadable = true
				continue
			}
			seq, file = sitemap.Parse(f), f
		}
		for en, err := range seq {
			if file != nil { // name the file, as a Walker names a sitemap
				var se *sitemap.Error
				if errors.As(err, &se) {
					se.Sitemap = arg
				}
				en.Sitemap = arg
			}
			if err != nil {
				out.problem(err)
				continue
			}
			out.entry(en)
			if *limit > 0 && out.count >= *limit {
				break
			}
		}
		if file != nil {
			file.Close()
		}
		if *limit > 0 && out.count >= *limit {
			break
		}
	}
	if err := out.close(); err != nil {
		return 0, err
	}
	switch {
	case unreadable:
		return exitFailure, nil
	case out.count == 0:
		return exitVerdict, nil
	}
	return exitOK, nil
}

// sitemapClient returns the client that fetches robots.txt files and
// sitemaps as agent, through a robotsguard.Transport: paced, and refused
// what robots.txt disallows.
func sitemapClient(agent string) *http.Client {
	l := newLive(agent, policy.Parser{}, false)
	l.rec.quiet = true
	if agent == "*" {
		return &http.Client{Transport: starAgent{l.t}}
	}
	return &http.Client{Transport: l.t}
}

// starAgent sends requests that carry no User-Agent with an empty one,
// which follows the "*" group (see live.request); it takes Snapshots as
// its Transport does.
type starAgent struct{ *robotsguard.Transport }

func (s starAgent) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, ok := req.Header["User-Agent"]; !ok {
		req = req.Clone(req.Context())
		req.Header["User-Agent"] = []string{""}
	}
	return s.Transport.RoundTrip(req)
}

// sitemapWriter writes the entries as they come: a list of URLs, or one
// JSON object whose urls are written one by one.
type sitemapWriter struct {
	e        *env
	json     bool
	count    int
	errs     []sitemapError
	nerrs    int
	sitemaps map[string]bool
	err      error
}

func newSitemapWriter(e *env, jsonOut bool) *sitemapWriter {
	w := &sitemapWriter{e: e, json: jsonOut, sitemaps: map[string]bool{}}
	if jsonOut {
		w.write("{\n  \"urls\": [")
	}
	return w
}

func (w *sitemapWriter) write(s string) {
	if w.err == nil {
		_, w.err = io.WriteString(w.e.stdout, s)
	}
}

func (w *sitemapWriter) entry(en sitemap.Entry) {
	w.count++
	if en.Sitemap != "" {
		w.sitemaps[en.Sitemap] = true
	}
	lastmod := ""
	if !en.LastMod.IsZero() {
		lastmod = en.LastMod.UTC().Format(time.RFC3339)
	}
	if !w.json {
		col := lastmod
		if col == "" {
			col = "-"
		}
		line := fmt.Sprintf("%-20s  %s", col, en.Loc)
		if en.Kind == sitemap.Index {
			line += w.e.paint(faint, "  (sitemap)")
		}
		w.write(line + "\n")
		return
	}
	u := sitemapURL{Loc: en.Loc, LastMod: lastmod, ChangeFreq: en.ChangeFreq, Sitemap: en.Sitemap}
	for _, a := range en.Alternates {
		u.Alternates = append(u.Alternates, alternate(a))
	}
	if n := en.News; n != nil {
		u.News = &news{Name: n.Name, Language: n.Language, Title: n.Title, Published: n.PublishedRaw}
	}
	if en.Kind == sitemap.Index {
		u.Kind = en.Kind.String()
	}
	if lastmod == "" {
		u.LastModRaw = en.LastModRaw
	}
	if en.Priority >= 0 {
		u.Priority = &en.Priority
	}
	for _, im := range en.Images {
		u.Images = append(u.Images, im.Loc)
	}
	b, err := json.MarshalIndent(u, "    ", "  ")
	if err != nil {
		w.err = err
		return
	}
	if w.count > 1 {
		w.write(",")
	}
	w.write("\n    " + string(b))
}

// problem reports an error: on standard error as it comes, and in the
// JSON output.
func (w *sitemapWriter) problem(err error) {
	w.nerrs++
	fmt.Fprintf(w.e.stderr, "robotsguard sitemaps: %s\n", unprefixed(err))
	if !w.json || len(w.errs) >= maxJSONErrors {
		return
	}
	se := sitemapError{Error: err.Error()}
	var e *sitemap.Error
	if errors.As(err, &e) {
		se.Sitemap, se.Loc, se.Line = e.Sitemap, e.Loc, e.Line
	}
	w.errs = append(w.errs, se)
}

// close ends the output: the JSON object, or a summary on standard
// error.
func (w *sitemapWriter) close() error {
	if !w.json {
		fmt.Fprintf(w.e.stderr, "%s from %s, %s\n", count(w.count, "URL"), count(len(w.sitemaps), "sitemap"), count(w.nerrs, "error"))
		return w.err
	}
	if w.count > 0 {
		w.write("\n  ")
	}
	w.write("],\n  \"count\": " + strconv.Itoa(w.count) + ",\n  \"sitemaps\": " + strconv.Itoa(len(w.sitemaps)) + ",\n  \"errors\": ")
	if w.errs == nil {
		w.errs = []sitemapError{}
	}
	b, err := json.MarshalIndent(w.errs, "  ", "  ")
	if err != nil {
		return err
	}
	w.write(string(b) + ",\n  \"errors_total\": " + strconv.Itoa(w.nerrs) + "\n}\n")
	return w.err
}
