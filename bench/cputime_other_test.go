//go:build !unix

package bench

import "time"

// cpuTime is zero where getrusage is not: cpu-ns/op reads 0.
func cpuTime() time.Duration { return 0 }
