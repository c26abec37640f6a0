package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/policy"
)

// Defaults of the Walker's budgets.
const (
	DefaultMaxDepth    = 1         // an index lists sitemaps, not indexes (Sitemaps 0.9)
	DefaultMaxFiles    = 1000      // sitemap files read in one walk
	DefaultMaxWalkURLs = 5_000_000 // URLs returned by one walk
)

// maxRobots is the size of a robots.txt read for its Sitemap lines
// (RFC 9309 §2.5: at least 500 KiB).
const maxRobots = 500 << 10

// A Walker reads the sitemaps of a site: those its robots.txt lists
// (Site), or those it is given (Walk), following sitemap indexes. Every
// file is fetched through Client, so that a robotsguard.Transport paces
// the fetches, signs them when it signs requests, and refuses those
// robots.txt disallows.
//
// The zero Walker fetches with http.DefaultClient, which obeys no
// robots.txt: give it a Client whose Transport is a robotsguard.Transport.
// A Walker is safe for concurrent use; each walk is sequential, one file
// at a time, in the order the files list each other (breadth first).
type Walker struct {
	// Client fetches robots.txt files (unless its Transport can take a
	// Snapshot, as a robotsguard.Transport can) and sitemaps. Nil means
	// http.DefaultClient.
	Client *http.Client
	// Parser reads each file: its MaxURLs and MaxBytes bound each file;
	// its Scope is not used (the Walker sets each file's).
	Parser Parser
	// MaxDepth is how deep indexes may list indexes: a sitemap listed by
	// robots.txt or given to Walk is at depth 0, one its index lists at
	// depth 1. A sitemap deeper is not read (ErrDepth). Zero means
	// DefaultMaxDepth (1: an index lists sitemaps, Sitemaps 0.9);
	// negative means indexes are not followed.
	MaxDepth int
	// MaxFiles is how many sitemap files one walk reads; the others are
	// reported with ErrBudget. Zero means DefaultMaxFiles.
	MaxFiles int
	// MaxURLs is how many URLs one walk returns; the walk ends with
	// ErrBudget past it. Zero means DefaultMaxWalkURLs.
	MaxURLs int
}

// Site returns the URLs of the sitemaps that the robots.txt of origin (any
// URL of the site) lists, as the zero Walker with client reads them: see
// Walker.Site.
func Site(ctx context.Context, client *http.Client, origin string) iter.Seq2[Entry, error] {
	return (&Walker{Client: client}).Site(ctx, origin)
}

// Site returns the URLs of the sitemaps that the robots.txt of origin (any
// URL of the site) lists: the pages (Kind URL), each with the file that
// lists it (Entry.Sitemap), in the files' order. Indexes are followed,
// not returned.
//
// A sitemap listed in the robots.txt may list any URL of the site, even
// from another host ("Sitemaps & Cross Submits"); those it reaches
// through indexes keep that grant. Errors are yielded as they come (an
// *Error naming the file, and the entry when it is one), and the walk
// goes on, but for ctx's end and ErrBudget of URLs. A robots.txt that
// lists no sitemap yields ErrNoSitemaps.
func (w *Walker) Site(ctx context.Context, origin string) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		o, err := url.Parse(origin)
		if err != nil || o.Host == "" || (o.Scheme != "http" && o.Scheme != "https") {
			yield(Entry{Priority: -1}, &Error{Loc: origin, Err: ErrInvalidURL})
			return
		}
		robotsURL := (&url.URL{Scheme: o.Scheme, Host: o.Host, Path: "/robots.txt"}).String()
		lines, err := w.robots(ctx, o)
		if err != nil {
			yield(Entry{Priority: -1}, &Error{Sitemap: robotsURL, Err: err})
			return
		}
		if len(lines) == 0 {
			yield(Entry{Priority: -1}, &Error{Sitemap: robotsURL, Err: ErrNoSitemaps})
			return
		}
		w.walk(ctx, lines, Root(o), yield)
	}
}

// Walk returns the URLs of the sitemaps given (absolute URLs), each of
// which may list URLs under its own directory; otherwise as Site.
func (w *Walker) Walk(ctx context.Context, sitemaps ...string) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) { w.walk(ctx, sitemaps, nil, yield) }
}

// snapshotter is a Transport that holds robots.txt files: a
// robotsguard.Transport.
type snapshotter interface {
	Snapshot(context.Context, *url.URL) (*robotsguard.Snapshot, error)
}

