package main

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// hostSteal returns the CPU time the hypervisor has taken from this
// machine's processors since boot (the steal column of /proc/stat), and
// false where that is not known (not Linux, or not a virtual machine that
// reports it). Benchmarks report the steal during a run: a virtual machine
// whose host is busy loses that much of its cores, and its timings with it.
func hostSteal() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	return parseSteal(b)
}

// parseSteal reads the steal time from the contents of /proc/stat.
func parseSteal(b []byte) (time.Duration, bool) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	// cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0, false
	}
	ticks, err := strconv.ParseUint(string(f[8]), 10, 64)
	if err != nil {
		return 0, false
	}
	const userHZ = 100 // the unit of /proc/stat, fixed by Linux's ABI
	return time.Duration(ticks) * time.Second / userHZ, true
}

// stealMeter measures the host steal over an interval.
type stealMeter struct {
	start time.Duration
	ok    bool
}

func startSteal() stealMeter {
	d, ok := hostSteal()
	return stealMeter{start: d, ok: ok}
}

// seconds returns the steal since startSteal, or -1 when it is not known.
func (m stealMeter) seconds() float64 {
	d, ok := hostSteal()
	if !m.ok || !ok {
		return -1
	}
	return (d - m.start).Seconds()
}
