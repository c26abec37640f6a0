package sitemap_test

import (
	"compress/gzip"
	"io"
	"runtime"
	"testing"

	"github.com/robotsguard/robotsguard/internal/sitemapgen"
	"github.com/robotsguard/robotsguard/sitemap"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// peakHeap parses r and returns the entries read, and the most the heap
// held above what it held before, sampled every 500 entries.
func peakHeap(t *testing.T, r io.Reader) (entries int, peak uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	for _, err := range sitemap.Parse(r) {
		if err != nil {
			t.Fatal(err)
		}
		if entries++; entries%500 == 0 {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base {
				peak = max(peak, ms.HeapAlloc-base)
			}
		}
	}
	return entries, peak
}

// The heap a parse holds does not grow with the file: a 50 MiB sitemap
// (the protocol's limit), plain or gzipped, is read in a few MiB, as a
// 500 KiB one is.
func TestHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100 MiB of XML")
	}
	const bound = 16 << 20 // well below the file's 50 MiB
	small := &countingReader{r: sitemapgen.Reader(sitemapgen.Extensions, 500)}
	_, smallPeak := peakHeap(t, small)
	big := &countingReader{r: sitemapgen.Reader(sitemapgen.Extensions, sitemap.DefaultMaxURLs)}
	n, bigPeak := peakHeap(t, big)
	if n != sitemap.DefaultMaxURLs || big.n < 45<<20 {
		t.Fatalf("read %d entries from %d bytes: the file is not what the test needs", n, big.n)
	}
	t.Logf("peak heap: %d KiB for %d KiB, %d KiB for %d KiB", smallPeak>>10, small.n>>10, bigPeak>>10, big.n>>10)
	if bigPeak > bound {
		t.Errorf("parsing %d MiB held %d MiB of heap, more than %d MiB", big.n>>20, bigPeak>>20, bound>>20)
	}
	pr, pw := io.Pipe()
	go func() {
		zw := gzip.NewWriter(pw)
		_, err := io.Copy(zw, sitemapgen.Reader(sitemapgen.Extensions, sitemap.DefaultMaxURLs))
		if err == nil {
			err = zw.Close()
		}
		pw.CloseWithError(err)
	}()
	n, gzPeak := peakHeap(t, pr)
	t.Logf("gzip: peak heap %d KiB", gzPeak>>10)
	if n != sitemap.DefaultMaxURLs || gzPeak > bound {
		t.Errorf("gzip: %d entries, %d MiB of heap", n, gzPeak>>20)
	}
}
