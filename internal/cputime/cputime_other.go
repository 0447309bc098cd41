//go:build !unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU time beside wall time on a shared machine.
package cputime

import "time"

// Process is not measured on this platform; it returns 0.
func Process() time.Duration { return 0 }
