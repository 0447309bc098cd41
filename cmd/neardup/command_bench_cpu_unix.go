//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used so
// far, for benchmarks that report CPU time beside wall time on a shared
// machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
