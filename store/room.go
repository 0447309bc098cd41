package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// freeSpace is DiskFree, which tests replace.
var freeSpace = DiskFree

// checkRoom returns an error when the file system holding dir, a store's
// directory, has less room than opening the store takes: about the size
// of its write-ahead logs (pebble's numbered .log files), whose records
// opening writes into tables, a sixteenth more and 64 KiB for the tables'
// own structure and pebble's new manifest. Short of room, pebble retries
// that write for ever, and Open would never return.
func checkRoom(dir string) error {
	free, ok := freeSpace(dir)
	if !ok {
		return nil
	}
	ents, _ := os.ReadDir(dir)
	var logs int64
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".log" {
			continue
		}
		if fi, err := e.Info(); err == nil {
			logs += fi.Size()
		}
	}
	if need := logs + logs/16 + 64<<10; free < need {
		return fmt.Errorf("store: open %s: %d bytes free on its file system, and opening it takes about %d, to write the %d bytes of its write-ahead logs (*.log) into tables: make room first",
			dir, free, need, logs)
	}
	return nil
}
