// Package sitemapgen writes sitemaps of the shapes real sites serve, for
// tests and benchmarks: no large file is kept in the repository.
package sitemapgen

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// Shape is what each <url> of a generated sitemap holds.
type Shape int

const (
	// Plain: loc, lastmod, changefreq and priority (about 250 bytes).
	Plain Shape = iota
	// Extensions: Plain with two images, three hreflang alternates, and
	// news for one URL in ten (about 1,000 bytes: 50,000 URLs make a file just under 50 MiB).
	Extensions
)

// Write writes a urlset of n URLs of shape to w.
func Write(w io.Writer, shape Shape, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` + "\n")
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	freqs := [...]string{"daily", "weekly", "monthly", "hourly"}
	for i := range n {
		path := fmt.Sprintf("/catalog/section-%03d/product-%07d-a-slug-for-a-product-page.html?ref=sitemap&amp;variant=%d", i%997, i, i%7)
		fmt.Fprintf(bw, "  <url>\n    <loc>https://www.example.com%s</loc>\n    <lastmod>%s</lastmod>\n    <changefreq>%s</changefreq>\n    <priority>0.%d</priority>\n",
			path, t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), freqs[i%len(freqs)], 1+i%9)
		if shape == Extensions {
			fmt.Fprintf(bw, "    <image:image><image:loc>https://cdn.example.com/img/%07d-front.jpg</image:loc></image:image>\n    <image:image><image:loc>https://cdn.example.com/img/%07d-back.jpg</image:loc></image:image>\n", i, i)
			for _, l := range [...]string{"de", "fr", "x-default"} {
				fmt.Fprintf(bw, "    <xhtml:link rel=\"alternate\" hreflang=\"%s\" href=\"https://www.example.com/%s%s\"/>\n", l, l, path)
			}
			if i%10 == 0 {
				fmt.Fprintf(bw, "    <news:news><news:publication><news:name>Example News</news:name><news:language>en</news:language></news:publication><news:publication_date>%s</news:publication_date><news:title>Article %d</news:title></news:news>\n",
					t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), i)
			}
		}
		if _, err := bw.WriteString("  </url>\n"); err != nil {
			return err
		}
	}
	bw.WriteString("</urlset>\n")
	return bw.Flush()
}

// Reader returns a reader of Write's output, written as it is read: a
// large sitemap costs no memory of its size.
func Reader(shape Shape, n int) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(Write(pw, shape, n)) }()
	return pr
}
