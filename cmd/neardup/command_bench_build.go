package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// benchBuild identifies the build and the machine a bench report comes
// from, so that reports of different builds are not compared unawares.
// Every bench report prints it first (line) and every JSON report holds
// its fields.
type benchBuild struct {
	GoVersion string `json:"go_version"`
	// GOAMD64 is the amd64 microarchitecture level the binary was built
	// for (v1 to v4), "unknown" where the build does not say, or "n/a" on
	// other architectures.
	GOAMD64 string `json:"goamd64"`
	// Revision is the commit of the source built, "unknown" where the
	// build does not say (go run, go test, a build outside the repository);
	// Modified is set when the working tree had changes.
	Revision string `json:"vcs_revision"`
	Modified bool   `json:"vcs_modified,omitempty"`
	// CPU is the processor's model name from /proc/cpuinfo, "unknown"
	// where it cannot be read.
	CPU string `json:"cpu_model"`
}

// benchBuildInfo returns the benchBuild of this process, read once.
var benchBuildInfo = sync.OnceValue(func() benchBuild {
	b := benchBuild{GoVersion: runtime.Version(), GOAMD64: "unknown", Revision: "unknown", CPU: cpuModel()}
	if runtime.GOARCH != "amd64" {
		b.GOAMD64 = "n/a"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "GOAMD64":
				if s.Value != "" {
					b.GOAMD64 = s.Value
				}
			case "vcs.revision":
				if s.Value != "" {
					b.Revision = s.Value
				}
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
})

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(name) == "model name" {
			if v := strings.Join(strings.Fields(value), " "); v != "" {
				return v
			}
		}
	}
	return "unknown"
}

// line returns the build as the one line a text report starts with.
func (b benchBuild) line() string {
	rev := b.Revision
	if b.Modified {
		rev += " (modified)"
	}
	return fmt.Sprintf("build: %s, GOAMD64 %s, revision %s, cpu %s", b.GoVersion, b.GOAMD64, rev, b.CPU)
}

// benchContext returns cmd's context, cancelled when the process receives
// SIGINT or SIGTERM (see notifyInterrupt), and the function that stops
// watching for them. A bench command stops its load through it and
// returns normally, so that its temporary stores are removed, its CPU
// profile is flushed and what it measured is reported, then ends with
// benchInterrupted.
func benchContext(cmd *cobra.Command) (context.Context, func()) {
	return notifyInterrupt(cmd.Context())
}

// benchInterrupted returns the error a bench command (named by what, as
// "bench serve") ends with when ctx was cancelled: an *interruptedError,
// which makes neardup exit with 128 plus the signal's number, as dedup
// does. done says what the run got to, as "the rows above were measured
// before it".
func benchInterrupted(ctx context.Context, what, done string) error {
	ie, by := interruptedBy(ctx)
	ie.msg = what + ": " + by
	if done != "" {
		ie.msg += "; " + done
	}
	return ie
}
