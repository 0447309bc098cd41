package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrDamaged is returned by Open for a store whose pebble manifest no
// longer lists the tables that hold its records: the manifest was cut
// short or overwritten, which pebble reads as a store that ends where the
// damage begins (see DB.checkWhole). Its tables are left in place.
var ErrDamaged = errors.New("store: damaged")

// keepFS is the file system of an on-disk store while it opens: it keeps
// the tables and blob files that pebble removes as unknown to its
// manifest, instead of removing them, until Open has checked that pebble
// found the store whole (checkWhole). Pebble reads a damaged manifest up to
// the damage and removes every file written after it, the records of
// every document with them.
type keepFS struct {
	vfs.FS
	mu   sync.Mutex
	keep bool     // removals of tables and blob files are kept
	kept []string // the files whose removal was kept
}

// Remove removes name, or keeps it while the store opens (see keepFS).
func (f *keepFS) Remove(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ext := filepath.Ext(name); f.keep && (ext == ".sst" || ext == ".blob") {
		f.kept = append(f.kept, name)
		return nil
	}
	return f.FS.Remove(name)
}

// release removes the files kept, and lets removals through from then on.
func (f *keepFS) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keep = false
	for _, name := range f.kept {
		_ = f.FS.Remove(name)
	}
	f.kept = nil
}

// tables returns the names of the tables (.sst files) in dir.
func tables(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sst") {
			names = append(names, e.Name())
		}
	}
	return names
}

// checkWhole returns an error wrapping ErrDamaged when s, just opened
// in dir, holds no record while its text log holds documents and some of
// the tables found in dir before it opened are not among its own: pebble
// then read a damaged manifest and opened an empty store.
func (s *DB) checkWhole(dir string, found []string) error {
	if len(found) == 0 {
		return nil
	}
	if _, _, ok, err := s.SeqSpan(); ok || err != nil {
		return err
	}
	if hours, err := s.log.hours(); len(hours) == 0 || err != nil {
		return err
	}
	levels, err := s.db.SSTables()
	if err != nil {
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	live := make(map[string]bool)
	for _, level := range levels {
		for _, t := range level {
			live[t.BackingSSTNum.String()+".sst"] = true
		}
	}
	var lost []string
	for _, name := range found {
		if !live[name] {
			lost = append(lost, name)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s holds no record, while its text files (%s) hold documents and its manifest (the MANIFEST file that marker.manifest.* names) does not list %d of its tables (%s): the manifest was cut short or overwritten; the tables are left in place, restore the directory from a copy",
		ErrDamaged, dir, textDir, len(lost), strings.Join(lost[:min(len(lost), 3)], ", "))
}
