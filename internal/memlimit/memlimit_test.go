package memlimit

import (
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

const meminfo = "MemTotal:       24684096 kB\nMemFree:        23656200 kB\n"

// TestTotal checks where Total's figure comes from on the cgroup layouts
// a process meets: none, version 1 and version 2, limited or not, seen
// from the host or from inside a container.
func TestTotal(t *testing.T) {
	const machine = 24684096 * 1024
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  int64
		from  string
	}{
		{"no cgroup", map[string]string{"proc/meminfo": meminfo}, machine, "/proc/meminfo MemTotal"},
		{"v1 without limit", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "5:devices:/\n4:memory:/jobs/a\n0::/\n",
			"sys/fs/cgroup/memory/jobs/a/memory.limit_in_bytes": "9223372036854771712\n",
		}, machine, "/proc/meminfo MemTotal"},
		{"v1 limited", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "5:devices:/\n4:memory:/jobs/a\n",
			"sys/fs/cgroup/memory/jobs/a/memory.limit_in_bytes": "8589934592\n",
		}, 8 << 30, "/sys/fs/cgroup/memory/jobs/a/memory.limit_in_bytes"},
		{"v1 with memory among other controllers, seen from a container", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "4:cpu,memory:/docker/abc\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "4294967296\n",
		}, 4 << 30, "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"v2 limited", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "0::/system.slice/neardup.service\n",
			"sys/fs/cgroup/system.slice/neardup.service/memory.max": "2147483648\n",
		}, 2 << 30, "/sys/fs/cgroup/system.slice/neardup.service/memory.max"},
		{"v2 without limit", map[string]string{
			"proc/meminfo":                        meminfo,
			"proc/self/cgroup":                    "0::/user.slice\n",
			"sys/fs/cgroup/user.slice/memory.max": "max\n",
		}, machine, "/proc/meminfo MemTotal"},
		{"v2 limit above the machine's memory", map[string]string{
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "107374182400\n",
		}, machine, "/proc/meminfo MemTotal"},
		{"unreadable limit", map[string]string{
			"proc/meminfo":               meminfo,
			"proc/self/cgroup":           "0::/a\n",
			"sys/fs/cgroup/a/memory.max": "lots\n",
		}, machine, "/proc/meminfo MemTotal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := fstest.MapFS{}
			for name, data := range tt.files {
				root[name] = &fstest.MapFile{Data: []byte(data)}
			}
			got, from, err := total(root)
			if err != nil || got != tt.want || from != tt.from {
				t.Fatalf("total = %d from %q, %v; want %d from %q", got, from, err, tt.want, tt.from)
			}
		})
	}
}

// TestTotalErrors checks that a missing or unreadable /proc/meminfo is an
// error that says what could not be read.
func TestTotalErrors(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no meminfo":       {},
		"no MemTotal":      {"proc/meminfo": "MemFree: 1 kB\n"},
		"MemTotal in MB":   {"proc/meminfo": "MemTotal: 1 MB\n"},
		"negative":         {"proc/meminfo": "MemTotal: -5 kB\n"},
		"MemTotal too big": {"proc/meminfo": "MemTotal: 99999999999999999 kB\n"},
	} {
		root := fstest.MapFS{}
		for name, data := range files {
			root[name] = &fstest.MapFile{Data: []byte(data)}
		}
		if n, _, err := total(root); err == nil || !strings.Contains(err.Error(), "memory of the machine") {
			t.Errorf("%s: total = %d, %v; want an error about the machine's memory", name, n, err)
		}
	}
}

// TestAuto checks the default limit on this machine: Share of what it
// has, where Linux says.
func TestAuto(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory is read from Linux's files")
	}
	n, from, err := Total()
	if err != nil {
		t.Fatal(err)
	}
	if n < 64<<20 {
		t.Fatalf("Total = %d from %s: less than 64 MiB", n, from)
	}
	limit, from2, err := Auto()
	if err != nil || from2 != from || limit != int64(float64(n)*Share) {
		t.Fatalf("Auto = %d from %s, %v; want %v of %d from %s", limit, from2, err, Share, n, from)
	}
}
