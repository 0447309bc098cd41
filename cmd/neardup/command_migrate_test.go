package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/store"
)

// migrateDocs are the documents TestMigrate stores, the last three days old.
var migrateDocs = []neardup.Document{
	{ID: "a", Text: "The quick brown fox jumps over the lazy dog near the river bank today.", Meta: json.RawMessage(`{"source":"one"}`)},
	{ID: "b", Text: "谢谢分享，这篇文章写得很好，我学到了很多东西！"},
	{ID: "c", Text: "An entirely different text about the weather, which was cold and wet."},
	{ID: "old", Text: "A document seen three days ago, which a two-day window expires.", Time: time.Now().Add(-72 * time.Hour)},
}

// openStore opens an engine on dir with the fingerprint profile, failing
// the test on error.
func openStore(t *testing.T, dir, profile string) *neardup.Engine {
	t.Helper()
	o := neardup.DefaultOptions()
	o.Fingerprint = neardup.Config{Profile: profile}
	o.ExpiryInterval = -1
	o.Retention = -1 // the test's old document stays
	e, err := neardup.Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestMigrate checks that migrate copies a store the engine refuses into
// one it opens: every document with its id, text, metadata and time, found
// again by its near-copies, and that --retention leaves out the old ones.
func TestMigrate(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old")
	e := openStore(t, old, "classic")
	for _, d := range migrateDocs {
		if r, err := e.Insert(context.Background(), d); err != nil || !r.Inserted {
			t.Fatalf("insert %s: %+v, %v", d.ID, r, err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// The engine refuses the store under other options: why migrate is.
	o := neardup.DefaultOptions()
	if _, err := neardup.Open(old, &o); !errors.Is(err, neardup.ErrFingerprinterChanged) {
		t.Fatalf("open of a classic store with the default profile: %v, want ErrFingerprinterChanged", err)
	}

	for _, tc := range []struct {
		args []string
		want []string // the ids copied
		out  string
	}{
		{nil, []string{"a", "b", "c", "old"}, "migrate: 4 documents copied from"},
		{[]string{"--retention", "48h"}, []string{"a", "b", "c"}, "migrate: 3 documents copied from " + old + " to "},
	} {
		to := filepath.Join(t.TempDir(), "new")
		out, errOut, code := runFP(t, "", append([]string{"migrate", "--from", old, "--to", to}, tc.args...)...)
		if code != 0 || out != "" || !strings.Contains(errOut, "neardup: "+tc.out) {
			t.Fatalf("migrate %q: status %d, stderr %q, output %q, want nothing written and %q on stderr", tc.args, code, errOut, out, tc.out)
		}
		if len(tc.want) < len(migrateDocs) && !strings.Contains(errOut, "1 document older than --retention left out") {
			t.Errorf("migrate %q: stderr %q does not count the document left out", tc.args, errOut)
		}
		e := openStore(t, to, "default")
		if n := e.Stats().Documents; n != len(tc.want) {
			t.Errorf("migrate %q: the new store holds %d documents, want %d", tc.args, n, len(tc.want))
		}
		for _, d := range migrateDocs {
			got, err := e.Get(d.ID)
			if !contains(tc.want, d.ID) {
				if !errors.Is(err, neardup.ErrNotFound) {
					t.Errorf("migrate %q: %s: %+v, %v; want it left out", tc.args, d.ID, got, err)
				}
				continue
			}
			if err != nil || got.Text != d.Text || string(got.Meta) != string(d.Meta) {
				t.Errorf("migrate %q: %s: %+v, %v; want %+v", tc.args, d.ID, got, err, d)
			}
			if !d.Time.IsZero() && got.Time.Unix() != d.Time.Unix() {
				t.Errorf("migrate %q: %s has time %v, want %v", tc.args, d.ID, got.Time, d.Time)
			}
		}
		// Fingerprinted anew: a near-copy is found.
		r, err := e.Check(context.Background(), neardup.Document{Text: strings.Replace(migrateDocs[0].Text, "today", "now", 1)})
		if err != nil || !r.Duplicate || *r.DuplicateOf != "a" {
			t.Errorf("migrate %q: check of a near-copy of a: %+v, %v", tc.args, r, err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// The old store keeps its documents.
	e = openStore(t, old, "classic")
	defer e.Close()
	if n := e.Stats().Documents; n != len(migrateDocs) {
		t.Errorf("the old store holds %d documents after the runs, want %d", n, len(migrateDocs))
	}
}

// TestMigrateCutShort copies the new store's directory while migrate
// fills it, as kill -9 or a crash would leave it, and opens the copy: it
// is refused as incomplete, naming the run, instead of opening with part
// of the documents; the finished store opens, without the mark.
func TestMigrateCutShort(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old")
	e := openStore(t, old, "classic")
	for _, d := range migrateDocs {
		if _, err := e.Insert(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	to, cut := filepath.Join(t.TempDir(), "new"), filepath.Join(t.TempDir(), "cut")
	o := neardup.DefaultOptions()
	o.ExpiryInterval, o.Retention = -1, -1
	copied := false
	n, err := migrate(context.Background(), old, to, &o, 0, func(int) {
		if !copied {
			copied = true
			if err := os.CopyFS(cut, os.DirFS(to)); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil || n.copied != len(migrateDocs) {
		t.Fatalf("migrate: %+v, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(to, store.IncompleteFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after the copy: %v, want none", store.IncompleteFile, err)
	}
	e = openStore(t, to, "default")
	if got := e.Stats().Documents; got != len(migrateDocs) {
		t.Errorf("the new store holds %d documents, want %d", got, len(migrateDocs))
	}
	e.Close()
	if e, err = neardup.Open(cut, &o); err == nil {
		e.Close()
	}
	if !errors.Is(err, store.ErrIncomplete) || !strings.Contains(err.Error(), "neardup migrate --from "+old) {
		t.Errorf("open of the store as migrate left it mid-copy: %v, want ErrIncomplete naming the run", err)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestMigrateErrors checks migrate's refusals: what is missing or wrong is
// named, nothing is overwritten, and a failed copy leaves no store behind.
func TestMigrateErrors(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old")
	e := openStore(t, old, "default")
	if _, err := e.Insert(context.Background(), migrateDocs[0]); err != nil {
		t.Fatal(err)
	}
	e.Close()
	full := t.TempDir()
	keep := filepath.Join(full, "keep.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "new")
	emptyFrom := t.TempDir()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"migrate", "--to", fresh}, "--from is required"},
		{[]string{"migrate", "--from", old}, "--to is required"},
		{[]string{"migrate", "--from", filepath.Join(t.TempDir(), "nothing"), "--to", fresh}, "no store there"},
		{[]string{"migrate", "--from", emptyFrom, "--to", fresh}, "no store there"},
		{[]string{"migrate", "--from", old, "--to", full}, "is not empty"},
		{[]string{"migrate", "--from", old, "--to", fresh, "--profile", "nilsimsa"}, "--profile"},
		{[]string{"migrate", "--from", old, "--to", fresh, "--bits", "32"}, "--bits 32"},
		{[]string{"migrate", "--from", old, "--to", fresh, "--retention", "-1h"}, "--retention"},
		{[]string{"migrate", "--from", old, "--to", fresh, "--compression", "lz4"}, "--compression"},
	} {
		_, errOut, code := runFP(t, "", tc.args...)
		wantUsageError(t, errOut, code, tc.msg)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Errorf("the file in the non-empty --to is %q, %v; want it untouched", b, err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run left %s: %v", fresh, err)
	}
	if ents, _ := os.ReadDir(emptyFrom); len(ents) != 0 {
		t.Errorf("a refused run made %d entries in the empty --from", len(ents))
	}

	// A store without texts cannot be fingerprinted again: the run fails,
	// names the document, and removes what it made.
	bare := filepath.Join(t.TempDir(), "bare")
	o := neardup.DefaultOptions()
	o.DropText = true
	o.ExpiryInterval = -1
	e, err := neardup.Open(bare, &o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Insert(context.Background(), neardup.Document{ID: "textless", Text: "a text the store does not keep"}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	_, errOut, code := runFP(t, "", "migrate", "--from", bare, "--to", fresh)
	if code != 1 || !strings.Contains(errOut, `document "textless"`) || !strings.Contains(errOut, "has no text") {
		t.Errorf("migrate of a store without texts: status %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed run left %s: %v", fresh, err)
	}
	// An empty --to given is emptied again, and stays.
	empty := t.TempDir()
	if _, _, code := runFP(t, "", "migrate", "--from", bare, "--to", empty); code != 1 {
		t.Errorf("migrate of a store without texts into an empty directory: status %d, want 1", code)
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("the empty --to after a failed run: %v, %v; want it there and empty", entries, err)
	}
}
