package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every iteration runs once, and all have returned when For does, even
// when a helper's iteration outlasts the caller's.
func TestForRunsEachOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, 2, 3, 7, 100, 1000} {
		runs := make([]atomic.Int32, n)
		For(n, func(i int) {
			if i%5 == 1 {
				time.Sleep(time.Millisecond)
			}
			runs[i].Add(1)
		})
		for i := range runs {
			if got := runs[i].Load(); got != 1 {
				t.Fatalf("n=%d: iteration %d ran %d times", n, i, got)
			}
		}
	}
}

// For does not wait for a helper that has not started: the caller runs
// every iteration, and the helper, started afterwards, takes none.
func TestForWithoutHelpers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var late []func()
	old := spawn
	spawn = func(f func()) { late = append(late, f) }
	defer func() { spawn = old }()
	var mu sync.Mutex
	seen := map[int]int{}
	For(50, func(i int) {
		mu.Lock()
		seen[i]++
		mu.Unlock()
	})
	if len(seen) != 50 {
		t.Fatalf("%d of 50 iterations ran before For returned", len(seen))
	}
	if len(late) != 1 {
		t.Fatalf("%d helpers spawned with GOMAXPROCS 2, want 1", len(late))
	}
	late[0]()
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("iteration %d ran %d times", i, c)
		}
	}
}
