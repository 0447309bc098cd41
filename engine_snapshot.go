package neardup

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/store"
)

// Index snapshots make reopening fast: Close writes each index to a file
// (index.WriteTo) and then records a random token in the store; the files
// begin with the same token. Open loads the files only if the token
// matches, then deletes the token before anything is written, so a crash
// or an unclean exit later can never pair an old snapshot with newer
// writes: without a valid snapshot Open rebuilds the indexes from the
// stored records.
const (
	snapshotMeta  = "index-snapshot"
	snapshotToken = 16
	// snapshotPlacementMeta names the store entry that records, with a
	// snapshot, the length under which its short index held texts
	// (placement): a snapshot whose texts were placed by another length
	// (another policy, or a release before texts up to the Policy's
	// ShortCap were held there) is not loaded, and the indexes are
	// rebuilt from the records, so that every text is in the indexes the
	// policy queries for it.
	snapshotPlacementMeta = "index-snapshot-placement"
)

// placement says where the engine puts texts: the Policy's ShortCap, the
// length under which its short index holds them, or 0 without one.
func (e *Engine) placement() []byte {
	n := 0
	if e.short != nil {
		n = e.short.limit
	}
	return []byte(strconv.Itoa(n))
}

// samePlacement reports whether the snapshot's texts were placed as the
// engine places them.
func (e *Engine) samePlacement() (bool, error) {
	got, err := e.db.Meta(snapshotPlacementMeta)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return bytes.Equal(got, e.placement()), err
}

func snapshotPath(dir, which string) string {
	return filepath.Join(dir, "neardup-index-"+which+".snap")
}

// snapshotFiles are the names of the indexes' snapshot files, in the order
// of Engine.indexes; the last three are those of the low halves, which
// 128-bit stores alone have.
var snapshotFiles = []string{"long", "short", "shortlong", "longlow", "shortlow", "shortlonglow"}

// indexes returns the engine's indexes in the order of snapshotFiles,
// nil for those it does not have.
func (e *Engine) indexes() []*index.Index {
	ixs := []*index.Index{e.long, nil, e.shortLong, e.longLo, nil, e.shortLongLo}
	if e.short != nil {
		ixs[1] = e.short.ix
	}
	if e.shortLo != nil {
		ixs[4] = e.shortLo.ix
	}
	return ixs
}

// loadSnapshot replaces the empty indexes with the snapshot whose token
// the store holds (tok), if its files are valid, and reports whether it
// did. A snapshot of a 128-bit store written before the low halves had
// indexes of their own has no files for them, and its long indexes were
// made for the whole distance: it is rebuilt from the store.
func (e *Engine) loadSnapshot(tok []byte) (bool, error) {
	load := func(which string, k int) (*index.Index, error) {
		f, r, err := e.openSnapshot(which, tok)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		ix, err := index.ReadIndex(r)
		if err != nil {
			return nil, err
		}
		if ix.K() != k {
			// Written before the short index had tables.
			return nil, fmt.Errorf("neardup: %s index snapshot has k=%d, want %d", which, ix.K(), k)
		}
		short := which == "short" || which == "shortlow"
		if want := !short; ix.Adaptive() != want || ix.WideIfFits() != want {
			// Written before the long index adapted its design, or its
			// tables' width.
			return nil, fmt.Errorf("neardup: %s index snapshot is adaptive %v and wide if it fits %v, want %v", which, ix.Adaptive(), ix.WideIfFits(), want)
		}
		if short && !slices.EqualFunc(ix.Sizes(), shortSizes, func(a, b index.SizedDesign) bool {
			return a.UpTo == b.UpTo && a.Design.String() == b.Design.String()
		}) {
			// Written before the short index took its design by size.
			return nil, fmt.Errorf("neardup: short index snapshot has designs by size %v, want %v", ix.Sizes(), shortSizes)
		}
		return ix, nil
	}
	// Snapshots written before the short texts left the long index have
	// no shortlong file: they are rebuilt from the store, as are those
	// that lack any other file the engine needs.
	ixs := e.indexes()
	got := make([]*index.Index, len(ixs))
	for i, ix := range ixs {
		if ix == nil {
			continue
		}
		var err error
		if got[i], err = load(snapshotFiles[i], ix.K()); err != nil {
			return false, nil // rebuild instead
		}
	}
	e.long, e.shortLong, e.longLo, e.shortLongLo = got[0], got[2], got[3], got[5]
	if e.short != nil {
		e.short.ix = got[1]
	}
	if e.shortLo != nil {
		e.shortLo.ix = got[4]
	}
	// A snapshot does not keep the memory bound.
	for _, ix := range []*index.Index{e.long, e.shortLong, e.longLo, e.shortLongLo} {
		if ix != nil {
			ix.SetMaxBytes(e.indexMaxBytes())
		}
	}
	return true, nil
}

