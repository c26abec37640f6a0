package policy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/internal/ascii"
)

// refSplit is scanner.split written plainly: the comment cut, the text
// trimmed, then the colon searched. The scanner's one-pass split must
// agree with it on every line.
func refSplit(beh *behaviour, b []byte, info *LineInfo) (key, value []byte, ok bool) {
	if i := bytes.IndexByte(b, '#'); i >= 0 {
		info.HasComment = true
		b = b[:i]
	}
	b = ascii.TrimSpace(b)
	info.Text = b
	if len(b) == 0 {
		if info.HasComment {
			info.Comment = true
		} else {
			info.Empty = true
		}
		return nil, nil, false
	}
	sep := bytes.IndexByte(b, ':')
	if sep < 0 {
		if !beh.missingColon {
			return nil, nil, false
		}
		sep = bytes.IndexAny(b, " \t")
		if sep < 0 {
			return nil, nil, false
		}
		if bytes.ContainsAny(ascii.TrimSpace(b[sep:]), " \t") {
			return nil, nil, false
		}
		info.MissingColon = true
	}
	key = ascii.TrimSpace(b[:sep])
	if len(key) == 0 {
		info.MissingColon = false
		return nil, nil, false
	}
	info.HasDirective = true
	return key, ascii.TrimSpace(b[sep+1:]), true
}

// refClassify is scanner.classify written plainly.
func refClassify(beh *behaviour, key []byte) (Kind, bool) {
	if beh.lenientKeys {
		return classifyGoogle(key)
	}
	switch {
	case ascii.EqualFold(key, "user-agent"):
		return KindUserAgent, false
	case ascii.EqualFold(key, "allow"):
		return KindAllow, false
	case ascii.EqualFold(key, "disallow"):
		return KindDisallow, false
	case ascii.EqualFold(key, "sitemap"):
		return KindSitemap, false
	case ascii.EqualFold(key, "site-map"):
		return KindSitemap, true
	}
	return KindOther, false
}

// checkSplit fails when the scanner reads line (without its line break)
// otherwise than refSplit and refClassify do, in any dialect.
func checkSplit(t *testing.T, line []byte) {
	t.Helper()
	for d := range Dialect(len(dialects)) {
		beh := &dialects[d]
		s := scanner{beh: beh}
		var got, want LineInfo
		gk, gv, gok := s.split(line, &got)
		wk, wv, wok := refSplit(beh, line, &want)
		if gok != wok || !bytes.Equal(gk, wk) || !bytes.Equal(gv, wv) || !sameInfo(got, want) {
			t.Fatalf("%v: split(%q) = %q, %q, %v, %+v; want %q, %q, %v, %+v", d, line, gk, gv, gok, got, wk, wv, wok, want)
		}
		if !gok {
			continue
		}
		gkind, gtypo := s.classify(gk)
		wkind, wtypo := refClassify(beh, gk)
		if gkind != wkind || gtypo != wtypo {
			t.Fatalf("%v: classify(%q) = %v, %v; want %v, %v", d, gk, gkind, gtypo, wkind, wtypo)
		}
	}
}

func sameInfo(a, b LineInfo) bool {
	return bytes.Equal(a.Text, b.Text) && a.Line == b.Line && a.Kind == b.Kind && a.Empty == b.Empty && a.Comment == b.Comment &&
		a.HasComment == b.HasComment && a.HasDirective == b.HasDirective && a.Typo == b.Typo && a.TooLong == b.TooLong &&
		a.MissingColon == b.MissingColon
}

// everyByteEverywhere calls check with s with every byte inserted at
// every place, and put in place of the byte there.
func everyByteEverywhere(s string, check func([]byte)) {
	for at := range len(s) + 1 {
		for c := range 256 {
			b := slices.Insert([]byte(s), at, byte(c))
			check(b)
			b[at] = byte(c)
			check(b[:len(s)])
		}
	}
}

