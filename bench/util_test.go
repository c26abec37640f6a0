package bench

import "runtime"

// memStats reads the total bytes allocated so far.
type memStats struct{ alloc uint64 }

func (m *memStats) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.alloc = ms.TotalAlloc
}
