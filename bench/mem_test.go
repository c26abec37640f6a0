package bench

import (
	"runtime"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// TestRetainedMemory reports the heap held by parsed files, and by parsed
// files with one agent's matcher built, over the corpus.
func TestRetainedMemory(t *testing.T) {
	ss := load(nil)
	total := 0
	for _, s := range ss {
		total += len(s.body)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	h0 := heap()
	rs := make([]*policy.Robots, len(ss))
	for i, s := range ss {
		rs[i] = policy.Parse(s.body)
	}
	h1 := heap()
	for i, s := range ss {
		rs[i].Allowed("Googlebot", s.urls[0])
	}
	h2 := heap()
	t.Logf("%d files, %d bytes: parsed %.2f bytes/byte, with Googlebot matcher %.2f bytes/byte",
		len(ss), total, float64(h1-h0)/float64(total), float64(h2-h0)/float64(total))
	runtime.KeepAlive(rs)
}
