package main

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestBenchBuildInfo checks the build line every bench report starts
// with: the Go version, the GOAMD64 level, the revision and the CPU
// model, each "unknown" rather than empty where it cannot be known.
func TestBenchBuildInfo(t *testing.T) {
	b := benchBuildInfo()
	if b.GoVersion != runtime.Version() || b.GOAMD64 == "" || b.Revision == "" || b.CPU == "" {
		t.Fatalf("%+v: a field is empty or the Go version is not %s", b, runtime.Version())
	}
	if runtime.GOARCH == "amd64" && !strings.HasPrefix(b.GOAMD64, "v") && b.GOAMD64 != "unknown" {
		t.Errorf("GOAMD64 %q, want v1 to v4 or unknown", b.GOAMD64)
	}
	if _, err := os.Stat("/proc/cpuinfo"); err == nil && runtime.GOARCH == "amd64" && b.CPU == "unknown" {
		t.Errorf("no CPU model from a readable /proc/cpuinfo")
	}
	want := "build: " + b.GoVersion + ", GOAMD64 " + b.GOAMD64 + ", revision " + b.Revision
	if line := b.line(); !strings.HasPrefix(line, want) || !strings.HasSuffix(line, ", cpu "+b.CPU) {
		t.Errorf("line %q, want %q ... cpu %s", line, want, b.CPU)
	}
	b = benchBuild{GoVersion: "go1.0", GOAMD64: "v3", Revision: "abc", Modified: true, CPU: "X"}
	if got, want := b.line(), "build: go1.0, GOAMD64 v3, revision abc (modified), cpu X"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}
