package neardup

import (
	"fmt"
	"time"

	"github.com/neardup/neardup/store"
)

// Free space.
//
// A store that runs out of disk mid-write stops the engine (ErrStoreFailed)
// until it is opened again. So the engine keeps Options.MinFreeBytes free
// on the store's file system: it measures the free space when it opens and
// then every spaceInterval, and while there is less, it refuses writes with
// ErrDiskFull before they reach the store. Reads, Check, Delete and expiry
// go on, and writes resume by themselves once there is room again (expiry
// gives back the space of whole hours). Writes between two measurements
// can still use more than the margin: a tenth of a second of the fastest
// batches measured here (81,750 documents a second of about 380 bytes,
// each byte written twice by the text log, zeros first) is about 6 MB.
// A server on a file system with 28 MiB free, fed batches of 200
// documents of about 1 KB by one client (about 10,000 documents a second),
// with a margin of 8 MiB refused its first write at 7.7 MiB free measuring
// ten times a second, and at 0.5 MiB measuring once a second.

// spaceInterval is how often the free space is measured.
const spaceInterval = 100 * time.Millisecond

// freeSpace returns the bytes free for an unprivileged writer on the file
// system that holds dir; ok is false where it cannot tell (see
// store.DiskFree). Tests replace it; an engine takes it when it opens.
var freeSpace = store.DiskFree

// measureSpace records the free space of the store's file system, when the
// engine checks it (see spaceErr).
func (e *Engine) measureSpace() {
	if n, ok := e.freeSpace(e.dir); ok {
		e.free.Store(n)
	}
}

// checksSpace reports whether the engine keeps free space (see
// Options.MinFreeBytes): only a store on disk with a positive margin does.
func (e *Engine) checksSpace() bool { return e.dir != "" && e.opts.MinFreeBytes > 0 }

// spaceErr returns ErrDiskFull, with the figures, when the store's file
// system had less than Options.MinFreeBytes free when last measured.
func (e *Engine) spaceErr() error {
	if !e.checksSpace() {
		return nil
	}
	if free := e.free.Load(); free < e.opts.MinFreeBytes {
		return fmt.Errorf("%w: %d bytes free for the store in %s; writes keep at least %d free", ErrDiskFull, free, e.dir, e.opts.MinFreeBytes)
	}
	return nil
}