// corpusBodies returns the files of the corpus subset.
func corpusBodies(t *testing.T) [][]byte {
	names, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*.txt"))
	if len(names) == 0 {
		t.Fatal("no robots.txt files in testdata/corpus")
	}
	var bodies [][]byte
	for _, n := range names {
		body, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	return bodies
}

// TestSplitBytes puts every byte at every place of lines around a key,
// a colon, a value and a comment.
func TestSplitBytes(t *testing.T) {
	for _, line := range []string{
		"Disallow: /a", " user-agent : x # c", "allow:", "site-map:x", "Sitemap :  https://a/b ", "a b", "#:x", "k  v",
	} {
		everyByteEverywhere(line, func(b []byte) { checkSplit(t, b) })
	}
}

func TestSplitCases(t *testing.T) {
	for _, line := range []string{
		"", " ", "\t\v\f", "#", " # x", ":", " : ", ":x", "x:", "x :y", "Disallow:/a#b:c", "Disallow /a",
		"Disallow\t/a", "Disallow \v/a", "Disallow\v /a", "user agent x", "USER-AGENT:*", "AlLoW: /", "sItE-MaP: x",
		"Crawl-delay: 1", "disallow\x00: /", "sitemaps: x", "user-agents: x", "disallows: /", "allo: /",
	} {
		checkSplit(t, []byte(line))
	}
}

// TestSplitCorpus reads every line of the corpus subset both ways.
func TestSplitCorpus(t *testing.T) {
	for _, s := range corpusBodies(t) {
		for _, line := range strings.FieldsFunc(string(s), func(r rune) bool { return r == '\n' || r == '\r' }) {
			checkSplit(t, []byte(line))
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, line := range []string{"Disallow: /a # c", "user-agent:*", "a b", " # x", "Sitemap: https://a/b:1"} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkSplit(t, line)
	})
}

// recorder records the directives of a Scan, as text.
type recorder struct{ out []string }

func (r *recorder) add(kind string, line int, vs ...[]byte) {
	r.out = append(r.out, fmt.Sprintf("%d %s %q", line, kind, vs))
}
func (r *recorder) UserAgent(line int, v []byte)     { r.add("user-agent", line, v) }
func (r *recorder) Allow(line int, v []byte)         { r.add("allow", line, v) }
func (r *recorder) Disallow(line int, v []byte)      { r.add("disallow", line, v) }
func (r *recorder) Sitemap(line int, v []byte)       { r.add("sitemap", line, v) }
func (r *recorder) Other(line int, key, v []byte)    { r.add("other", line, key, v) }
func (r *recorder) End(size int, truncated bool)     { r.add(fmt.Sprint("end ", size, truncated), 0) }
func (r *lineRecorder) Line(info LineInfo)           {}
func (r *lineRecorder) End(size int, truncated bool) { r.recorder.End(size, truncated) }

// lineRecorder is a recorder that is a LineHandler, which Scan reads
// line by line (scanner.line).
type lineRecorder struct{ recorder }

// checkScan fails when Scan calls a plain Handler (which it may read
// with scanner.directive) otherwise than a LineHandler, in any dialect.
func checkScan(t *testing.T, body []byte) {
	t.Helper()
	for d := range Dialect(len(dialects)) {
		p := Parser{Dialect: d}
		var plain recorder
		var lines lineRecorder
		p.Scan(body, &plain)
		p.Scan(body, &lines)
		if !slices.Equal(plain.out, lines.out) {
			t.Fatalf("%v: Scan(%q) calls a Handler\n%q\nand a LineHandler\n%q", d, body, plain.out, lines.out)
		}
	}
}

func TestScanBytes(t *testing.T) {
	for _, body := range []string{
		"User-agent: *\nDisallow: /a # c\r\nAllow:/b\rsitemap : x\n\nCrawl-delay: 1\n",
		" user-agent : a#b\n#:x\n:y\nk  v\n a : \n",
		"DisAllow:\nuser-AGENT:#\nALLOW: /x y\n", // keys that end at the colon (see scanner.directive)
	} {
		everyByteEverywhere(body, func(b []byte) { checkScan(t, b) })
	}
}

// TestScanCorpus reads the corpus subset both ways.
func TestScanCorpus(t *testing.T) {
	for _, body := range corpusBodies(t) {
		checkScan(t, body)
	}
}

func FuzzScan(f *testing.F) {
	for _, body := range []string{"User-agent: *\nDisallow: /a # c\r\nAllow:/b\rsitemap : x\n", "\xef\xbb\xbfa:b", "a b\n\x00:c"} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkScan(t, body)
	})
}
