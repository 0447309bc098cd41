package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []Record{
		{Seq: 1, ID: "a", Fingerprint: []byte{1, 2, 3, 4, 5, 6, 7, 8}, Time: 1700000000, TextHash: 42, TextLen: 3},
		{Seq: MakeSeq(1700000000, 9), ID: "", Fingerprint: make([]byte, 16), Time: -5, TextHash: ^uint64(0)},
		{Seq: 7, ID: "日本語 id with spaces", Fingerprint: []byte{}, Time: 0, TextLen: 1 << 30},
		{Seq: 8, ID: "n", Fingerprint: make([]byte, 8), Time: 3, TextLen: 40, NormLen: 37},
	} {
		got, err := decodeRecord(r.Seq, encodeRecord(nil, &r, textRef{}))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Fingerprint) == 0 {
			r.Fingerprint = got.Fingerprint // nil and empty are alike
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("got %+v, want %+v", got, r)
		}
	}
	// A record with a place in the text log is version 3, with or without
	// a normalized length.
	for _, r := range []Record{{Seq: 5, ID: "v3", Fingerprint: make([]byte, 8), TextLen: 9, NormLen: 7}, {Seq: 6, ID: "v3, no norm", TextLen: 2}} {
		ref := textRef{off: 1 << 33, n: 517}
		b := encodeRecord(nil, &r, ref)
		var v View
		if err := decodeView(r.Seq, b, &v); err != nil || b[0] != 3 || v.text != ref || v.ID == nil || string(v.ID) != r.ID || v.NormLen != r.NormLen {
			t.Errorf("version %d record %+v: view %+v, %v", b[0], r, v, err)
		}
	}
	// A record that an entry of the text log holds is version 4, its place
	// added last; a version 4 record without its place is damaged.
	for _, r := range []Record{{Seq: 5, ID: "v4", Fingerprint: make([]byte, 8), TextLen: 9, NormLen: 7}, {Seq: 6, ID: "", TextLen: 2}} {
		ref := textRef{off: 1 << 33, n: 517}
		rec := logRecord(nil, &r)
		b := withPlace(nil, rec, ref)
		var v View
		if err := decodeView(r.Seq, b, &v); err != nil || b[0] != 4 || v.text != ref || string(v.ID) != r.ID || v.NormLen != r.NormLen || v.TextLen != r.TextLen {
			t.Errorf("version %d record %+v: view %+v, %v", b[0], r, v, err)
		}
		if err := decodeView(r.Seq, rec, &v); !errors.Is(err, ErrCorrupt) {
			t.Errorf("version 4 record without its place: %v, want ErrCorrupt", err)
		}
	}
	// Without a normalized length a record keeps the first format, which
	// earlier releases read.
	if v := encodeRecord(nil, &Record{ID: "x", TextLen: 4}, textRef{})[0]; v != 1 {
		t.Errorf("record without NormLen written as version %d, want 1", v)
	}
	for _, bad := range [][]byte{nil, {2}, {3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {1, 200}, {1, 0, 2}} {
		if _, err := decodeRecord(1, bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decode %v: %v, want ErrCorrupt", bad, err)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(nil, &Record{ID: "x", Fingerprint: make([]byte, 8), TextLen: 4}, textRef{}))
	f.Add(encodeRecord(nil, &Record{ID: "y", Fingerprint: make([]byte, 8), TextLen: 9, NormLen: 7}, textRef{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(3, b)
		if err != nil {
			return
		}
		again, err := decodeRecord(3, encodeRecord(nil, &r, textRef{}))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("re-encoding %+v gave %+v, %v", r, again, err)
		}
	})
}

func TestStore(t *testing.T) {
	for _, c := range []struct {
		d     Durability
		place int
	}{{GroupCommit, textsInLog}, {GroupCommit, textsInPebble}, {SyncEach, textsBySize}, {NoSync, textsBySize}} {
		d := c.d
		t.Run(fmt.Sprint(d, "/", c.place), func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, &Options{Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			db.textPlace = c.place
			const hour = 3600
			base := int64(1700000000 / hour * hour)
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Go(func() {
					for i := range 50 {
						n := w*50 + i
						b := db.NewBatch()
						b.Put(&Doc{Record: Record{Seq: MakeSeq(base+int64(n%3)*hour, uint64(n+1)), ID: fmt.Sprint(n), Fingerprint: make([]byte, 8), Time: base + int64(n%3)*hour}, Text: []byte(fmt.Sprint("text ", n)), Meta: []byte(`{}`)})
						if err := db.Commit(b); err != nil {
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
			if err := db.Barrier(); err != nil {
				t.Fatal(err)
			}
			count := func() int {
				n := 0
				if err := db.Scan(0, 0, func(Record) error { n++; return nil }); err != nil {
					t.Fatal(err)
				}
				return n
			}
			if n := count(); n != 400 {
				t.Fatalf("scan found %d records, want 400", n)
			}
			// A scan's TextPlace reads each text as Text does, wherever
			// it is kept.
			type placed struct {
				seq uint64
				at  TextPlace
			}
			var places []placed
			if err := db.ScanViews(0, 0, func(v *View) error {
				places = append(places, placed{v.Seq, v.TextPlace()})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, p := range places {
				want, _, err := db.Text(p.seq)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := db.TextAt(p.seq, p.at); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("TextAt(%d) = %q, %v; Text gives %q", p.seq, got, err, want)
				}
			}
			// Each commit carried one document: sync on its own synced
			// each, a group shared syncs among the 8 writers, and NoSync
			// synced none.
			switch syncs := db.Syncs(); {
			case d == NoSync && syncs != 0,
				d == SyncEach && syncs != 400,
				d == GroupCommit && (syncs == 0 || syncs > 400):
				t.Fatalf("%d syncs for 400 one-document commits with %v", syncs, d)
			}
			seq := MakeSeq(base+hour, 2) // document 1, in the second hour
			text, meta, err := db.Text(seq)
			if err != nil || string(text) != "text 1" || string(meta) != "{}" {
				t.Fatalf("Text = %q, %q, %v", text, meta, err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if err := db.Commit(db.NewBatch()); !errors.Is(err, ErrClosed) {
				t.Fatalf("commit after close: %v", err)
			}
			db, err = Open(dir, &Options{Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.DeleteBefore(context.Background(), HourStart(base+hour)); err != nil {
				t.Fatal(err)
			}
			if n := count(); n != 400-134 {
				t.Fatalf("after dropping the first hour: %d records, want %d", n, 400-134)
			}
			if _, err := db.Record(MakeSeq(base, 1)); !errors.Is(err, ErrNotFound) {
				t.Fatalf("record of a dropped hour: %v", err)
			}
			b := db.NewBatch()
			b.Delete(seq)
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			if _, _, err := db.Text(seq); !errors.Is(err, ErrNotFound) {
				t.Fatalf("deleted text: %v", err)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{{Durability: 7}, {CommitDelay: 2 * time.Second}, {CacheSize: -1}} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := Open("", nil); err == nil {
		t.Error("empty dir without InMemory accepted")
	}
	if _, err := ParseDurability("fast"); err == nil {
		t.Error("unknown durability accepted")
	}
}

// TestDeleteBeforeGivesBackDisk writes two hours of documents with texts
// (big enough to live in blob files), deletes the older hour, and checks
// that the space their data took goes away with them while the newer hour
// stays whole.
func TestDeleteBeforeGivesBackDisk(t *testing.T) {
	for _, place := range []int{textsInLog, textsInPebble} {
		t.Run(fmt.Sprint(place), func(t *testing.T) { testDeleteBefore(t, place) })
	}
}

func testDeleteBefore(t *testing.T, place int) {
	dir := t.TempDir()
	db, err := Open(dir, &Options{Durability: NoSync, MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	db.textPlace = place
	defer db.Close()
	const perHour = 1500
	rng := rand.New(rand.NewPCG(1, 2))
	text := make([]byte, 2000)
	hour0 := int64(1700000000 / 3600 * 3600)
	for h := range int64(2) {
		b := db.NewBatch()
		for i := range perHour {
			for j := range text {
				text[j] = byte('a' + rng.IntN(26)) // hardly compressible
			}
			seq := MakeSeq(hour0+h*3600, uint64(i+1))
			b.Put(&Doc{Record: Record{Seq: seq, ID: fmt.Sprint(h, "-", i), Fingerprint: make([]byte, 8), Time: hour0 + h*3600}, Text: text})
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.db.Flush(); err != nil {
		t.Fatal(err)
	}
	// The bytes of pebble's live files and of the text files as the
	// directory lists them.
	live := func() uint64 {
		m := db.db.Metrics()
		n := m.Table.Local.LiveSize + m.BlobFiles.Local.LiveSize
		entries, err := os.ReadDir(filepath.Join(dir, textDir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += uint64(info.Size())
		}
		return n
	}
	before := live()
	if min := uint64(2 * perHour * len(text) / 2); before < min {
		t.Fatalf("%d bytes of files hold %d texts of %d bytes", before, 2*perHour, len(text))
	}
	if got := db.DiskUsage(); got < before/2 {
		t.Errorf("DiskUsage %d, files hold %d", got, before)
	}
	if _, err := db.DeleteBefore(context.Background(), HourStart(hour0+3600)); err != nil {
		t.Fatal(err)
	}
	if after := live(); after > before*6/10 {
		t.Errorf("%d bytes of files after deleting half of the documents, %d before", after, before)
	}
	n := 0
	if err := db.Scan(0, 0, func(r Record) error {
		if r.Time != hour0+3600 {
			t.Fatalf("record of %d left after DeleteBefore", r.Time)
		}
		if _, _, err := db.Text(r.Seq); err != nil {
			t.Fatalf("text of %d: %v", r.Seq, err)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != perHour {
		t.Errorf("%d records left, want %d", n, perHour)
	}
}

func TestSeqSpan(t *testing.T) {
	db, err := Open("", &Options{InMemory: true, Durability: NoSync})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, ok, err := db.SeqSpan(); ok || err != nil {
		t.Fatalf("empty store: ok %v, err %v", ok, err)
	}
	seqs := []uint64{MakeSeq(7200, 5), MakeSeq(3600, 9), MakeSeq(10800, 2), MakeSeq(7200, 1)}
	for _, seq := range seqs {
		b := db.NewBatch()
		b.Put(&Doc{Record: Record{Seq: seq, ID: fmt.Sprint(seq), Fingerprint: make([]byte, 8)}, Text: []byte("t")})
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	first, last, ok, err := db.SeqSpan()
	if !ok || err != nil || first != MakeSeq(3600, 9) || last != MakeSeq(10800, 2) {
		t.Fatalf("SeqSpan = %x, %x, %v, %v; want %x, %x", first, last, ok, err, MakeSeq(3600, 9), MakeSeq(10800, 2))
	}
}

// TestCompression writes the same texts with each compression: every
// setting reads them back, also when the store is reopened with another
// setting, and the text files' sizes rank as the settings promise (the
// texts are
// English-like, with a small vocabulary, so every algorithm compresses
// them).
func TestCompression(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the of and a to in is was that for on are with as his they be at one have this from or had by")
	texts := make([][]byte, 3000)
	for i := range texts {
		var b []byte
		for range 150 {
			b = append(b, words[r.IntN(len(words))]...)
			b = append(b, ' ')
		}
		texts[i] = b
	}
	size := map[Compression]int64{}
	for _, c := range []Compression{Snappy, MinLZ, Zstd, NoCompression} {
		dir := t.TempDir()
		db, err := Open(dir, &Options{Durability: NoSync, MemTableSize: 1 << 20, Compression: c})
		if err != nil {
			t.Fatal(err)
		}
		db.textPlace = textsInLog
		for i, text := range texts {
			b := db.NewBatch()
			b.Put(&Doc{Record: Record{Seq: uint64(i + 1), ID: fmt.Sprint(i), Fingerprint: make([]byte, 8)}, Text: text})
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if db, err = Open(dir, &Options{Compression: (c + 1) % (NoCompression + 1)}); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 1500, 2999} {
			if text, _, err := db.Text(uint64(i + 1)); err != nil || !bytes.Equal(text, texts[i]) {
				t.Fatalf("%v: text %d: %v", c, i, err)
			}
		}
		db.Close()
		entries, err := os.ReadDir(filepath.Join(dir, textDir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), textFileSuffix) {
				info, err := e.Info()
				if err != nil {
					t.Fatal(err)
				}
				size[c] += info.Size()
			}
		}
	}
	t.Logf("bytes in files: %v", size)
	if !(size[Zstd] < size[Snappy] && size[Snappy] < size[NoCompression] && size[MinLZ] < size[NoCompression]) {
		t.Errorf("file sizes %v: want zstd < snappy < none and minlz < none", size)
	}
	if _, err := ParseCompression("lz4"); err == nil {
		t.Error("ParseCompression accepted lz4")
	}
	for c := MinLZ; c <= NoCompression; c++ {
		if got, err := ParseCompression(c.String()); err != nil || got != c {
			t.Errorf("ParseCompression(%q) = %v, %v", c.String(), got, err)
		}
	}
	if err := (&Options{Compression: NoCompression + 1}).Validate(); err == nil {
		t.Error("Validate accepted an unknown compression")
	}
}

// TestCommitAlone: with group commit, a writer that finds nothing else
// being committed or queued commits on its own goroutine; writes that
// arrive while a commit is under way queue for the committer and are
// committed after it, and Barrier waits for them.
func TestCommitAlone(t *testing.T) {
	db, err := Open(t.TempDir(), &Options{Durability: GroupCommit})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const base = 1700000000
	put := func(n int) *Batch {
		b := db.NewBatch()
		b.Put(&Doc{Record: Record{Seq: MakeSeq(base, uint64(n+1)), ID: fmt.Sprint(n), Fingerprint: make([]byte, 8), Time: base}, Text: []byte(fmt.Sprint("text ", n))})
		return b
	}
	for i := range 20 {
		if err := db.Commit(put(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := db.alone.Load(); n != 20 {
		t.Fatalf("%d of 20 commits of a lone writer made alone", n)
	}
	// As if a commit were under way: the writers queue for the committer.
	db.commitMu.Lock()
	done := make(chan error, 8)
	for i := range 8 {
		go func() { done <- db.Commit(put(100 + i)) }()
	}
	barrier := make(chan error, 1)
	go func() {
		for db.submitted.Load() < 28 {
			time.Sleep(time.Millisecond)
		}
		barrier <- db.Barrier()
	}()
	select {
	case err := <-done:
		db.commitMu.Unlock()
		t.Fatalf("a commit returned (%v) while another was under way", err)
	case err := <-barrier:
		db.commitMu.Unlock()
		t.Fatalf("Barrier returned (%v) while writes were queued", err)
	case <-time.After(100 * time.Millisecond):
	}
	db.commitMu.Unlock()
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-barrier; err != nil {
		t.Fatal(err)
	}
	if n := db.alone.Load(); n != 20 {
		t.Errorf("%d commits made alone, want the 20 of the lone writer", n)
	}
	if d, s := db.durable.Load(), db.submitted.Load(); d != s || s != 28 {
		t.Errorf("%d of %d writes durable, want 28 of 28", d, s)
	}
	// Nothing queued any more: the next write is made alone again.
	if err := db.Commit(put(200)); err != nil || db.alone.Load() != 21 {
		t.Fatalf("commit once the queue is empty: %v, %d made alone, want 21", err, db.alone.Load())
	}
	n := 0
	if err := db.Scan(0, 0, func(Record) error { n++; return nil }); err != nil || n != 29 {
		t.Fatalf("scan: %d records, %v; want 29", n, err)
	}
}

// TestDiskUsageRecent checks that DiskUsage counts what was just written,
// before pebble flushes or rotates anything: the WAL pebble appends to
// was left out (a store of 1.2 MB of texts said 3 KB until reopened), in
// memory as on disk, and that DeleteBefore of a range that holds nothing
// frees nothing.
func TestDiskUsageRecent(t *testing.T) {
	for _, mem := range []bool{false, true} {
		dir := t.TempDir()
		db, err := Open(dir, &Options{InMemory: mem})
		if err != nil {
			t.Fatal(err)
		}
		const n, size = 3000, 400
		t0 := int64(1764800000)
		b := db.NewBatch()
		for i := range n {
			text := make([]byte, size)
			for j := range text {
				text[j] = byte('a' + (i*31+j*7)%26)
			}
			b.Put(&Doc{Record: Record{Seq: MakeSeq(t0, uint64(i)), ID: fmt.Sprint(i), Fingerprint: make([]byte, 8), Time: t0}, Text: text})
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if got := db.DiskUsage(); got < n*size/2 {
			t.Errorf("in memory %v: DiskUsage %d just after writing %d bytes of texts", mem, got, n*size)
		}
		freed, err := db.DeleteBefore(context.Background(), HourStart(t0-3600))
		if err != nil || freed != 0 {
			t.Errorf("in memory %v: DeleteBefore of an hour that holds nothing freed %d bytes, %v", mem, freed, err)
		}
		db.Close()
	}
}
