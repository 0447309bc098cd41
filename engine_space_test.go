package neardup

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestDiskFull opens a store whose file system seems to have 10 MiB free,
// under the default margin of 64 MiB: writes are refused with ErrDiskFull
// and store nothing, while Check, Get and Stats answer; once the space is
// measured again with room, writes go on. A negative margin, and a store
// in memory, are never refused.
func TestDiskFull(t *testing.T) {
	var free atomic.Int64
	free.Store(10 << 20)
	saved := freeSpace
	freeSpace = func(string) (int64, bool) { return free.Load(), true }
	t.Cleanup(func() { freeSpace = saved })
	ctx := context.Background()

	e, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	doc := Document{ID: "a", Text: "the text of a document that arrives while the disk is full"}
	if _, err := e.CheckAndInsert(ctx, doc); !errors.Is(err, ErrDiskFull) {
		t.Errorf("CheckAndInsert with 10 MiB free: %v, want ErrDiskFull", err)
	}
	if _, err := e.CheckAndInsertBatch(ctx, []Document{doc}); !errors.Is(err, ErrDiskFull) {
		t.Errorf("CheckAndInsertBatch with 10 MiB free: %v, want ErrDiskFull", err)
	}
	if _, err := e.Insert(ctx, doc); !errors.Is(err, ErrDiskFull) {
		t.Errorf("Insert with 10 MiB free: %v, want ErrDiskFull", err)
	}
	if _, err := e.Check(ctx, doc); err != nil {
		t.Errorf("Check with 10 MiB free: %v", err)
	}
	if _, err := e.Get("a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a refused document: %v, want ErrNotFound", err)
	}
	if s := e.Stats(); !s.DiskFull || s.FreeBytes != 10<<20 {
		t.Errorf("Stats: disk full %v, free %d; want true, %d", s.DiskFull, s.FreeBytes, 10<<20)
	}

	free.Store(1 << 30)
	e.measureSpace()
	r, err := e.CheckAndInsert(ctx, doc)
	if err != nil || !r.Inserted {
		t.Fatalf("CheckAndInsert with 1 GiB free: %+v, %v", r, err)
	}
	if s := e.Stats(); s.DiskFull || s.FreeBytes != 1<<30 {
		t.Errorf("Stats: disk full %v, free %d; want false, %d", s.DiskFull, s.FreeBytes, 1<<30)
	}

	free.Store(0)
	noMargin, inMemory := DefaultOptions(), DefaultOptions()
	noMargin.MinFreeBytes, inMemory.InMemory = -1, true
	for _, c := range []struct {
		name string
		dir  string
		opts Options
	}{{"no margin", t.TempDir(), noMargin}, {"in memory", "", inMemory}} {
		e, err := Open(c.dir, &c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.CheckAndInsert(ctx, doc); err != nil {
			t.Errorf("%s, nothing free: %v", c.name, err)
		}
		if s := e.Stats(); s.DiskFull || s.FreeBytes != 0 {
			t.Errorf("%s: Stats disk full %v, free %d; want neither", c.name, s.DiskFull, s.FreeBytes)
		}
		e.Close()
	}
}
