package sitemap

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// text reads a text sitemap (Sitemaps 0.9, "Text file"): one URL a line,
// blank lines skipped. A line longer than the buffer is no URL: it is
// reported, and skipped to its end.
func (rn *run) text(br *bufio.Reader) {
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		long := false
		for errors.Is(err, bufio.ErrBufferFull) {
			long = true
			_, err = br.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, io.EOF) {
			rn.fail(line, rn.readErr(err)) // a line cut short is not read
			return
		}
		if long {
			if !rn.entry(Entry{Priority: -1}, line) {
				return
			}
		} else if b = bytes.TrimSpace(b); len(b) > 0 {
			if !rn.entry(Entry{Priority: -1, Loc: string(b)}, line) {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
