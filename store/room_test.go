package store

import (
	"strings"
	"testing"
)

// TestOpenWithoutRoom opens a store whose write-ahead log holds records on
// a file system with less room than writing them into tables takes: pebble
// would retry that write for ever, so Open fails at once, naming the
// directory and the room it takes, and opens the store, every record
// there, once there is room.
func TestOpenWithoutRoom(t *testing.T) {
	dir := writeStore(t, 50, textsBySize, false)
	saved := freeSpace
	t.Cleanup(func() { freeSpace = saved })
	freeSpace = func(string) (int64, bool) { return 4096, true }
	if db, err := Open(dir, &Options{}); err == nil {
		db.Close()
		t.Fatal("opened with 4096 bytes free")
	} else if msg := err.Error(); !strings.Contains(msg, dir) || !strings.Contains(msg, "4096 bytes free") || !strings.Contains(msg, "make room") {
		t.Errorf("error %q, want one naming %s, the room free and what to do", msg, dir)
	}
	freeSpace = func(string) (int64, bool) { return 1 << 30, true }
	db, err := Open(dir, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	if err := db.Scan(0, ^uint64(0), func(Record) error { n++; return nil }); err != nil || n != 50 {
		t.Fatalf("%d records, %v; want 50", n, err)
	}
}
