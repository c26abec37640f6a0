package main

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// colorWanted reports whether output to w is coloured: only on a terminal,
// never when NO_COLOR is set or TERM is dumb.
func colorWanted(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" { // https://no-color.org: set and not empty
		return false
	}
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// ANSI colours.
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	faint  = "\x1b[2m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

// paint returns s in colour c when e colours its output.
func (e *env) paint(c, s string) string {
	if !e.color || s == "" {
		return s
	}
	return c + s + reset
}

// table writes aligned columns. Colour codes are zero-width for the
// terminal but not for tabwriter, so cells are padded before they are
// painted: a table takes its cells plain and a colour per cell.
type table struct {
	rows   [][]string
	colors [][]string
}

func (t *table) add(cells ...string) {
	t.rows = append(t.rows, cells)
	t.colors = append(t.colors, nil)
}

// addc adds a row whose first cell is painted c.
func (t *table) addc(c string, cells ...string) {
	t.rows = append(t.rows, cells)
	t.colors = append(t.colors, []string{c})
}

// write pads every column but the last to its widest cell, two spaces
// apart.
func (t *table) write(e *env, w io.Writer) {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(r)-1 {
				break
			}
			for len(width) <= i {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for ri, r := range t.rows {
		b.Reset()
		for i, c := range r {
			cell := c
			if i < len(r)-1 {
				cell += strings.Repeat(" ", width[i]-len([]rune(c))+2)
			}
			if i < len(t.colors[ri]) && t.colors[ri][i] != "" {
				cell = e.paint(t.colors[ri][i], c) + cell[len(c):]
			}
			b.WriteString(cell)
		}
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
}

// kv writes "key  value" lines aligned on the keys.
func kv(w io.Writer, pairs ...string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i := 0; i+1 < len(pairs); i += 2 {
		io.WriteString(tw, pairs[i]+"\t"+pairs[i+1]+"\n")
	}
	tw.Flush()
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
