package robotsguard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Answers to a robots.txt request that are not a robots.txt: a bot
// challenge (Anubis, a CDN's challenge page), served with status 200 or
// 401, 403, 429 or 503, and an HTML page (a site's page or error page
// served for every path).
//
// RFC 9309 and Google read such answers by their status alone. RFC 9309
// §2.3.1.1: a successful download is parsed as the file, and a page with
// no rules allows everything; §2.3.1.3: a 4xx status means the file is
// unavailable, and everything may be crawled. Google reads a 2xx HTML page
// as a file whose lines it does not recognise (no rules: everything
// allowed), and a 4xx but 429 as no file (everything allowed). Read that
// way, a challenge lets a crawler crawl the whole site it guards, which is
// the one thing the site asked it not to do. So the Transport reads a
// recognised challenge, whatever its status, as a failed fetch: the file
// is unreachable (RFC 9309 §2.3.1.4: nothing may be crawled for now, a
// cached copy stands in, the fetch is tried again after a back-off), and
// the error is a *NotRobotsTxtError that names the challenge. Recognising
// it is conservative: a header field that a vendor documents as marking
// its challenges (Cloudflare's "cf-mitigated: challenge", AWS WAF's
// "x-amzn-waf-action: challenge" or "captcha"), or an HTML body (of a 2xx,
// 401 or 403 answer) with no robots.txt line and a challenge's marks
// (Anubis's "/.within.website/" paths and anubis_ ids, Cloudflare's
// "/cdn-cgi/challenge-platform/" and "_cf_chl_opt", DataDome's
// "captcha-delivery.com"). An HTML page with no robots.txt line and no such
// mark is read as RFC 9309 and Google read it (no rules), and
// FetchEvent.Warning says that the answer was not a robots.txt.

// ErrNotRobotsTxt is the error of an answer to a robots.txt request that
// is not a robots.txt: errors.Is(err, ErrNotRobotsTxt) holds for every
// *NotRobotsTxtError.
var ErrNotRobotsTxt = errors.New("robotsguard: the answer is not a robots.txt")

// A NotRobotsTxtError is an answer to a robots.txt request that is not a
// robots.txt: a bot challenge (the fetch fails: a FetchError, which names
// the URL and status, wraps it), or an HTML page with no robots.txt line
// (read as no rules, and reported in FetchEvent.Warning).
type NotRobotsTxtError struct {
	URL    string
	Status int
	// Challenge names the challenge recognised and how, such as
	// "Anubis (/.within.website/)" or "Cloudflare (cf-mitigated:
	// challenge)"; "" for an HTML page that is not one.
	Challenge string
}

func (e *NotRobotsTxtError) Error() string {
	if e.Challenge != "" {
		return "robotsguard: not a robots.txt but a bot challenge, " + e.Challenge + ": read as unreachable"
	}
	return fmt.Sprintf("robotsguard: %s: status %d: not a robots.txt but an HTML page with no robots.txt line: read as no rules", e.URL, e.Status)
}

// Is reports whether target is ErrNotRobotsTxt.
func (e *NotRobotsTxtError) Is(target error) bool { return target == ErrNotRobotsTxt }

// challengePeek is how much of a 401 or 403 HTML answer's body is read
// for a challenge's marks.
const challengePeek = 32 << 10

// challengeHeader names the challenge the header fields of an answer
// mark, or returns "".
func challengeHeader(h http.Header) string {
	if strings.EqualFold(strings.TrimSpace(h.Get("Cf-Mitigated")), "challenge") {
		return "Cloudflare (cf-mitigated: challenge)"
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Amzn-Waf-Action"))) {
	case "challenge", "captcha":
		return "AWS WAF (x-amzn-waf-action: " + strings.ToLower(strings.TrimSpace(h.Get("X-Amzn-Waf-Action"))) + ")"
	}
	return ""
}

// challengeMarks are the marks of challenge pages, lower-case, and what
// they name.
var challengeMarks = []struct{ mark, name string }{
	{"/.within.website/", "Anubis (/.within.website/)"},
	{`id="anubis_`, "Anubis (anubis_ ids)"},
	{"/cdn-cgi/challenge-platform/", "Cloudflare (/cdn-cgi/challenge-platform/)"},
	{"_cf_chl_opt", "Cloudflare (_cf_chl_opt)"},
	{"captcha-delivery.com", "DataDome (captcha-delivery.com)"},
}

// challengeBody names the challenge an HTML body holds the marks of, or
// returns "": only a body with no robots.txt line can be one.
func challengeBody(body []byte) string {
	if hasRobotsLine(body) {
		return ""
	}
	lower := bytes.ToLower(body) // once, of an HTML answer with no rules
	for _, m := range challengeMarks {
		if bytes.Contains(lower, []byte(m.mark)) {
			return m.name
		}
	}
	return ""
}

// htmlAnswer reports whether an answer's Content-Type is HTML.
// It allocates nothing: every robots.txt answer is asked.
func htmlAnswer(h http.Header) bool {
	mt, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	mt = strings.TrimSpace(mt)
	return strings.EqualFold(mt, "text/html") || strings.EqualFold(mt, "application/xhtml+xml")
}

// robotsKeys are the keys of the lines that make a body a robots.txt.
var robotsKeys = []string{"user-agent", "allow", "disallow", "sitemap"}

// hasRobotsLine reports whether body holds a line a robots.txt parser
// recognises as a rule, a group's start or a sitemap: a key of robotsKeys,
// ignoring case, then optional blanks and a colon, at a line's start
// (after blanks).
func hasRobotsLine(body []byte) bool {
	for len(body) > 0 {
		line := body
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		line = bytes.TrimLeft(line, " \t\ufeff")
		for _, k := range robotsKeys {
			if len(line) > len(k) && bytes.EqualFold(line[:len(k)], []byte(k)) {
				if rest := bytes.TrimLeft(line[len(k):], " \t"); len(rest) > 0 && rest[0] == ':' {
					return true
				}
			}
		}
	}
	return false
}

// notRobotsTxt checks an answer to a robots.txt request (or to a site
// file's) for a challenge before its body is read: it returns
// the *NotRobotsTxtError of a challenge its header fields mark, or, for a
// 401 or 403 HTML answer, that the first challengePeek bytes of its body
// hold the marks of.
func notRobotsTxt(resp *http.Response, target fetchTarget) *NotRobotsTxtError {
	ch := challengeHeader(resp.Header)
	if ch == "" && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && htmlAnswer(resp.Header) {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, challengePeek))
		ch = challengeBody(b)
	}
	if ch == "" {
		return nil
	}
	return &NotRobotsTxtError{URL: target.String(), Status: resp.StatusCode, Challenge: ch}
}

// htmlNotRobotsTxt checks the body of a 2xx answer that is HTML: the
// *NotRobotsTxtError of a challenge, or of a page with no robots.txt line,
// or nil when the body has one.
func htmlNotRobotsTxt(resp *http.Response, body []byte, target fetchTarget) *NotRobotsTxtError {
	if !htmlAnswer(resp.Header) || hasRobotsLine(body) {
		return nil
	}
	return &NotRobotsTxtError{URL: target.String(), Status: resp.StatusCode, Challenge: challengeBody(body)}
}
