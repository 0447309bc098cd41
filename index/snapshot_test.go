package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"testing"
)

// snapshotFixture builds an index whose state has every part a snapshot
// holds: main and small levels, a buffer, dead and free slots, wide times.
func snapshotFixture(tb interface{ Fatal(...any) }) (*Index, oracle) {
	ix := newTestIndex(tb, Options{K: 3, Design: Seed4x16()}, 8, 64)
	model := oracle{}
	es := randomEntries(600, 21)
	for i := range es {
		es[i].ID = uint64(i % 450)
		if i == 301 {
			es[i].Time = -1 << 40 // forces the wide time column
		}
		model[es[i].ID] = es[i]
	}
	ix.AddBatch(es[:300])
	for _, e := range es[300:] {
		ix.Add(e)
	}
	for id := uint64(0); id < 40; id += 3 {
		ix.Remove(id)
		delete(model, id)
	}
	return ix, model
}

func TestSnapshotRoundTrip(t *testing.T) {
	ix, model := snapshotFixture(t)
	var buf bytes.Buffer
	n, err := ix.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v; wrote %d bytes", n, err, buf.Len())
	}
	back, err := ReadIndex(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != len(model) || back.K() != ix.K() || back.Design().String() != ix.Design().String() {
		t.Fatalf("loaded Len %d K %d design %v; want %d %d %v", back.Len(), back.K(), back.Design(), len(model), ix.K(), ix.Design())
	}
	r := rand.New(rand.NewPCG(1, 1))
	check := func() {
		for _, e := range model {
			q := e.FP ^ 1<<r.UintN(64)
			checkQuery(t, back, model, q, 3)
			if got, want := back.Query(q, 3, nil), ix.Query(q, 3, nil); !slices.Equal(got, want) {
				t.Fatalf("loaded Query = %v, original %v", got, want)
			}
		}
	}
	check()
	// The loaded index keeps working: the same changes give the same answers.
	for _, e := range randomEntries(200, 22) {
		e.ID += 1000
		ix.Add(e)
		back.Add(e)
		model[e.ID] = e
	}
	for id := uint64(40); id < 400; id += 2 {
		ix.Remove(id)
		back.Remove(id)
		delete(model, id)
	}
	if got, want := back.ExpireBefore(-5), ix.ExpireBefore(-5); got != want || got != 1 {
		t.Fatalf("ExpireBefore on loaded = %d, original %d, want 1", got, want)
	}
	for id, e := range model {
		if e.Time < -5 {
			delete(model, id)
		}
	}
	check()
}

func TestSnapshotCorruption(t *testing.T) {
	ix, _ := snapshotFixture(t)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	r := rand.New(rand.NewPCG(2, 2))
	for range 300 {
		bad := bytes.Clone(good)
		i := r.IntN(len(bad))
		bad[i] ^= byte(1 + r.IntN(255))
		if _, err := ReadIndex(bytes.NewReader(bad)); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("byte %d changed: ReadIndex error %v, want ErrSnapshot", i, err)
		}
	}
	for _, cut := range []int{0, 3, 8, 12, 100, len(good) / 2, len(good) - 4, len(good) - 1} {
		if _, err := ReadIndex(bytes.NewReader(good[:cut])); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("cut at %d: ReadIndex error %v, want ErrSnapshot", cut, err)
		}
	}
}

func FuzzReadIndex(f *testing.F) {
	ix, _ := snapshotFixture(f)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(snapshotMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := ReadIndex(bytes.NewReader(data))
		if err != nil {
			return
		}
		ix.Query(0, ix.K(), nil)
		ix.Add(Entry{ID: 1, FP: 1})
		ix.ExpireBefore(0)
	})
}

