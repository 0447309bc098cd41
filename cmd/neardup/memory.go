package main

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/neardup/neardup/internal/memlimit"
)

// memoryLimit is --memory-limit, the Go runtime's soft memory limit:
// "auto" (the default: memlimit.Share of the memory the process may use,
// unless the GOMEMLIMIT environment variable sets one), "off", or a size as
// byteSize reads it.
type memoryLimit struct {
	off   bool
	bytes int64 // 0 with off false: auto
}

func (m *memoryLimit) String() string {
	switch {
	case m.off:
		return "off"
	case m.bytes == 0:
		return "auto"
	}
	return formatSize(m.bytes)
}

func (m *memoryLimit) Type() string { return "size" }

func (m *memoryLimit) Set(s string) error {
	switch t := strings.TrimSpace(s); {
	case strings.EqualFold(t, "auto"):
		*m = memoryLimit{}
		return nil
	case strings.EqualFold(t, "off") || t == "0":
		*m = memoryLimit{off: true}
		return nil
	}
	var b byteSize
	if err := b.Set(s); err != nil {
		return fmt.Errorf("%v, auto or off", err)
	}
	if b < minMemoryLimit {
		return fmt.Errorf("size %q is below %s, too little for the process to run in (auto or off also work)", s, formatSize(minMemoryLimit))
	}
	*m = memoryLimit{bytes: int64(b)}
	return nil
}

// minMemoryLimit is the smallest --memory-limit taken: below it the
// collector would run all the time (a typo of MB for GB, say).
const minMemoryLimit = 64 << 20

// apply sets the runtime's memory limit as m says, logs what it set and
// why, and returns the limit in effect, 0 for none: the engine's
// Options.MemoryLimit. With auto it leaves a limit that GOMEMLIMIT set, and
// goes on without one when the memory cannot be read (other systems than
// Linux).
func (m memoryLimit) apply(log *slog.Logger) int64 {
	m.set(log)
	return heapLimit()
}

// heapLimit returns the runtime's memory limit in effect, 0 for none.
func heapLimit() int64 {
	if n := debug.SetMemoryLimit(-1); n < math.MaxInt64 {
		return n
	}
	return 0
}

// set sets the runtime's memory limit as m says and logs it (see apply).
func (m memoryLimit) set(log *slog.Logger) {
	switch {
	case m.off:
		debug.SetMemoryLimit(math.MaxInt64)
		log.Info("no memory limit", "memory_limit", "off")
	case m.bytes > 0:
		debug.SetMemoryLimit(m.bytes)
		log.Info("memory limit", "size", gib(m.bytes), "bytes", m.bytes, "from", "--memory-limit")
	case os.Getenv("GOMEMLIMIT") != "":
		n := debug.SetMemoryLimit(-1)
		log.Info("memory limit", "size", gib(n), "bytes", n, "from", "GOMEMLIMIT")
	default:
		n, from, err := memlimit.Auto()
		if err != nil {
			log.Warn("no memory limit: the memory the process may use is unknown", "err", err)
			return
		}
		debug.SetMemoryLimit(n)
		log.Info("memory limit", "size", gib(n), "bytes", n, "from", fmt.Sprintf("%.0f%% of %s", 100*memlimit.Share, from))
	}
}

// gib writes n bytes in GiB with two decimals, for the log.
func gib(n int64) string { return fmt.Sprintf("%.2fGiB", float64(n)/(1<<30)) }
