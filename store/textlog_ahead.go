package store

import (
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Zeros written ahead.
//
// A sync of a file that an append made longer must also make the file's
// new size and blocks durable (on ext4, a commit of its journal). A sync of
// writes into blocks the file already has, below its size, need not: with
// 64 HTTP clients sending a document each, the text log's sync took 320-420
// µs on average when appends grew the file and 160-240 µs when they went
// into zeros written beforehand (docs/PERFORMANCE.md, HTTP service,
// "Eleventh pass").
//
// So the text log keeps its newest file (the hour that flushes write to)
// zeroed and synced zeroAhead bytes past its entries: when a flush leaves
// less than half that way, it starts a zeroer, a goroutine that writes
// zeros from the end of the entries (or of the zeros already there), syncs
// them, and then lets flushes write there; a flush whose entries would
// reach where it is still writing waits for it. A flush that syncs while a
// zeroer writes also syncs the zeros and the file's new size, so the way
// is short: zeroing 1 MiB ahead, 64 HTTP clients sending a document each
// ran faster than with 4 MiB or 16 MiB ahead (larger, rarer stalls), and
// than with 512 KiB or 256 KiB (more of them); docs/PERFORMANCE.md, HTTP
// service, "Eleventh pass".
//
// The zeros go when the file is closed (Close, or an idle file closed) or
// when a newer file gets its own, and after a crash when the store is
// opened: replay reads each file's entries up to the first that is not
// whole, and a file whose bytes from there to its end are all zero is cut
// there (trimTail), so that appends go on right after the entries. A tail
// with anything else in it (a write a crash cut short) is kept, and
// appends go on after it, as they always did.
//
// The cost is a second write of every byte of the text log, as zeros first.
// Only stores whose commits sync write zeros ahead, and only on files that
// can be truncated (not the in-memory file system's).

// zeroAhead is how far past its entries the newest file is kept zeroed.
const zeroAhead = 1 << 20

// zeroBlock is what a zeroer writes, never written itself: files on disk
// (the only ones zeroed ahead, see truncater) do not change what they
// write.
var zeroBlock [zeroAhead]byte

// truncater is a file that can be cut to a size: os.File, which pebble's
// files on disk are.
type truncater interface{ Truncate(size int64) error }

// extendLocked starts a zeroer for tf, the newest file, if its zeros end
// less than half of l.ahead past its entries. The caller holds mu and
// flushMu.
func (l *textLog) extendLocked(tf *textFile) {
	if l.ahead <= 0 || tf.extending != nil || tf.noAhead || tf.zeroed-tf.written >= l.ahead/2 {
		return
	}
	if _, ok := tf.f.(truncater); !ok {
		tf.noAhead = true
		return
	}
	// Flushes write up to written (the one under way included) without
	// waiting; the zeroer writes from there, or from its last zeros.
	from := max(tf.zeroed, tf.written)
	tf.zeroed = from
	tf.extending = make(chan struct{})
	l.zeroers.Add(1)
	go l.extend(tf, from, tf.written+l.ahead)
}

// extend writes zeros into tf from from to to and syncs them, then lets
// flushes write there. Then the other files lose their zeros: flushes
// seldom write to an older hour (and then grow its file, as before).
func (l *textLog) extend(tf *textFile, from, to int64) {
	defer l.zeroers.Done()
	var err error
	for off := from; off < to && err == nil; off += int64(len(zeroBlock)) {
		_, err = tf.f.WriteAt(zeroBlock[:min(int64(len(zeroBlock)), to-off)], off)
	}
	if err == nil {
		err = tf.f.SyncData()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		tf.zeroed = to
		l.bytes.Add(max(to-tf.size, 0))
		tf.size = max(tf.size, to)
	} else if info, serr := tf.f.Stat(); serr == nil {
		// A disk full, say: the file keeps what was written, and its
		// entries go on where they would have.
		tf.noAhead = true
		l.bytes.Add(info.Size() - tf.size)
		tf.size = info.Size()
	} else {
		tf.noAhead = true
	}
	close(tf.extending)
	tf.extending = nil
	for _, old := range l.files {
		if old != tf {
			l.trimLocked(old)
		}
	}
}

// trimLocked cuts tf's zeros written ahead, unless a zeroer is writing
// them. The caller holds mu, so no flush takes a place past written
// meanwhile; one under way writes below it.
func (l *textLog) trimLocked(tf *textFile) {
	if tf.extending != nil || tf.size <= tf.written {
		return
	}
	t, ok := tf.f.(truncater)
	if !ok || t.Truncate(tf.written) != nil {
		return // the zeros stay, harmless: the next Open cuts them
	}
	l.bytes.Add(tf.written - tf.size)
	tf.size, tf.zeroed = tf.written, tf.written
}

// trimTail cuts hour's file at end, where its entries end (see scan), when
// every byte from there on is zero: zeros written ahead that a crash left.
// The file is not open (Open calls it, before any write).
func (l *textLog) trimTail(hour, end uint64) error {
	name := l.path(hour)
	f, err := l.fs.OpenReadWrite(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("store: text log: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: text log: %w", err)
	}
	size := info.Size()
	t, ok := f.(truncater)
	if !ok || int64(end) >= size {
		return nil
	}
	buf := make([]byte, min(size-int64(end), 1<<20))
	for off := int64(end); off < size; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if err != nil && err != io.EOF {
			return fmt.Errorf("store: text log: %w", err)
		}
		for _, c := range buf[:n] {
			if c != 0 {
				return nil
			}
		}
		if n == 0 {
			break
		}
		off += int64(n)
	}
	if err := t.Truncate(int64(end)); err != nil {
		return fmt.Errorf("store: text log: %w", err)
	}
	l.bytes.Add(int64(end) - size)
	l.openSizes[hour] = int64(end)
	return nil
}
