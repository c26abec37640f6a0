package bench

import (
	"runtime"
	"testing"

	"github.com/robotsguard/robotsguard/policy"
	"github.com/temoto/robotstxt"
)

// BenchmarkRetainedHeap measures the heap that parsed files hold, as a
// cache of them would: retained-bytes/byte is heap per byte of robots.txt.
// For robotsguard, op=parse holds the parsed files and op=parse+match the
// files with one agent's matcher built (matchers are built on first use).
func BenchmarkRetainedHeap(b *testing.B) {
	ss := load(b)
	total := 0
	for _, s := range ss {
		total += len(s.body)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	measure := func(b *testing.B, keep func(*site) any) {
		var held uint64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			h0 := heap()
			b.StartTimer()
			kept := make([]any, len(ss))
			for j, s := range ss {
				kept[j] = keep(s)
			}
			b.StopTimer()
			held += heap() - h0
			runtime.KeepAlive(kept)
			b.StartTimer()
		}
		b.ReportMetric(float64(held)/float64(b.N)/float64(total), "retained-bytes/byte")
	}
	b.Run("op=parse/lib=robotsguard", func(b *testing.B) {
		measure(b, func(s *site) any { return policy.Parse(s.body) })
	})
	b.Run("op=parse+match/lib=robotsguard", func(b *testing.B) {
		measure(b, func(s *site) any {
			r := policy.Parse(s.body)
			r.Allowed("Googlebot", s.urls[0])
			return r
		})
	})
	b.Run("op=parse/lib=temoto", func(b *testing.B) {
		measure(b, func(s *site) any {
			r, _ := robotstxt.FromBytes(s.body)
			return r
		})
	})
}
