package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedBlobFile reads texts kept in pebble whose blob file was cut
// short or removed: pebble panicked reporting the damage (pinned
// version); Text returns ErrCorrupt instead, naming the blob files, and
// the store still closes cleanly.
func TestDamagedBlobFile(t *testing.T) {
	for _, damage := range []string{"cut short", "removed"} {
		t.Run(damage, func(t *testing.T) {
			dir := writeStore(t, 20, textsInPebble, true)
			blobs, _ := filepath.Glob(filepath.Join(dir, "*.blob"))
			if len(blobs) == 0 {
				t.Fatal("no blob file")
			}
			var err error
			for _, f := range blobs {
				if damage == "removed" {
					err = os.Remove(f)
				} else {
					err = os.Truncate(f, 10)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			db, err := Open(dir, &Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				_, _, err := db.Text(MakeSeq(1700000000, uint64(i)))
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), ".blob") {
					t.Errorf("Text: %v, want ErrCorrupt naming the blob files", err)
				}
			}
			if err := db.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
