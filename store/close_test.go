package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// closeTestBase is the time of the documents fillForClose writes.
const closeTestBase = 1700000000 / 3600 * 3600

// fillForClose writes n documents over two hours, their texts half in the
// text log and half in pebble, with IDs "doc-<n>" and 8-byte fingerprints
// holding n, so that a reader can check what it sees.
func fillForClose(t *testing.T, db *DB, n int) {
	t.Helper()
	for i := range n {
		if i == n/2 {
			db.textPlace = textsInPebble
		}
		b := db.NewBatch()
		tm := int64(closeTestBase + i%2*3600)
		fp := make([]byte, 8)
		for j := range fp {
			fp[j] = byte(i >> (8 * j))
		}
		b.Put(&Doc{Record: Record{Seq: MakeSeq(tm, uint64(i+1)), ID: fmt.Sprint("doc-", i), Fingerprint: fp, Time: tm}, Text: []byte(fmt.Sprint("text of ", i)), Meta: []byte(`{}`)})
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	db.textPlace = textsBySize
}

// checkView reports a view whose ID does not match its fingerprint (see
// fillForClose): bytes that changed under the callback.
func checkView(v *View) error {
	n := 0
	for j := len(v.Fingerprint) - 1; j >= 0; j-- {
		n = n<<8 | int(v.Fingerprint[j])
	}
	if want := fmt.Sprint("doc-", n); string(v.ID) != want {
		return fmt.Errorf("view of seq %x: ID %q, want %q", v.Seq, v.ID, want)
	}
	return nil
}

// TestCloseDuringReads closes the store while goroutines read, scan,
// write and ask for its usage: none of them panics or sees anything but
// its result or ErrClosed, a view stays intact for its callback's whole
// call even when Close runs meanwhile, and Close itself succeeds. It used
// to panic (pebble: closed, or an element with outstanding references) or
// fail with leaked iterators.
func TestCloseDuringReads(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"disk-group", Options{}},
		{"disk-nosync", Options{Durability: NoSync}},
		{"memory-sync", Options{InMemory: true, Durability: SyncEach}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for round := range 4 {
				testCloseDuringReads(t, c.opts, time.Duration(round)*3*time.Millisecond)
			}
		})
	}
}

func testCloseDuringReads(t *testing.T, opts Options, after time.Duration) {
	dir := ""
	if !opts.InMemory {
		dir = t.TempDir()
	}
	db, err := Open(dir, &opts)
	if err != nil {
		t.Fatal(err)
	}
	const docs = 300
	fillForClose(t, db, docs)
	// ok reports whether err is one a method may return while the store
	// closes under it.
	ok := func(what string, err error) bool {
		if err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("%s: %v, want nil or ErrClosed", what, err)
		}
		return err == nil
	}
	var wg sync.WaitGroup
	var started sync.WaitGroup
	var scanned atomic.Int64
	// Texts and records.
	for w := range 4 {
		started.Add(1)
		wg.Go(func() {
			started.Done()
			for i := w; ; i = (i + 7) % docs {
				seq := MakeSeq(int64(closeTestBase+i%2*3600), uint64(i+1))
				text, _, err := db.Text(seq)
				if !ok("Text", err) {
					return
				}
				if want := fmt.Sprint("text of ", i); string(text) != want {
					t.Errorf("Text(%x) = %q, want %q", seq, text, want)
					return
				}
				if _, err := db.Record(seq); !ok("Record", err) {
					return
				}
			}
		})
	}
	// Scans whose callbacks take their time, so that Close finds them in
	// the middle of a callback as well as inside pebble.
	for range 2 {
		started.Add(1)
		wg.Go(func() {
			started.Done()
			for {
				err := db.ScanViews(0, 0, func(v *View) error {
					if err := checkView(v); err != nil {
						return err
					}
					runtime.Gosched()
					if err := checkView(v); err != nil {
						return err
					}
					scanned.Add(1)
					return nil
				})
				if !ok("ScanViews", err) {
					return
				}
			}
		})
	}
	// The rest of the API.
	started.Add(1)
	wg.Go(func() {
		started.Done()
		for i := 0; ; i++ {
			if _, _, _, err := db.SeqSpan(); !ok("SeqSpan", err) {
				return
			}
			if err := db.SetMeta("k", []byte(fmt.Sprint(i))); !ok("SetMeta", err) {
				return
			}
			if _, err := db.Meta("k"); !ok("Meta", err) {
				return
			}
			_ = db.DiskUsage()
			if err := db.Barrier(); !ok("Barrier", err) {
				return
			}
			b := db.NewBatch()
			seq := MakeSeq(closeTestBase+7200, uint64(i+1))
			b.Put(&Doc{Record: Record{Seq: seq, ID: fmt.Sprint("doc-", 0), Fingerprint: make([]byte, 8), Time: closeTestBase + 7200}, Text: []byte("late")})
			if err := db.Commit(b); !ok("Commit", err) {
				return
			}
		}
	})
	started.Wait()
	time.Sleep(after)
	if err := db.Close(); err != nil {
		t.Errorf("Close while reads run: %v", err)
	}
	wg.Wait()
	if err := db.ScanViews(0, 0, func(*View) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("ScanViews after Close: %v, want ErrClosed", err)
	}
}

