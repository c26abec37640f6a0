package robotsredis

import (
	"encoding/binary"
	"flag"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// go test -run TestDictionary -train-dict . writes dict1.txt again, from
// the long tail of the shared corpus (the popular files, in robots/, are
// left for measuring it). A dictionary shipped is never changed: entries in
// Redis were deflated with it. A new one is a new format (dict2.txt).
var trainDict = flag.Bool("train-dict", false, "write dict1.txt from ../../shared/corpus/robots-longtail")

// dict1CRC pins the dictionary of format 1.
const dict1CRC = 0x49a8d6a9

func TestDictionary(t *testing.T) {
	if *trainDict {
		files, err := filepath.Glob("../../shared/corpus/robots-longtail/*.txt")
		if err != nil || len(files) == 0 {
			t.Fatalf("no corpus: %v", err)
		}
		var bodies [][]byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, b)
		}
		d := train(bodies, 32<<10)
		if err := os.WriteFile("dict1.txt", d, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("dict1.txt: %d bytes from %d files, CRC-32C %#08x", len(d), len(bodies), crc32.Checksum(d, castagnoli))
		return
	}
	if got := crc32.Checksum([]byte(dict1), castagnoli); got != dict1CRC || len(dict1) > 32<<10 {
		t.Fatalf("dict1.txt changed (CRC-32C %#08x, %d bytes): entries in Redis were deflated with the one shipped", got, len(dict1))
	}
}

// entryVocabulary is what the root's entry encoding puts around a body: the
// caching fields it keeps, and their common values.
var entryVocabulary = []string{
	"Expires", "Pragma", "no-cache", "Age", "Etag", "W/\"", "Last-Modified",
	"Date", "Cache-Control", "public, max-age=", "max-age=86400", " GMT",
}

// train returns a preset dictionary of at most size bytes for robots.txt
// files, as zstd's COVER does (Liao, Petri, Moffat and Wirth, "Effective
// construction of relative Lempel-Ziv dictionaries", WWW 2016): the files
// (their first 16 KiB) are cut into size/96 stretches; from each, the
// segment of 96 bytes whose distinct 8-byte strings are found in the most
// files, those strings then counting for nothing in later segments; the
// segments that score highest last, nearest the data. Then the entry's
// vocabulary, first.
func train(files [][]byte, size int) []byte {
	const d, k = 8, 96
	freq := map[uint64]int32{} // files that hold each d-mer
	var all []byte
	for _, b := range files {
		b = b[:min(len(b), 16<<10)]
		seen := map[uint64]bool{}
		for i := 0; i+d <= len(b); i++ {
			m := binary.LittleEndian.Uint64(b[i:])
			if !seen[m] {
				seen[m] = true
				freq[m]++
			}
		}
		all = append(all, b...)
	}
	voc := strings.Join(entryVocabulary, "")
	type segment struct{ at, score int }
	n := (size - len(voc)) / k
	epoch := len(all) / n
	var segs []segment
	for e := range n {
		lo, hi := e*epoch, min((e+1)*epoch, len(all))
		best := segment{-1, 0}
		count := map[uint64]int{} // the d-mers in the window
		score := 0
		for i := lo; i+d <= hi; i++ {
			m := binary.LittleEndian.Uint64(all[i:])
			if count[m] == 0 {
				score += int(freq[m])
			}
			count[m]++
			if j := i - (k - d) - 1; j >= lo { // out of the window
				o := binary.LittleEndian.Uint64(all[j:])
				if count[o]--; count[o] == 0 {
					score -= int(freq[o])
					delete(count, o)
				}
			}
			if i-(k-d) >= lo && score > best.score {
				best = segment{i - (k - d), score}
			}
		}
		if best.at < 0 {
			continue
		}
		for i := best.at; i+d <= best.at+k; i++ {
			freq[binary.LittleEndian.Uint64(all[i:])] = 0
		}
		segs = append(segs, best)
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].score < segs[j].score })
	out := []byte(voc)
	for _, s := range segs {
		out = append(out, all[s.at:s.at+k]...)
	}
	return out
}