// TestSnapshotAdaptive checks that an adaptive index stays adaptive, with
// its current design, after a round trip, and that version 1 snapshots
// (written before the flags existed) still load, as fixed indexes.
func TestSnapshotAdaptive(t *testing.T) {
	ix := newTestIndex(t, Options{K: 3, Adaptive: true}, 8, 64)
	ix.AddBatch(randomEntries(3000, 4))
	back := roundTrip(t, ix)
	if !back.opts.Adaptive || back.Design().String() != ix.Design().String() {
		t.Fatalf("loaded adaptive %v design %v, want true %v", back.opts.Adaptive, back.Design(), ix.Design())
	}

	fixed, model := snapshotFixture(t)
	var buf bytes.Buffer
	if _, err := fixed.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	// Version 1: the same bytes without the flags and sizes words, which
	// follow the design levels (the fixture has no sizes), and without the
	// tags word (no tags), which follows the fingerprints and ids, and with
	// the checksum computed again.
	b := buf.Bytes()
	flagsAt := len(snapshotMagic) + 4 + 4 + 8 + 8 + 4 + 8*len(fixed.opts.Design.Levels)
	tagsAt := flagsAt + 4 + 4 + 2*(8+8*len(fixed.fps))
	if fixed.tags != nil || binary.LittleEndian.Uint32(b[tagsAt:]) != 0 {
		t.Fatal("fixture has tags")
	}
	if len(fixed.opts.Sizes) != 0 || binary.LittleEndian.Uint32(b[flagsAt+4:]) != 0 {
		t.Fatal("fixture has sizes")
	}
	v1 := append(slices.Clone(b[:flagsAt]), b[flagsAt+8:tagsAt]...)
	v1 = append(v1, b[tagsAt+4:len(b)-4]...)
	v1[len(snapshotMagic)] = 1
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.Checksum(v1, castagnoli))
	old, err := ReadIndex(bytes.NewReader(v1))
	if err != nil {
		t.Fatalf("version 1 snapshot: %v", err)
	}
	if old.opts.Adaptive || old.Len() != len(model) || old.Design().String() != fixed.Design().String() {
		t.Fatalf("version 1 snapshot loaded as adaptive %v, Len %d, design %v", old.opts.Adaptive, old.Len(), old.Design())
	}
	for _, e := range model {
		checkQuery(t, old, model, e.FP, 3)
	}
}

// TestWideIfFits checks that WideIfFits makes the tables wide exactly when
// the design fits the budget wide, that an adaptive index decides again
// at a full rebuild, and that queries and snapshots follow.
func TestWideIfFits(t *testing.T) {
	d := Design{Levels: []Level{{Blocks: 7, Key: 1}}} // 82-91 bytes, 28 more wide
	for _, c := range []struct {
		name   string
		opts   Options
		wide   bool
		budget float64 // for the rebuild of an adaptive index
	}{
		{"fits", Options{K: 6, Design: d, WideIfFits: true, MaxBytesPerEntry: 270}, true, 0},
		{"fits narrow only", Options{K: 6, Design: d, WideIfFits: true, MaxBytesPerEntry: 100}, false, 0},
		{"not asked", Options{K: 6, Design: d, MaxBytesPerEntry: 270}, false, 0},
		{"Wide", Options{K: 6, Design: d, Wide: true, MaxBytesPerEntry: 60}, true, 0},
		{"adaptive, budget cut", Options{K: 6, Adaptive: true, WideIfFits: true, MaxBytesPerEntry: 270, ExpectedN: 1000}, true, 100},
		{"adaptive, budget raised", Options{K: 6, Adaptive: true, WideIfFits: true, MaxBytesPerEntry: 100, ExpectedN: 1000}, false, 270},
	} {
		t.Run(c.name, func(t *testing.T) {
			ix := newTestIndex(t, c.opts, 8, 64)
			model := oracle{}
			es := randomEntries(2000, 7)
			r := rand.New(rand.NewPCG(7, 7))
			for i := range 200 { // neighbours 4 to 6 bits away
				e := Entry{ID: uint64(len(es)), FP: es[i].FP, Time: es[i].Time}
				for range 4 + r.IntN(3) {
					e.FP ^= 1 << r.UintN(64)
				}
				es = append(es, e)
			}
			for _, e := range es {
				ix.Add(e)
				model[e.ID] = e
			}
			rebuild(ix)
			want := c.wide
			if c.budget != 0 {
				ix.opts.MaxBytesPerEntry = c.budget
				rebuild(ix)
				want = !want
			}
			if ix.Wide() != want {
				t.Fatalf("Wide() = %v, want %v", ix.Wide(), want)
			}
			for _, l := range ix.levels {
				for _, r := range l {
					if want != (r.rest != nil) || want == (r.hi != nil) {
						t.Fatalf("run with %d wide and %d narrow entries, want wide %v", len(r.rest), len(r.hi), want)
					}
				}
			}
			back := roundTrip(t, ix)
			if back.Wide() != want || back.WideIfFits() != c.opts.WideIfFits {
				t.Fatalf("loaded: Wide() %v, WideIfFits() %v; want %v, %v", back.Wide(), back.WideIfFits(), want, c.opts.WideIfFits)
			}
			for _, e := range es[:300] {
				checkQuery(t, ix, model, e.FP, 6)
				checkQuery(t, back, model, e.FP, 6)
			}
		})
	}
}

