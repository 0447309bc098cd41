// Package memlimit finds how much memory the process may use, so that
// neardup can set the Go runtime's soft memory limit below it.
//
// Without a limit the garbage collector lets the heap grow to twice what is
// live (GOGC=100) before it collects. The engine's indexes are most of what
// is live, and a store of tens of millions of documents holds several GB of
// them, so the process would take twice that from the machine, or be killed
// for it. With a limit the collector runs more often as the heap nears it
// and the process stays within it, as long as what is live fits.
package memlimit

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Share is the part of Total that Auto gives the Go heap: the rest is left
// for the store's caches and memtables, which pebble allocates outside the
// Go heap, and for the stacks and buffers of the runtime.
const Share = 0.9

// Total returns the memory this process may use and where that figure
// comes from: the memory limit of its cgroup (version 2 memory.max or
// version 1 memory.limit_in_bytes) when it has one below the machine's
// memory, otherwise the machine's MemTotal (/proc/meminfo). It returns an
// error when neither can be read, as on systems other than Linux.
func Total() (int64, string, error) { return total(os.DirFS("/")) }

// Auto returns the soft memory limit neardup sets by default, Share of
// Total, and where Total comes from.
func Auto() (int64, string, error) {
	n, from, err := Total()
	if err != nil {
		return 0, "", err
	}
	return int64(float64(n) * Share), from, nil
}

// total is Total over the file system root, a view of "/".
func total(root fs.FS) (int64, string, error) {
	mem, err := memTotal(root)
	if err != nil {
		return 0, "", err
	}
	if limit, file, ok := cgroupLimit(root); ok && limit < mem {
		return limit, file, nil
	}
	return mem, "/proc/meminfo MemTotal", nil
}

// memTotal reads MemTotal from /proc/meminfo.
func memTotal(root fs.FS) (int64, error) {
	b, err := fs.ReadFile(root, "proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("memory of the machine: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			break
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
			break
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("memory of the machine: no MemTotal in kB in /proc/meminfo")
}

// cgroupLimit returns the memory limit of the process's cgroup, the file
// it was read from, and whether there is one. The cgroup's own directory is
// tried first (/proc/self/cgroup names it), then the root of the
// hierarchy, which is what a container sees of its own cgroup.
func cgroupLimit(root fs.FS) (int64, string, bool) {
	b, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0, "", false
	}
	var files []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "":
			files = append(files, path.Join("sys/fs/cgroup", f[2], "memory.max"), "sys/fs/cgroup/memory.max")
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			files = append(files, path.Join("sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes"), "sys/fs/cgroup/memory/memory.limit_in_bytes")
		}
	}
	for _, file := range files {
		b, err := fs.ReadFile(root, file)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		if s == "max" {
			return 0, "", false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			continue
		}
		return n, "/" + file, true
	}
	return 0, "", false
}
