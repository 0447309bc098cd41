package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/neardup/neardup"
)

// With --db, dedup stores each batch before it writes the batch's unique
// documents, so that a batch's decisions are durable before anything of
// it is out. A process that dies in between (kill -9, the OOM killer, a
// power cut) would leave documents stored and never written: a rerun
// takes them for repeats and skips them. So before a batch is stored,
// the ids of its documents that the store does not hold yet (newIDs: the
// only ones the batch can store) are written to a pending file in the
// store's directory and synced, and the file is removed once the batch's
// output is flushed. The next run that opens the store and finds the file
// takes those ids out of the store first, and decides and writes them
// again. Some of them may then be in two outputs (those written before
// the crash), never in none. The ids the store held before the batch
// (repeats of earlier runs, ids stored with another text) are not in the
// file: the documents of earlier runs stay.
//
// The store is locked by the run, so nothing else stores an id between
// newIDs and the batch: an id of the file that the store holds at the
// next run was stored by that batch.

// pendingName is the pending file's name in the store's directory (a
// name a store may hold: see store.Open).
const pendingName = "neardup-dedup-pending"

// pendingPath returns the pending file of the store in dir.
func pendingPath(dir string) string { return filepath.Join(dir, pendingName) }

// newIDs returns the ids of docs that e does not hold (or holds expired
// only), once each, in order: the documents a CheckAndInsertBatch of docs
// may store. An id e holds, or cannot look up, is left out: the batch
// does not store it again.
func newIDs(e *neardup.Engine, docs []neardup.Document) []string {
	ids := make([]string, 0, len(docs))
	seen := make(map[string]bool, len(docs))
	for _, d := range docs {
		if seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		if has, err := e.Has(d.ID); !has && err == nil {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// writePending writes ids to the pending file of the store in dir, one
// JSON string a line, and syncs it.
func writePending(dir string, ids []string) error {
	var b bytes.Buffer
	for _, id := range ids {
		j, _ := json.Marshal(id) // a string: cannot fail
		b.Write(j)
		b.WriteByte('\n')
	}
	f, err := os.Create(pendingPath(dir))
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// clearPending removes the pending file of the store in dir, if any.
func clearPending(dir string) error {
	if err := os.Remove(pendingPath(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// recoverPending takes the documents of the pending file of the store in
// dir, left by a run that stopped between storing a batch and writing it,
// out of the store e, removes the file, and returns how many documents it
// took out (0 when there was no file, or when the batch had stored none
// of its ids).
func recoverPending(dir string, e *neardup.Engine) (int, error) {
	b, err := os.ReadFile(pendingPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for sc.Scan() {
		var id string
		if err := json.Unmarshal(sc.Bytes(), &id); err != nil {
			// A file cut short by the crash that left it: its batch was
			// not stored either (the file is synced first).
			break
		}
		err := e.Delete(id)
		if errors.Is(err, neardup.ErrNotFound) {
			continue // not stored by that batch (a duplicate, or refused)
		}
		if err != nil {
			return n, fmt.Errorf("taking %q out of the store: %w", id, err)
		}
		n++
	}
	return n, clearPending(dir)
}
