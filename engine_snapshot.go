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

	"github.com/neardup/neardup/index"
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
)

func snapshotPath(dir, which string) string {
	return filepath.Join(dir, "neardup-index-"+which+".snap")
}

// loadSnapshot replaces the empty indexes with the snapshot whose token
// the store holds (tok), if its files are valid, and reports whether it
// did.
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
		if want := which != "short"; ix.Adaptive() != want || ix.WideIfFits() != want {
			// Written before the long index adapted its design, or its
			// tables' width.
			return nil, fmt.Errorf("neardup: %s index snapshot is adaptive %v and wide if it fits %v, want %v", which, ix.Adaptive(), ix.WideIfFits(), want)
		}
		if which == "short" && !slices.EqualFunc(ix.Sizes(), shortSizes, func(a, b index.SizedDesign) bool {
			return a.UpTo == b.UpTo && a.Design.String() == b.Design.String()
		}) {
			// Written before the short index took its design by size.
			return nil, fmt.Errorf("neardup: short index snapshot has designs by size %v, want %v", ix.Sizes(), shortSizes)
		}
		return ix, nil
	}
	long, err := load("long", e.long.K())
	if err != nil {
		return false, nil // rebuild instead
	}
	if e.short != nil {
		short, err := load("short", e.short.ix.K())
		if err != nil {
			return false, nil
		}
		// Snapshots written before the short texts left the long index
		// have no shortlong file: they are rebuilt from the store.
		shortLong, err := load("shortlong", e.shortLong.K())
		if err != nil {
			return false, nil
		}
		e.short.ix, e.shortLong = short, shortLong
	}
	e.long = long
	// A snapshot does not keep the memory bound.
	e.long.SetMaxBytes(e.opts.indexMaxBytes())
	if e.shortLong != nil {
		e.shortLong.SetMaxBytes(e.opts.indexMaxBytes())
	}
	return true, nil
}

// snapshotNamed reports whether the snapshot files the engine needs exist
// and begin with tok, the store's token: a quick check before loading them.
func (e *Engine) snapshotNamed(tok []byte) bool {
	which := []string{"long"}
	if e.short != nil {
		which = append(which, "short", "shortlong")
	}
	for _, w := range which {
		f, _, err := e.openSnapshot(w, tok)
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
	for _, which := range []string{"long", "short", "shortlong"} {
		if err := os.Remove(snapshotPath(e.dir, which)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("neardup: %w", err)
		}
	}
	return nil
}

// writeSnapshot writes the indexes and then the token that validates them.
func (e *Engine) writeSnapshot() error {
	tok := make([]byte, snapshotToken)
	rand.Read(tok)
	write := func(which string, ix *index.Index) error {
		path := snapshotPath(e.dir, which)
		f, err := os.CreateTemp(e.dir, "neardup-index-*.tmp")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		w := bufio.NewWriterSize(f, 1<<20)
		w.Write(tok)
		if _, err := ix.WriteTo(w); err != nil {
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
	if err := write("long", e.long); err != nil {
		return fmt.Errorf("neardup: index snapshot: %w", err)
	}
	if e.short != nil {
		if err := write("short", e.short.ix); err != nil {
			return fmt.Errorf("neardup: index snapshot: %w", err)
		}
		if err := write("shortlong", e.shortLong); err != nil {
			return fmt.Errorf("neardup: index snapshot: %w", err)
		}
	}
	if d, err := os.Open(e.dir); err == nil {
		d.Sync()
		d.Close()
	}
	return e.db.SetMeta(snapshotMeta, tok)
}