// TestCloseInScanCallback checks that a ScanViews callback may close the
// store: Close succeeds, the scan stops at once with ErrClosed, and the
// view the callback holds stays intact until it returns.
func TestCloseInScanCallback(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	fillForClose(t, db, 50)
	done := make(chan struct{})
	var calls int
	var closeErr error
	var scanErr error
	go func() {
		defer close(done)
		scanErr = db.ScanViews(0, 0, func(v *View) error {
			calls++
			if calls == 10 {
				closeErr = db.Close()
				if err := checkView(v); err != nil {
					t.Error(err)
				}
				if _, err := db.Record(v.Seq); !errors.Is(err, ErrClosed) {
					t.Errorf("Record inside the callback after Close: %v, want ErrClosed", err)
				}
			}
			return nil
		})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Close inside a ScanViews callback deadlocked")
	}
	if closeErr != nil {
		t.Errorf("Close inside the callback: %v", closeErr)
	}
	if !errors.Is(scanErr, ErrClosed) || calls != 10 {
		t.Errorf("scan closed in its 10th callback: %v after %d calls, want ErrClosed after 10", scanErr, calls)
	}
	// The store is closed: it opens again.
	if db, err = Open(dir, nil); err != nil {
		t.Fatalf("Open after a Close inside a callback: %v", err)
	}
	n := 0
	if err := db.Scan(0, 0, func(Record) error { n++; return nil }); err != nil || n != 50 {
		t.Errorf("scan after reopening: %d records, %v; want 50", n, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestClosedMethods checks that every method that can returns ErrClosed
// after Close, with each durability, and what the others do (see the doc
// of ErrClosed): Barrier returned nil, and DiskUsage and NewBatch touched
// pebble after it closed.
func TestClosedMethods(t *testing.T) {
	for _, d := range []Durability{GroupCommit, SyncEach, NoSync} {
		t.Run(d.String(), func(t *testing.T) {
			db, err := Open("", &Options{InMemory: true, Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			fillForClose(t, db, 4)
			seq := MakeSeq(closeTestBase, 1)
			var v View
			if err := db.ScanViews(0, 0, func(w *View) error { v = *w; v.ID, v.Fingerprint = nil, nil; return nil }); err != nil {
				t.Fatal(err)
			}
			b := db.NewBatch() // made before Close, committed after
			b.Delete(seq)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			closed := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrClosed) {
					t.Errorf("%s after Close: %v, want ErrClosed", what, err)
				}
			}
			closed("Close", db.Close())
			closed("Barrier", db.Barrier())
			closed("Commit of a batch made before", db.Commit(b))
			nb := db.NewBatch()
			nb.Put(&Doc{Record: Record{Seq: seq + 100, ID: "x"}, Text: []byte("x")})
			nb.Delete(seq)
			if nb.Len() == 0 {
				t.Errorf("a batch made after Close holds nothing")
			}
			closed("Commit of a batch made after", db.Commit(nb))
			_, err = db.Record(seq)
			closed("Record", err)
			_, _, err = db.Text(seq)
			closed("Text", err)
			_, err = db.Meta("k")
			closed("Meta", err)
			closed("SetMeta", db.SetMeta("k", []byte("v")))
			closed("Scan", db.Scan(0, 0, func(Record) error { return nil }))
			closed("ScanViews", db.ScanViews(0, 0, func(*View) error { return nil }))
			_, _, _, err = db.SeqSpan()
			closed("SeqSpan", err)
			_, err = db.DeleteBefore(context.Background(), MakeSeq(closeTestBase+3600, 0))
			closed("DeleteBefore", err)
			if n := db.DiskUsage(); n != 0 {
				t.Errorf("DiskUsage after Close: %d, want 0", n)
			}
			if db.TextMissing(&v) {
				t.Errorf("TextMissing after Close: true for a text that was stored")
			}
			_ = db.Syncs()
		})
	}
}

// TestCloseStopsGoroutines checks that Close leaves no goroutine of the
// store's or pebble's running: the group committer, the zeroers of the
// text log, and pebble's flushes, compactions and cache.
func TestCloseStopsGoroutines(t *testing.T) {
	for _, o := range []Options{{}, {Durability: SyncEach, MemTableSize: MinMemTableSize}, {InMemory: true}} {
		before := runtime.NumGoroutine()
		dir := ""
		if !o.InMemory {
			dir = t.TempDir()
		}
		db, err := Open(dir, &o)
		if err != nil {
			t.Fatal(err)
		}
		fillForClose(t, db, 200)
		if _, err := db.DeleteBefore(context.Background(), MakeSeq(closeTestBase+3600, 0)); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		n := runtime.NumGoroutine()
		for deadline := time.Now().Add(5 * time.Second); n > before && time.Now().Before(deadline); n = runtime.NumGoroutine() {
			time.Sleep(10 * time.Millisecond)
		}
		if n > before {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			t.Errorf("%+v: %d goroutines after Close, %d before Open:\n%s", o, n, before, stacks)
		}
	}
}

// TestMemTableSizeBounds checks that Validate refuses a MemTableSize that
// pebble cannot use, naming the field and the range, and that Open works
// at both ends of the range. Sizes from 1 to about 1.1 KB made Open panic
// (a memtable larger than MemTableSize), and pebble refuses 4 GiB - 1 and
// more.
func TestMemTableSizeBounds(t *testing.T) {
	for _, size := range []uint64{1, 1000, 1200, MinMemTableSize - 1, MaxMemTableSize + 1, 1 << 32, 1 << 40} {
		err := (&Options{MemTableSize: size}).Validate()
		if err == nil {
			t.Errorf("MemTableSize %d accepted", size)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "MemTableSize") || !strings.Contains(msg, fmt.Sprint(MinMemTableSize)) || !strings.Contains(msg, fmt.Sprint(MaxMemTableSize)) {
			t.Errorf("MemTableSize %d: %q, want the field and the range named", size, msg)
		}
		db, err := Open(t.TempDir(), &Options{MemTableSize: size})
		if err == nil {
			db.Close()
			t.Errorf("Open with MemTableSize %d succeeded", size)
		}
	}
	for _, size := range []uint64{0, MinMemTableSize, MaxMemTableSize} {
		if err := (&Options{MemTableSize: size}).Validate(); err != nil {
			t.Errorf("MemTableSize %d: %v", size, err)
		}
	}
	// Open works at both ends, for a new store and for one with records
	// (the largest memtable is not allocated at once).
	for _, size := range []uint64{MinMemTableSize, MaxMemTableSize} {
		dir := t.TempDir()
		for range 2 {
			db, err := Open(dir, &Options{MemTableSize: size, Durability: SyncEach})
			if err != nil {
				t.Fatalf("MemTableSize %d: %v", size, err)
			}
			n := 0
			if err := db.Scan(0, 0, func(Record) error { n++; return nil }); err != nil || (n != 0 && n != 300) {
				t.Fatalf("MemTableSize %d: %d records after reopening, %v", size, n, err)
			}
			if n == 0 {
				fillForClose(t, db, 300)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestTextMissingDuringDeleteBefore calls TextMissing while DeleteBefore
// removes hours of texts: the text log's sizes at Open, which TextMissing
// reads, lost hours under it without a lock (a data race, for -race).
func TestTextMissingDuringDeleteBefore(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, &Options{Durability: NoSync})
	if err != nil {
		t.Fatal(err)
	}
	db.textPlace = textsInLog
	const hours = 20
	for h := range int64(hours) {
		b := db.NewBatch()
		tm := closeTestBase + h*3600
		b.Put(&Doc{Record: Record{Seq: MakeSeq(tm, 1), ID: fmt.Sprint(h), Fingerprint: make([]byte, 8), Time: tm}, Text: []byte("text")})
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Opened again, the store knows the sizes of the files.
	if db, err = Open(dir, &Options{Durability: NoSync}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var views []View
	if err := db.ScanViews(0, 0, func(v *View) error {
		w := *v
		w.ID, w.Fingerprint = nil, nil
		views = append(views, w)
		return nil
	}); err != nil || len(views) != hours {
		t.Fatalf("scan: %d views, %v", len(views), err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for h := range int64(hours) {
			if _, err := db.DeleteBefore(context.Background(), HourStart(closeTestBase+h*3600)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 200 {
		for i := range views {
			db.TextMissing(&views[i])
		}
	}
	wg.Wait()
}

// TestScanCallbackPanics checks that a ScanViews callback that panics
// leaves no iterator open: the store closes cleanly after the panic is
// recovered (Close failed with leaked iterators).
func TestScanCallbackPanics(t *testing.T) {
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	fillForClose(t, db, 5)
	func() {
		defer func() {
			if r := recover(); r != "callback" {
				t.Errorf("recovered %v, want the callback's panic", r)
			}
		}()
		_ = db.ScanViews(0, 0, func(*View) error { panic("callback") })
	}()
	n := 0
	if err := db.Scan(0, 0, func(Record) error { n++; return nil }); err != nil || n != 5 {
		t.Errorf("scan after a callback panicked: %d records, %v; want 5", n, err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("Close after a callback panicked: %v", err)
	}
}
