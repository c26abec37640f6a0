package bench

// Sitemap parsing: robotsguard's sitemap package beside the two ways Go
// sitemap parsers read a file with encoding/xml. No sitemap parser is
// served by the module proxy this module can use (gopher-parse-sitemap,
// go-sitemap-parser and go-sitemap are not), so the peers are those ways,
// written here:
//
//   - lib=decode: a streaming xml.Decoder whose Token loop decodes each
//     <url> with DecodeElement into a struct (gopher-parse-sitemap's way);
//   - lib=unmarshal: the whole file read, then xml.Unmarshal into a
//     urlset struct (go-sitemap's and go-sitemap-parser's way).
//
// Both parse <lastmod> as RFC 3339, as robotsguard does; neither checks
// URLs, scope or limits, which robotsguard does.
//
//	go test -run '^$' -bench Sitemap -benchmem -benchtime 1x -count 8 | tee sitemap.txt
//	benchstat -col /lib sitemap.txt
//
// On a loaded machine, sec/op counts the time waited for a CPU; cpu-ns/op,
// the CPU time the process used per parse, does not.

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard/internal/sitemapgen"
	"github.com/robotsguard/robotsguard/sitemap"
)

const sitemapURLs = 50_000 // Sitemaps 0.9's limit of one file

var (
	sitemapOnce  sync.Once
	sitemapFiles []sitemapFile
)

type sitemapFile struct {
	name string
	body []byte
	gzip bool
}

func sitemaps() []sitemapFile {
	sitemapOnce.Do(func() {
		var plain, ext, gz bytes.Buffer
		sitemapgen.Write(&plain, sitemapgen.Plain, sitemapURLs)
		sitemapgen.Write(&ext, sitemapgen.Extensions, sitemapURLs)
		zw := gzip.NewWriter(&gz)
		zw.Write(plain.Bytes())
		zw.Close()
		sitemapFiles = []sitemapFile{{"plain", plain.Bytes(), false}, {"gzip", gz.Bytes(), true}, {"extensions", ext.Bytes(), false}}
	})
	return sitemapFiles
}

// lastMod keeps the dates the peers parse, that the compiler may not drop
// the parsing.
var lastMod time.Time

// xmlURL is a <url> as the peers decode it.
type xmlURL struct {
	Loc        string  `xml:"loc"`
	LastMod    string  `xml:"lastmod"`
	ChangeFreq string  `xml:"changefreq"`
	Priority   float64 `xml:"priority"`
}

func peerDecode(r io.Reader) (int, error) {
	d := xml.NewDecoder(r)
	n := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "url" {
			var u xmlURL
			if err := d.DecodeElement(&u, &se); err != nil {
				return n, err
			}
			lastMod, _ = time.Parse(time.RFC3339, u.LastMod)
			n++
		}
	}
}

func peerUnmarshal(r io.Reader) (int, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	var set struct {
		URLs []xmlURL `xml:"url"`
	}
	if err := xml.Unmarshal(body, &set); err != nil {
		return 0, err
	}
	for _, u := range set.URLs {
		lastMod, _ = time.Parse(time.RFC3339, u.LastMod)
	}
	return len(set.URLs), nil
}

func ours(r io.Reader) (int, error) {
	n := 0
	for _, err := range sitemap.Parse(r) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// BenchmarkSitemap reads sitemaps of 50,000 URLs (plain, 13 MiB; gzip;
// with image, hreflang and news extensions, just under 50 MiB); bytes are
// those of the file as served.
func BenchmarkSitemap(b *testing.B) {
	libs := []struct {
		name  string
		parse func(io.Reader) (int, error)
	}{{"robotsguard", ours}, {"decode", peerDecode}, {"unmarshal", peerUnmarshal}}
	for _, f := range sitemaps() {
		for _, lib := range libs {
			b.Run("file="+f.name+"/lib="+lib.name, func(b *testing.B) {
				b.SetBytes(int64(len(f.body)))
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					var r io.Reader = bytes.NewReader(f.body)
					if f.gzip && lib.name != "robotsguard" { // robotsguard tells gzip by itself
						zr, err := gzip.NewReader(r)
						if err != nil {
							b.Fatal(err)
						}
						r = zr
					}
					n, err := lib.parse(r)
					if err != nil || n != sitemapURLs {
						b.Fatalf("%d URLs, %v", n, err)
					}
				}
				// The process's CPU time (parsing and garbage
				// collection), which a shared machine's load does not
				// inflate as it does sec/op.
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// TestSitemapPeersAgree: the peers read the URLs robotsguard reads, so
// that the benchmark compares the same work.
func TestSitemapPeersAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 60 MiB of sitemaps")
	}
	f := sitemaps()[0]
	var want []string
	for e, err := range sitemap.Parse(bytes.NewReader(f.body)) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, e.Loc)
	}
	d := xml.NewDecoder(bytes.NewReader(f.body))
	i := 0
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "url" {
			var u xmlURL
			d.DecodeElement(&u, &se)
			if i >= len(want) || u.Loc != want[i] {
				t.Fatalf("URL %d: decode read %q", i, u.Loc)
			}
			i++
		}
	}
	if i != len(want) {
		t.Errorf("decode read %d URLs, robotsguard %d", i, len(want))
	}
}
