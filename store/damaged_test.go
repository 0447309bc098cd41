package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDamagedManifest damages the manifest of a store whose records are in
// a table, as a disk fault would, and opens it: pebble reads the manifest
// up to the damage, which leaves it an empty store, and would remove the
// tables it no longer knows. Open refuses the store instead, naming what is
// wrong, and every table is still there, at that Open and the next.
func TestDamagedManifest(t *testing.T) {
	for _, damage := range []string{"byte overwritten", "marker removed"} {
		t.Run(damage, func(t *testing.T) {
			dir := writeStore(t, 100, textsInLog, false)
			// Opened once more, the store writes the log of those
			// writes to a table, listed in a new manifest after the
			// table-less state it begins with, and removes the log: the
			// records are in the table alone.
			db, err := Open(dir, &Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			before := tables(dir)
			if len(before) == 0 {
				t.Fatal("no table")
			}
			markers, _ := filepath.Glob(filepath.Join(dir, "marker.manifest.*"))
			if len(markers) != 1 {
				t.Fatalf("manifest markers %v", markers)
			}
			switch damage {
			case "byte overwritten":
				manifest := filepath.Join(dir, markers[0][strings.LastIndex(markers[0], "MANIFEST-"):])
				fi, err := os.Stat(manifest)
				if err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(manifest, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.WriteAt([]byte{0xff}, fi.Size()-10)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
			case "marker removed":
				if err := os.Remove(markers[0]); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 {
				db, err := Open(dir, &Options{})
				if err == nil {
					db.Close()
					t.Fatal("a store whose manifest is damaged opened")
				}
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), before[0]) {
					t.Errorf("error %q, want ErrDamaged naming %s and %s", err, dir, before[0])
				}
				if after := tables(dir); !slices.Equal(before, slices.DeleteFunc(after, func(n string) bool { return !slices.Contains(before, n) })) {
					t.Fatalf("tables %v before, %v after", before, tables(dir))
				}
			}
		})
	}
}

// writeStore makes a store in a new directory, commits n documents with
// texts of 40 repeats of a few words to it, their texts where place says
// (textsInLog, textsInPebble), and closes it; with flush it writes them
// into a table first.
func writeStore(t *testing.T, n, place int, flush bool) string {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(dir, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.textPlace = place
	b := db.NewBatch()
	for i := range n {
		b.Put(&Doc{Record: Record{Seq: MakeSeq(1700000000, uint64(i)), ID: fmt.Sprint("d", i), Fingerprint: make([]byte, 8), Time: 1700000000},
			Text: []byte(strings.Repeat(fmt.Sprint("text ", i, " "), 40))})
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if flush {
		if err := db.db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
