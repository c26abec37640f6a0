package sitemap_test

import (
	"bytes"
	"compress/gzip"
	"sync"
	"testing"

	"github.com/robotsguard/robotsguard/internal/sitemapgen"
	"github.com/robotsguard/robotsguard/sitemap"
)

var (
	benchOnce  sync.Once
	benchFiles []benchFile
)

type benchFile struct {
	name string
	body []byte
}

// files returns the sitemaps of 50,000 URLs (the protocol's limit) the
// benchmarks read: plain, gzipped, with extensions (just under 50 MiB),
// and as text.
func files(b *testing.B) []benchFile {
	benchOnce.Do(func() {
		var plain, ext, gz, text bytes.Buffer
		sitemapgen.Write(&plain, sitemapgen.Plain, sitemap.DefaultMaxURLs)
		sitemapgen.Write(&ext, sitemapgen.Extensions, sitemap.DefaultMaxURLs)
		zw := gzip.NewWriter(&gz)
		zw.Write(plain.Bytes())
		zw.Close()
		for e := range sitemap.Parse(bytes.NewReader(plain.Bytes())) {
			text.WriteString(e.Loc + "\n")
		}
		benchFiles = []benchFile{{"plain", plain.Bytes()}, {"gzip", gz.Bytes()}, {"extensions", ext.Bytes()}, {"text", text.Bytes()}}
	})
	return benchFiles
}

// BenchmarkParse reads sitemaps of 50,000 URLs; bytes are those of the
// file as served (compressed for gzip).
func BenchmarkParse(b *testing.B) {
	for _, f := range files(b) {
		b.Run("file="+f.name, func(b *testing.B) {
			b.SetBytes(int64(len(f.body)))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, err := range sitemap.Parse(bytes.NewReader(f.body)) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != sitemap.DefaultMaxURLs {
					b.Fatalf("%d entries", n)
				}
			}
		})
	}
}
