//go:build !unix

package neardup_test

import "time"

// cpuTime cannot read the CPU time here: benchmarks report no cpuMB/s.
func cpuTime() time.Duration { return 0 }
