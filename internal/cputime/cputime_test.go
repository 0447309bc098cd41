package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcess burns CPU and expects the process's CPU time to grow, where
// it is read.
func TestProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("not measured here")
	}
	before, start := Process(), time.Now()
	x := uint64(1)
	for Process() <= before {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("CPU time stayed at %v over 5 s of work", before)
		}
		for range 1 << 20 {
			x = x*6364136223846793005 + 1
		}
	}
	if x == 0 {
		t.Log(x) // keeps the loop
	}
}
