package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// IncompleteFile names the file that a run filling a new store at once
// (neardup migrate) keeps in the store's directory until the store holds
// everything: Open refuses a store that has it, which a run cut short by
// kill -9, a crash or a power cut left with part of what it was to hold.
const IncompleteFile = "neardup-incomplete"

// ErrIncomplete is returned by Open for a store whose directory holds
// IncompleteFile.
var ErrIncomplete = errors.New("store: incomplete")

// MarkIncomplete puts IncompleteFile into dir, saying that what (such as
// "neardup migrate --from OLD") is filling the store there, and syncs it.
func MarkIncomplete(dir, what string) error {
	f, err := os.OpenFile(filepath.Join(dir, IncompleteFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(what + "\n")
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return syncDir(vfs.Default, dir)
}

// MarkComplete removes IncompleteFile from dir, durably.
func MarkComplete(dir string) error {
	if err := os.Remove(filepath.Join(dir, IncompleteFile)); err != nil {
		return err
	}
	return syncDir(vfs.Default, dir)
}

// syncDir syncs the directory dir of fs, so that the files created or
// removed in it stay so.
func syncDir(fs vfs.FS, dir string) error {
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkComplete returns an error wrapping ErrIncomplete when dir holds
// IncompleteFile.
func checkComplete(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, IncompleteFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	what := strings.TrimSpace(string(b))
	if err != nil || what == "" {
		what = "the run that made it"
	}
	return fmt.Errorf("%w: %s: %s did not finish filling it, so it holds only part of what it was to (%s is there): remove the directory and run that again",
		ErrIncomplete, dir, what, IncompleteFile)
}