// snapshotNamed reports whether the snapshot files the engine needs exist
// and begin with tok, the store's token: a quick check before loading them.
func (e *Engine) snapshotNamed(tok []byte) bool {
	for i, ix := range e.indexes() {
		if ix == nil {
			continue
		}
		f, _, err := e.openSnapshot(snapshotFiles[i], tok)
		if err != nil {
			return false
		}
		f.Close()
	}
	return true
}

// openSnapshot opens the snapshot file of the index which and reads its
// token: it returns the file, to close, and a reader at what follows the
// token, or an error if the file is missing or begins with another token
// than tok.
func (e *Engine) openSnapshot(which string, tok []byte) (*os.File, *bufio.Reader, error) {
	f, err := os.Open(snapshotPath(e.dir, which))
	if err != nil {
		return nil, nil, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	got := make([]byte, snapshotToken)
	if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, tok) {
		f.Close()
		return nil, nil, fmt.Errorf("neardup: %s index snapshot is not the one the store names", which)
	}
	return f, r, nil
}

// invalidateSnapshot forgets the snapshot token and removes the files; Open
// calls it before the engine can write.
func (e *Engine) invalidateSnapshot() error {
	if err := e.db.SetMeta(snapshotMeta, nil); err != nil {
		return err
	}
	files := snapshotFiles
	if e.keysFile == nil {
		// Else the keys' file is open, to be read once Open returns
		// and removed then (restoreKeys).
		files = append(files[:len(files):len(files)], keysSnapshot)
	}
	for _, which := range files {
		if err := os.Remove(snapshotPath(e.dir, which)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("neardup: %w", err)
		}
	}
	return nil
}

// writeSnapshot writes the indexes, and the deletion keys when they are
// all made, and then the token that validates them.
func (e *Engine) writeSnapshot() error {
	tok := make([]byte, snapshotToken)
	rand.Read(tok)
	write := func(which string, to func(io.Writer) error) error {
		path := snapshotPath(e.dir, which)
		f, err := os.CreateTemp(e.dir, "neardup-index-*.tmp")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		w := bufio.NewWriterSize(f, 1<<20)
		w.Write(tok)
		if err := to(w); err != nil {
			f.Close()
			return err
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		return os.Rename(f.Name(), path)
	}
	for i, ix := range e.indexes() {
		if ix == nil {
			continue
		}
		if err := write(snapshotFiles[i], func(w io.Writer) error { _, err := ix.WriteTo(w); return err }); err != nil {
			return fmt.Errorf("neardup: index snapshot: %w", err)
		}
	}
	if e.keys != nil && e.keysDone.Load() {
		// Only when they are all made: a Close during restoreKeys
		// leaves them to be made again.
		if err := write(keysSnapshot, func(w io.Writer) error { return e.keys.writeTo(w, e.policy) }); err != nil {
			return fmt.Errorf("neardup: deletion keys snapshot: %w", err)
		}
	}
	if d, err := os.Open(e.dir); err == nil {
		d.Sync()
		d.Close()
	}
	if err := e.db.SetMeta(snapshotPlacementMeta, e.placement()); err != nil {
		return err
	}
	return e.db.SetMeta(snapshotMeta, tok)
}
