//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup"
)

// TestMigrateInterrupted checks that SIGINT during a migrate stops it
// after the chunk in progress, exits with 130, says how far it got, and
// leaves no partial store in --to and the old one whole.
func TestMigrateInterrupted(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old")
	e := openStore(t, old, "default")
	docs := make([]neardup.Document, migrateChunk+500)
	for i := range docs {
		docs[i] = neardup.Document{ID: fmt.Sprint("d", i), Text: fmt.Sprintf("document number %d of the interrupted run", i)}
	}
	if _, err := e.InsertBatch(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	afterMigrateChunk = func() {
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		// The signal is caught and the run's context cancelled by another
		// goroutine: give it the time to, before the next chunk.
		time.Sleep(200 * time.Millisecond)
	}
	defer func() { afterMigrateChunk = nil }()
	to := filepath.Join(t.TempDir(), "new")
	_, errOut, code := runFP(t, "", "migrate", "--from", old, "--to", to)
	if code != 130 || !strings.Contains(errOut, fmt.Sprintf("interrupted by SIGINT after %d documents", migrateChunk)) || !strings.Contains(errOut, to+" removed") {
		t.Fatalf("interrupted migrate: status %d, stderr %q; want 130 and how far it got", code, errOut)
	}
	if _, err := os.Stat(to); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted run left %s: %v", to, err)
	}
	e = openStore(t, old, "default")
	defer e.Close()
	if n := e.Stats().Documents; n != len(docs) {
		t.Errorf("the old store holds %d documents after the interrupted run, want %d", n, len(docs))
	}
}