// TestSnapshotWide checks that a wide index keeps its extra bits through a
// round trip and answers queries beyond K by probing as before.
func TestSnapshotWide(t *testing.T) {
	ix := newTestIndex(t, Options{K: 3, Design: Seed4x16(), Wide: true}, 8, 64)
	ix.probe = 1
	model := oracle{}
	for _, e := range randomEntries(3000, 5) {
		ix.Add(e)
		model[e.ID] = e
	}
	back := roundTrip(t, ix)
	back.probe = 1
	if !back.opts.Wide {
		t.Fatal("loaded index is not wide")
	}
	for _, l := range back.levels {
		for _, r := range l {
			if len(r.rest) != len(r.slot) || r.hi != nil {
				t.Fatalf("loaded run has %d wide entries, %d narrow, for %d slots", len(r.rest), len(r.hi), len(r.slot))
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 5))
	n := 0
	for _, e := range model {
		if n++; n > 300 {
			break
		}
		q := e.FP
		for range 8 {
			q ^= 1 << r.UintN(64)
		}
		checkQuery(t, back, model, q, 10)
	}
}

// roundTrip writes ix to a snapshot and reads it back.
// TestSnapshotTags checks that entries' tags survive a round trip, also
// when the first tag came after untagged entries and into reused slots.
func TestSnapshotTags(t *testing.T) {
	ix := newTestIndex(t, Options{K: 3, Design: Seed4x16()}, 8, 64)
	model := oracle{}
	es := randomEntries(500, 8)
	for i := range es {
		if i >= 200 {
			es[i].Tag = uint16(i)
		}
		model[es[i].ID] = es[i]
	}
	ix.AddBatch(es[:150])
	for id := uint64(0); id < 30; id++ {
		ix.Remove(id) // frees slots for tagged entries to reuse
		delete(model, id)
	}
	ix.AddBatch(es[150:300])
	for _, e := range es[300:] {
		ix.Add(e)
	}
	if ix.tags == nil {
		t.Fatal("no tag column")
	}
	for _, back := range []*Index{ix, roundTrip(t, ix)} {
		for _, e := range es {
			checkQuery(t, back, model, e.FP, 3)
		}
	}
}

func roundTrip(t *testing.T, ix *Index) *Index {
	t.Helper()
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadIndex(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestSnapshotByteOrder checks that the snapshot written from memory as it
// is (littleEndian) and the one written word by word, as a big-endian
// machine does, are the same bytes, and that either reading loads it.
func TestSnapshotByteOrder(t *testing.T) {
	if !littleEndian {
		t.Skip("big-endian machine: only the word-by-word code runs")
	}
	ix, model := snapshotFixture(t)
	defer func(chunk int) { littleEndian, readChunk = true, chunk }(readChunk)
	readChunk = 100 // arrays are read in many steps
	var direct, byWord bytes.Buffer
	if _, err := ix.WriteTo(&direct); err != nil {
		t.Fatal(err)
	}
	littleEndian = false
	if _, err := ix.WriteTo(&byWord); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(direct.Bytes(), byWord.Bytes()) {
		t.Fatal("the snapshot written from memory differs from the one written word by word")
	}
	for _, le := range []bool{false, true} {
		littleEndian = le
		back, err := ReadIndex(bytes.NewReader(direct.Bytes()))
		if err != nil {
			t.Fatalf("littleEndian %v: %v", le, err)
		}
		if back.Len() != ix.Len() {
			t.Fatalf("littleEndian %v: loaded %d entries, want %d", le, back.Len(), ix.Len())
		}
		for _, e := range model {
			if got, want := back.Query(e.FP, 3, nil), ix.Query(e.FP, 3, nil); !slices.Equal(got, want) {
				t.Fatalf("littleEndian %v: loaded Query = %v, original %v", le, got, want)
			}
		}
	}
}