// robots returns the Sitemap lines of o's robots.txt: from the Client's
// Transport when it holds the file, else fetched through the Client.
func (w *Walker) robots(ctx context.Context, o *url.URL) ([]string, error) {
	if s, ok := w.client().Transport.(snapshotter); ok {
		snap, err := s.Snapshot(ctx, o)
		if err != nil {
			return nil, err
		}
		if snap.Access == robotsguard.AccessUnreachable {
			return nil, cmpErr(snap.Err, "robots.txt unreachable")
		}
		return snap.Rules.Sitemaps(), nil
	}
	u := &url.URL{Scheme: o.Scheme, Host: o.Host, Path: "/robots.txt"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := w.client().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil // RFC 9309 §2.3.1.3: no file, no Sitemap lines
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobots))
	if err != nil {
		return nil, err
	}
	return policy.Parse(body).Sitemaps(), nil
}

func cmpErr(err error, why string) error {
	if err != nil {
		return err
	}
	return errors.New("robotsguard: " + why)
}

func (w *Walker) client() *http.Client {
	if w.Client != nil {
		return w.Client
	}
	return http.DefaultClient
}

// job is a sitemap to read.
type job struct {
	loc   string
	grant *url.URL // the robots.txt's origin, when it listed the sitemap
	depth int
}

// walk reads the sitemaps of jobs listed in the first files, breadth
// first, and yields their pages.
func (w *Walker) walk(ctx context.Context, first []string, grant *url.URL, yield func(Entry, error) bool) {
	maxDepth, maxFiles, maxURLs := w.MaxDepth, orDefault(w.MaxFiles, DefaultMaxFiles), orDefault(w.MaxURLs, DefaultMaxWalkURLs)
	switch {
	case maxDepth == 0:
		maxDepth = DefaultMaxDepth
	case maxDepth < 0:
		maxDepth = 0 // indexes are read, the sitemaps they list are not
	}
	var queue []job
	seen := map[string]bool{}
	// add queues a sitemap, or says why not.
	add := func(loc string, grant *url.URL, depth int) error {
		u, err := checkLoc(loc)
		if err != nil {
			return err
		}
		key := sitemapKey(u)
		switch {
		case seen[key]:
			return ErrLoop
		case depth > maxDepth:
			return ErrDepth
		case len(seen) >= maxFiles:
			return ErrBudget
		}
		seen[key] = true
		queue = append(queue, job{loc: loc, grant: grant, depth: depth})
		return nil
	}
	for _, loc := range first {
		if err := add(loc, grant, 0); err != nil && !errors.Is(err, ErrLoop) { // a line listed twice is read once
			if !yield(Entry{Priority: -1}, &Error{Loc: loc, Err: err}) {
				return
			}
		}
	}
	urls := 0
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		if err := ctx.Err(); err != nil {
			yield(Entry{Priority: -1}, &Error{Sitemap: j.loc, Err: err})
			return
		}
		more := w.file(ctx, j, yield, func(e Entry) (bool, error) {
			if e.Kind == Index {
				if err := add(e.Loc, j.grant, j.depth+1); err != nil {
					return true, &Error{Sitemap: j.loc, Loc: e.Loc, Err: err}
				}
				return true, nil
			}
			if urls++; urls > maxURLs {
				return false, &Error{Sitemap: j.loc, Err: ErrBudget}
			}
			return true, nil
		})
		if !more {
			return
		}
	}
}

// file reads the sitemap of j and yields its pages; page decides what to
// do with each entry read without error: whether the walk goes on, and
// the error to yield instead of the entry (index entries are not
// yielded). It reports whether the walk goes on.
func (w *Walker) file(ctx context.Context, j job, yield func(Entry, error) bool, page func(Entry) (bool, error)) bool {
	fail := func(err error) bool { return yield(Entry{Priority: -1}, &Error{Sitemap: j.loc, Err: err}) }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.loc, nil)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", ErrInvalidURL, err))
	}
	resp, err := w.client().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && ue.URL == j.loc {
			err = ue.Err // the Error names the sitemap
		}
		return fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("%w %d", ErrStatus, resp.StatusCode))
	}
	p := w.Parser
	p.Scope = []*url.URL{Dir(resp.Request.URL)}
	if j.grant != nil {
		p.Scope = append(p.Scope, j.grant)
	}
	for e, err := range p.Parse(resp.Body) {
		e.Sitemap = j.loc
		var se *Error
		if errors.As(err, &se) {
			se.Sitemap = j.loc
		}
		if err == nil {
			var more bool
			more, err = page(e)
			if !more {
				yield(Entry{Priority: -1}, err)
				return false
			}
			if err == nil && e.Kind == Index {
				continue
			}
		}
		if err != nil {
			e = Entry{Kind: e.Kind, Loc: e.Loc, Sitemap: j.loc, Priority: -1}
		}
		if !yield(e, err) {
			return false
		}
	}
	return true
}

// sitemapKey is the URL of a sitemap as loops are told: scheme and host
// in lower case, the default port and the fragment dropped.
func sitemapKey(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	k := url.URL{Scheme: scheme, Host: canonicalHost(scheme, u.Host), Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	return k.String()
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
