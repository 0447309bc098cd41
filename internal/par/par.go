// Package par runs the iterations of a loop on all cores.
package par

import (
	"runtime"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n) and returns when all calls have
// returned. The calling goroutine runs iterations itself, and up to
// GOMAXPROCS-1 helper goroutines join it; each takes the next iteration
// not yet taken.
//
// The caller waits only for iterations a helper has taken, never for a
// helper to start. On a busy process a new goroutine can wait in a run
// queue for milliseconds, behind every goroutine queued before it; a loop
// that other work waits for (the decisions of a batch its writers wait
// on) would wait that long with it, if it waited for its helpers to run.
// A helper that starts after the loop has ended finds nothing to take and
// returns.
func For(n int, f func(i int)) {
	helpers := min(n, runtime.GOMAXPROCS(0)) - 1
	if helpers <= 0 {
		for i := range n {
			f(i)
		}
		return
	}
	l := &loop{n: int64(n), f: f, done: make(chan struct{})}
	for range helpers {
		spawn(l.work)
	}
	l.work()
	if l.finished.Load() < l.n {
		<-l.done
	}
}

// spawn starts a helper; tests replace it.
var spawn = func(f func()) { go f() }

// loop is one call of For.
type loop struct {
	next     atomic.Int64 // the next iteration to take
	finished atomic.Int64 // iterations that have returned
	n        int64
	f        func(i int)
	done     chan struct{} // closed when the last iteration returns
}

// work runs iterations until none is left to take.
func (l *loop) work() {
	for {
		i := l.next.Add(1) - 1
		if i >= l.n {
			return
		}
		l.f(int(i))
		if l.finished.Add(1) == l.n {
			close(l.done)
		}
	}
}
