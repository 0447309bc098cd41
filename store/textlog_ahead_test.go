package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestZerosAhead commits from several goroutines to a store whose newest
// text file is kept zeroed a few KiB ahead (so that flushes often catch a
// zeroer up), and checks that every text reads back, that the file ends in
// zeros past its entries while open and not once closed, and that a crash
// that leaves the zeros (and one that leaves a torn entry before them)
// loses nothing: the store opened again replays the records pebble lost,
// cuts the zeros (not the torn entry), appends after the entries, and
// replays those appends after another crash.
func TestZerosAhead(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "live")
	db, err := Open(dir, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.textPlace = textsInLog
	db.log.ahead = 4096
	const hour = 7
	n := 0
	docs := func(k int) []*Doc {
		var ds []*Doc
		for range k {
			n++
			ds = append(ds, &Doc{Record: Record{Seq: MakeSeq(hour*3600, uint64(n)), ID: fmt.Sprint("d", n), Fingerprint: []byte{byte(n), 1, 2, 3, 4, 5, 6, 7}, Time: hour * 3600, TextLen: 9, NormLen: 7},
				Text: []byte(strings.Repeat(fmt.Sprint("text ", n, " "), 25)), Meta: []byte(fmt.Sprintf(`{"n":%d}`, n))})
		}
		return ds
	}
	commit := func(db *DB, ds []*Doc) {
		b := db.NewBatch()
		for _, d := range ds {
			b.Put(d)
		}
		if err := db.Commit(b); err != nil {
			t.Error(err)
		}
	}
	check := func(db *DB, ds []*Doc) {
		t.Helper()
		for _, d := range ds {
			r, err := db.Record(d.Seq)
			if err != nil || r.ID != d.ID {
				t.Errorf("record of %s: %+v, %v", d.ID, r, err)
				continue
			}
			text, meta, err := db.Text(d.Seq)
			if err != nil || !bytes.Equal(text, d.Text) || !bytes.Equal(meta, d.Meta) {
				t.Errorf("text of %s: %.20q, %q, %v", d.ID, text, meta, err)
			}
		}
	}
	// The file's end of entries, and its size, with no zeroer running.
	ends := func(db *DB) (written, size int64) {
		t.Helper()
		db.log.zeroers.Wait()
		db.log.mu.Lock()
		defer db.log.mu.Unlock()
		tf := db.log.files[hour]
		if tf == nil {
			t.Fatal("no open file for the hour")
		}
		info, err := os.Stat(db.log.path(hour))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() != tf.size {
			t.Errorf("file of %d bytes, the log counts %d", info.Size(), tf.size)
		}
		return tf.written, info.Size()
	}

	var before []*Doc
	for range 8 {
		before = append(before, docs(40)...)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(before)/5; i += 4 {
				commit(db, before[i*5:i*5+5])
			}
		})
	}
	wg.Wait()
	check(db, before)
	written, size := ends(db)
	if size <= written {
		t.Fatalf("open file of %d bytes, entries end at %d: no zeros ahead", size, written)
	}
	zeros, err := os.ReadFile(db.log.path(hour))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(zeros[written:], make([]byte, size-written)) {
		t.Fatal("bytes past the entries are not all zero")
	}

	// The crash: pebble as it is now, the text log with more entries and
	// their zeros.
	crashed := []string{filepath.Join(root, "crashed"), filepath.Join(root, "torn")}
	for _, c := range crashed {
		if err := db.db.Checkpoint(c, pebble.WithFlushedWAL()); err != nil {
			t.Fatal(err)
		}
	}
	after := docs(30)
	for i := 0; i < len(after); i += 3 {
		commit(db, after[i:i+3])
	}
	written, size = ends(db)
	if size <= written {
		t.Fatalf("open file of %d bytes, entries end at %d: no zeros ahead", size, written)
	}
	file, err := os.ReadFile(db.log.path(hour))
	if err != nil {
		t.Fatal(err)
	}
	torn := append(file[:written:written], file[written-30:written-10]...)
	torn = append(torn, make([]byte, 3000)...)
	for i, b := range [][]byte{file, torn} {
		if err := os.MkdirAll(filepath.Join(crashed[i], textDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crashed[i], textDir, filepath.Base(db.log.path(hour))), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, textDir, filepath.Base(db.log.path(hour)))); err != nil || info.Size() != written {
		t.Errorf("closed file: %v, %v; want %d bytes, without the zeros", info.Size(), err, written)
	}

	for i, c := range crashed {
		db, err := Open(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		db.textPlace = textsInLog
		if db.replayed != len(after) {
			t.Errorf("%s: replayed %d records, want %d", c, db.replayed, len(after))
		}
		check(db, before)
		check(db, after)
		// Appends go on after the entries (and the torn entry), then a
		// second crash loses pebble's copy of them.
		second := c + "-again"
		if err := db.db.Checkpoint(second, pebble.WithFlushedWAL()); err != nil {
			t.Fatal(err)
		}
		more := docs(6)
		commit(db, more[:3])
		commit(db, more[3:])
		want := written // the zeros cut
		if i == 1 {
			want = int64(len(torn)) // the torn entry and the zeros after it kept
		}
		var at int64 = -1
		err = db.ScanViews(more[0].Seq, more[0].Seq+1, func(v *View) error {
			at = int64(v.text.off)
			return nil
		})
		if err != nil || at != want {
			t.Errorf("%s: first append at %d (%v), want %d", c, at, err, want)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(second, textDir), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(c, textDir, filepath.Base(db.log.path(hour))))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(second, textDir, filepath.Base(db.log.path(hour))), b, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err = Open(second, nil)
		if err != nil {
			t.Fatal(err)
		}
		if db.replayed != len(more) {
			t.Errorf("%s: replayed %d records, want %d", second, db.replayed, len(more))
		}
		check(db, before)
		check(db, after)
		check(db, more)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestZerosAheadNewHour checks that only the newest hour's file is kept
// zeroed: once a newer hour's file gets its zeros, the older one loses
// its own.
func TestZerosAheadNewHour(t *testing.T) {
	db, err := Open(t.TempDir(), &Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.textPlace = textsInLog
	db.log.ahead = 4096
	n := 0
	commit := func(hour int64) {
		t.Helper()
		b := db.NewBatch()
		for range 5 {
			n++
			b.Put(&Doc{Record: Record{Seq: MakeSeq(hour*3600, uint64(n)), ID: fmt.Sprint("d", n), Fingerprint: []byte{byte(n), 1, 2, 3, 4, 5, 6, 7}, Time: hour * 3600},
				Text: []byte(strings.Repeat("some text ", 30))})
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		db.log.zeroers.Wait()
	}
	// sizes returns, for hours 7 and 8, the file's size and where its
	// entries end.
	sizes := func() (size, end [2]int64) {
		t.Helper()
		db.log.mu.Lock()
		defer db.log.mu.Unlock()
		for i, h := range []uint64{7, 8} {
			if tf := db.log.files[h]; tf != nil {
				info, err := os.Stat(db.log.path(h))
				if err != nil {
					t.Fatal(err)
				}
				size[i], end[i] = info.Size(), tf.written
			}
		}
		return size, end
	}
	for range 3 {
		commit(7)
	}
	if size, end := sizes(); size[0] <= end[0] {
		t.Fatalf("hour 7 alone: file of %d bytes, entries end at %d: no zeros ahead", size[0], end[0])
	}
	commit(8)
	size, end := sizes()
	if size[1] <= end[1] {
		t.Errorf("hour 8: file of %d bytes, entries end at %d: no zeros ahead", size[1], end[1])
	}
	if size[0] != end[0] {
		t.Errorf("hour 7 after hour 8 began: file of %d bytes, entries end at %d: zeros left", size[0], end[0])
	}
}
