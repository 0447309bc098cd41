package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestTextLogAcrossHours writes documents over more hours than the log
// keeps files open, with and without metadata, commits some batches and
// abandons others, reopens, and reads every committed text back.
func TestTextLogAcrossHours(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.textPlace = textsInLog
	const hours = maxOpenTextFiles + 30
	want := map[uint64][2]string{}
	for round := range 3 {
		b := db.NewBatch()
		for h := range hours {
			seq := MakeSeq(int64(h)*3600, uint64(round+1))
			text := fmt.Sprintf("text of hour %d, round %d: %s", h, round, bytes.Repeat([]byte("la "), h))
			meta := ""
			if h%2 == 0 {
				meta = fmt.Sprintf(`{"h":%d}`, h)
			}
			d := &Doc{Record: Record{Seq: seq, ID: fmt.Sprint(h, "/", round), Fingerprint: make([]byte, 8), Time: int64(h) * 3600}, Text: []byte(text)}
			if meta != "" {
				d.Meta = []byte(meta)
			}
			b.Put(d)
			if round != 1 {
				want[seq] = [2]string{text, meta}
			}
		}
		if round == 1 {
			continue // never committed: its entries are never written
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	check := func(db *DB) {
		t.Helper()
		for seq, tm := range want {
			text, meta, err := db.Text(seq)
			if err != nil || string(text) != tm[0] || string(meta) != tm[1] {
				t.Fatalf("Text(%x) = %q, %q, %v; want %q, %q", seq, text, meta, err, tm[0], tm[1])
			}
		}
		if _, _, err := db.Text(MakeSeq(3600, 2)); !errors.Is(err, ErrNotFound) {
			t.Errorf("text of an abandoned batch: %v, want ErrNotFound", err)
		}
	}
	check(db)
	if n := len(db.log.files); n > maxOpenTextFiles {
		t.Errorf("%d text files open, at most %d wanted", n, maxOpenTextFiles)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check(db)
}

// TestTextLogDamage checks that a text whose bytes were changed on disk is
// reported as corrupt, that a torn tail left by a crash is never read, and
// that writes after it read back.
func TestTextLogDamage(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, &Options{Compression: NoCompression})
	if err != nil {
		t.Fatal(err)
	}
	db.textPlace = textsInLog
	put := func(db *DB, n uint64, text string) {
		t.Helper()
		b := db.NewBatch()
		b.Put(&Doc{Record: Record{Seq: MakeSeq(0, n), ID: fmt.Sprint(n), Fingerprint: make([]byte, 8)}, Text: []byte(text)})
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	put(db, 1, "the first text")
	put(db, 2, "the second text")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, textDir, fmt.Sprintf("%010d%s", 0, textFileSuffix))
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("second"))
	if i < 0 {
		t.Fatal("second text not in the file as written")
	}
	data[i] = 'S'
	// A torn write: half an entry at the end.
	data = append(data, data[:len(data)/3]...)
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	db.textPlace = textsInLog
	defer db.Close()
	if text, _, err := db.Text(MakeSeq(0, 1)); err != nil || string(text) != "the first text" {
		t.Errorf("first text = %q, %v", text, err)
	}
	if _, _, err := db.Text(MakeSeq(0, 2)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("changed text: %v, want ErrCorrupt", err)
	}
	put(db, 3, "the third text")
	if text, _, err := db.Text(MakeSeq(0, 3)); err != nil || string(text) != "the third text" {
		t.Errorf("text after the torn tail = %q, %v", text, err)
	}
	// A record that points past the end of its file.
	var buf []byte
	buf = encodeRecord(buf, &Record{ID: "4", Fingerprint: make([]byte, 8)}, textRef{off: 1 << 20, n: 40})
	if err := db.db.Set(key(prefixRecord, MakeSeq(0, 4)), buf, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Text(MakeSeq(0, 4)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("text past the end: %v, want ErrCorrupt", err)
	}
}

// TestTextInPebble reads a text stored the way earlier releases stored
// them: under the "t" key, with a record that has no place in the log.
func TestTextInPebble(t *testing.T) {
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seq := MakeSeq(7200, 5)
	rec := encodeRecord(nil, &Record{ID: "old", Fingerprint: make([]byte, 8), TextLen: 8, NormLen: 8}, textRef{})
	val := binary.AppendUvarint(nil, 2)
	val = append(val, "{}old text"...)
	for _, kv := range [][2][]byte{{key(prefixRecord, seq), rec}, {key(prefixText, seq), val}} {
		if err := db.db.Set(kv[0], kv[1], pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	text, meta, err := db.Text(seq)
	if err != nil || string(text) != "old text" || string(meta) != "{}" {
		t.Errorf("Text = %q, %q, %v", text, meta, err)
	}
	b := db.NewBatch()
	b.Delete(seq)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Text(seq); !errors.Is(err, ErrNotFound) {
		t.Errorf("Text after Delete: %v, want ErrNotFound", err)
	}
}

// TestTextPlacement checks the default choice of where texts go: into
// pebble while synced commits are small, to the text log once they carry
// many documents, and readable wherever they went.
func TestTextPlacement(t *testing.T) {
	db, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := uint64(0)
	commit := func(docs int) {
		t.Helper()
		b := db.NewBatch()
		for range docs {
			n++
			b.Put(&Doc{Record: Record{Seq: n, ID: fmt.Sprint(n), Fingerprint: make([]byte, 8)}, Text: fmt.Appendf(nil, "text %d", n)})
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 {
		commit(1)
	}
	if got := db.log.bytes.Load(); got != 0 {
		t.Fatalf("%d bytes in the text log after commits of one document", got)
	}
	// Commits a little over logFromGroup move the mean there, however
	// small each step.
	for range 64 {
		commit(logFromGroup + 4)
	}
	if got := db.log.bytes.Load(); got == 0 {
		t.Fatalf("no text in the log after commits of %d documents", logFromGroup+4)
	}
	// Read back with the log looked at first, then with pebble first.
	for _, place := range []int{textsBySize, textsInPebble} {
		db.textPlace = place
		for seq := uint64(1); seq <= n; seq++ {
			if text, _, err := db.Text(seq); err != nil || string(text) != fmt.Sprint("text ", seq) {
				t.Fatalf("place %d: Text(%d) = %q, %v", place, seq, text, err)
			}
		}
		if _, _, err := db.Text(n + 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("place %d: Text of no document: %v, want ErrNotFound", place, err)
		}
	}
}

// TestTextOfRemovedHour reads a text whose hour's file expiry removed
// while its record was still there (the record goes first, in one range
// deletion, so only a reader in between sees this): ErrNotFound, and no
// empty file made in its place.
func TestTextOfRemovedHour(t *testing.T) {
	for _, inMemory := range []bool{false, true} {
		t.Run(fmt.Sprint("in-memory=", inMemory), func(t *testing.T) {
			db, err := Open(t.TempDir(), &Options{InMemory: inMemory})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.textPlace = textsInLog
			b := db.NewBatch()
			for h := range int64(2) {
				b.Put(&Doc{Record: Record{Seq: MakeSeq(h*3600, 1), ID: fmt.Sprint(h), Fingerprint: make([]byte, 8)}, Text: []byte("some text")})
			}
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			// Closed first, as when the log closed idle files.
			db.log.mu.Lock()
			for h, tf := range db.log.files {
				tf.f.Close()
				delete(db.log.files, h)
			}
			db.log.mu.Unlock()
			if err := db.log.removeBefore(1); err != nil {
				t.Fatal(err)
			}
			if _, _, err := db.Text(MakeSeq(0, 1)); !errors.Is(err, ErrNotFound) {
				t.Errorf("text of a removed hour: %v, want ErrNotFound", err)
			}
			if hours, err := db.log.hours(); err != nil || len(hours) != 1 || hours[0] != 1 {
				t.Errorf("text files of hours %v, %v; want only hour 1", hours, err)
			}
			if text, _, err := db.Text(MakeSeq(3600, 1)); err != nil || string(text) != "some text" {
				t.Errorf("text of the kept hour: %q, %v", text, err)
			}
		})
	}
}

// TestReplay crashes a store the way a machine may: pebble keeps a prefix
// of its commits (a checkpoint, taken after a synced removal) while the
// text log keeps every entry it synced. Opening the store again writes the
// records that pebble lost, with their texts, and nothing else: not the
// removed document, not a torn entry at the end of a file.
func TestReplay(t *testing.T) {
	root := t.TempDir()
	dir, crashed := filepath.Join(root, "live"), filepath.Join(root, "crashed")
	db, err := Open(dir, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.textPlace = textsInLog
	doc := func(name string, hour int64, n uint64) *Doc {
		return &Doc{Record: Record{Seq: MakeSeq(hour*3600, n), ID: name, Fingerprint: []byte{byte(n), 1, 2, 3, 4, 5, 6, 7}, Time: hour * 3600, TextLen: 9, NormLen: 7},
			Text: []byte("text of " + name), Meta: []byte(`{"n":"` + name + `"}`)}
	}
	commit := func(ds ...*Doc) {
		t.Helper()
		b := db.NewBatch()
		for _, d := range ds {
			b.Put(d)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	var before, after []*Doc
	for i := range 4 {
		before = append(before, doc(fmt.Sprint("a", i), int64(i%2), uint64(i+1)))
		after = append(after, doc(fmt.Sprint("b", i), int64(1+i%2), uint64(i+10)))
	}
	commit(before[:2]...)
	commit(before[2:]...)
	removed := before[1]
	del := db.NewBatch()
	del.Delete(removed.Seq)
	if err := db.Commit(del); err != nil {
		t.Fatal(err)
	}
	// The crash: pebble as it is now, the text log as it will be.
	if err := db.db.Checkpoint(crashed, pebble.WithFlushedWAL()); err != nil {
		t.Fatal(err)
	}
	commit(after[:1]...)
	commit(after[1:]...)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	texts, err := os.ReadDir(filepath.Join(dir, textDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(crashed, textDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f := range texts {
		b, err := os.ReadFile(filepath.Join(dir, textDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if i == len(texts)-1 {
			// A torn entry: the head of a copy of the last one.
			b = append(b, b[len(b)-40:len(b)-20]...)
		}
		if err := os.WriteFile(filepath.Join(crashed, textDir, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	db, err = Open(crashed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if db.replayed != len(after) {
		t.Errorf("replayed %d records, want %d", db.replayed, len(after))
	}
	for _, d := range append(before, after...) {
		r, err := db.Record(d.Seq)
		if d == removed {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("removed document %s: %+v, %v; want ErrNotFound", d.ID, r, err)
			}
			continue
		}
		if err != nil || r.ID != d.ID || !bytes.Equal(r.Fingerprint, d.Fingerprint) || r.Time != d.Time || r.NormLen != d.NormLen {
			t.Errorf("record of %s: %+v, %v; want %+v", d.ID, r, err, d.Record)
			continue
		}
		text, meta, err := db.Text(d.Seq)
		if err != nil || !bytes.Equal(text, d.Text) || !bytes.Equal(meta, d.Meta) {
			t.Errorf("text of %s: %q, %q, %v", d.ID, text, meta, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(crashed, nil); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.replayed != 0 {
		t.Errorf("second open replayed %d records, want 0", db.replayed)
	}
}

// TestInMemoryTextFile writes texts to an in-memory store's text log, in
// several commits to one file, then more after the file was closed (as
// idle files are) and opened again, and reads every text back: the first
// writes append through the file's own position, the later ones through
// WriteAt at the file's end.
func TestInMemoryTextFile(t *testing.T) {
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.textPlace = textsInLog
	text := func(n uint64) string { return fmt.Sprintf("text %d %s", n, strings.Repeat("x", int(n%7)*40)) }
	n := uint64(0)
	commit := func(docs int) {
		t.Helper()
		b := db.NewBatch()
		for range docs {
			n++
			b.Put(&Doc{Record: Record{Seq: MakeSeq(0, n), ID: fmt.Sprint(n), Fingerprint: make([]byte, 8)}, Text: []byte(text(n))})
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	commit(3)
	commit(5)
	commit(1)
	db.log.mu.Lock()
	for h, tf := range db.log.files {
		tf.f.Close()
		delete(db.log.files, h)
	}
	db.log.mu.Unlock()
	commit(4)
	commit(2)
	for i := uint64(1); i <= n; i++ {
		got, _, err := db.Text(MakeSeq(0, i))
		if err != nil || string(got) != text(i) {
			t.Errorf("text %d: %q, %v; want %q", i, got, err, text(i))
		}
	}
}
