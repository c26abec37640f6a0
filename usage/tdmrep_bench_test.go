package usage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tdmWorstFile is a file of MaxTDMRepRules wildcard rules none of which
// matches tdmWorstURL, so that Rule tries them all.
func tdmWorstFile(b *testing.B) *TDMRepFile {
	var sb strings.Builder
	sb.WriteString("[")
	for i := range MaxTDMRepRules {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"location": "/*a*b*c*%d*.pdf$", "tdm-reservation": 1}`, i)
	}
	sb.WriteString("]")
	f, err := ParseTDMRep([]byte(sb.String()), "")
	if err != nil {
		b.Fatal(err)
	}
	return f
}

var tdmWorstURL = "https://provider.com/" + strings.Repeat("abc/", 50) + "x.html"

func BenchmarkTDMRepRule(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "tdmrep", "sec-tdm-file-example-2.json"))
	if err != nil {
		b.Fatal(err)
	}
	example, err := ParseTDMRep(body, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("example", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			example.Rule("https://provider.com/directory-b/images/photo.jpg")
		}
	})
	worst := tdmWorstFile(b)
	b.Run("worst", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := worst.Rule(tdmWorstURL); ok {
				b.Fatal("matched")
			}
		}
	})
}

func BenchmarkParseTDMRep(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "tdmrep", "sec-tdm-file-example-2.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("example", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := ParseTDMRep(body, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	big := []byte("[" + strings.Repeat(`{"location": "/a/*.pdf", "tdm-reservation": 1},`, MaxTDMRepBytes/47) + "1]")
	b.Run("max", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(MaxTDMRepBytes)
		for b.Loop() {
			if _, err := ParseTDMRep(big, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}
