package store

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestMemTextFS checks the in-memory text log's files against a byte
// slice written alike: appends and writes at offsets across chunk
// boundaries and past the end, reads across them and past the end, and the
// file system's Stat, List, Open and Remove.
func TestMemTextFS(t *testing.T) {
	m := newMemTextFS(vfs.NewMem())
	if err := m.MkdirAll("texts", 0o755); err != nil {
		t.Fatal(err)
	}
	name := m.PathJoin("texts", "0000000001.log")
	f, err := m.Create(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	bytesOf := rand.NewChaCha8([32]byte{3})
	var want []byte
	grow := func(end int64) {
		if end > int64(len(want)) {
			want = append(want, make([]byte, end-int64(len(want)))...)
		}
	}
	for i := range 100 {
		p := make([]byte, r.IntN(3*memChunk/2))
		bytesOf.Read(p)
		off := int64(len(want))
		switch i % 3 {
		case 1: // inside what is written
			off = r.Int64N(off + 1)
		case 2: // past the end: a hole of zeros
			off += r.Int64N(memChunk)
		}
		if _, err := f.WriteAt(p, off); err != nil {
			t.Fatal(err)
		}
		grow(off + int64(len(p)))
		copy(want[off:], p)
		if i%20 == 0 {
			// Write writes at the handle's position, which only Write
			// moves: 0, then 8, 16...
			pos := int64(i / 20 * len("appended"))
			if _, err := f.Write([]byte("appended")); err != nil {
				t.Fatal(err)
			}
			grow(pos + 8)
			copy(want[pos:], "appended")
		}
		if info, err := f.Stat(); err != nil || info.Size() != int64(len(want)) {
			t.Fatalf("write %d: size %d, %v; want %d", i, info.Size(), err, len(want))
		}
	}
	info, err := m.Stat(name)
	if err != nil || info.Size() != int64(len(want)) || info.Name() != "0000000001.log" || info.IsDir() {
		t.Fatalf("Stat: %v, %v; want %d bytes", info, err, len(want))
	}
	g, err := m.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(g)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadAll: %d bytes, %v; want %d, the same", len(got), err, len(want))
	}
	for range 100 {
		off := r.Int64N(int64(len(want)) + 10)
		p := make([]byte, r.IntN(3*memChunk))
		n, err := g.ReadAt(p, off)
		end := min(off+int64(len(p)), int64(len(want)))
		if wantN := int(max(0, end-off)); n != wantN || !bytes.Equal(p[:n], want[min(off, end):end]) || (n < len(p)) != (err == io.EOF) {
			t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d", len(p), off, n, err, wantN)
		}
	}
	if _, err := g.WriteAt([]byte("x"), 0); err == nil {
		t.Error("a file opened for reading took a write")
	}
	if names, err := m.List("texts"); err != nil || !slices.Equal(names, []string{"0000000001.log"}) {
		t.Errorf("List = %v, %v", names, err)
	}
	if err := m.Remove(name); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stat(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat after Remove: %v", err)
	}
	if _, err := m.Open(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open after Remove: %v", err)
	}
	if info, err := m.Stat("texts"); err != nil || !info.IsDir() {
		t.Errorf("the directory: %v, %v", info, err)
	}
}
