//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/neardup/neardup"
)

// idDocs returns JSONL lines of n documents with ids prefix0, prefix1...
// and texts that are no near-duplicates of each other's (from the
// (from+n-1)-th distinctText).
func idDocs(prefix string, from, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"%s%d","text":"%s"}`+"\n", prefix, i, distinctText(from+i))
	}
	return b.String()
}

// dedupRun runs dedup with args and standard input in, and returns its
// exit status, output and standard error.
func dedupRun(t *testing.T, in string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"dedup"}, args...), strings.NewReader(in), &out, &errb)
	return code, out.String(), errb.String()
}

// TestDedupCrashKeepsEarlierRuns stores documents with one run, then
// stops dead (as kill -9 does) a second run right after it stored a batch
// that holds those documents again and new ones, before writing it. The
// next run must take out of the store only the new ones, which that batch
// stored: the documents of the first run stay, and are repeats for every
// later run. Before, every id of the batch was taken out, so the store
// forgot the first run's documents.
func TestDedupCrashKeepsEarlierRuns(t *testing.T) {
	if os.Getenv("NEARDUP_TEST_DEDUP_CRASH_EARLIER") == "1" {
		afterStore = func() { os.Exit(137) }
		os.Exit(run(strings.Fields(os.Getenv("NEARDUP_TEST_ARGS")), os.Stdin, os.Stdout, os.Stderr))
	}
	if testing.Short() {
		t.Skip("runs dedup in a process of its own")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	old := idDocs("old", 0, 500)
	mix := writeDedupFile(t, dir, "mix.jsonl", old+idDocs("new", 500, 500))
	if code, out, errs := dedupRun(t, old, "--db", db); code != 0 || strings.Count(out, "\n") < 450 {
		t.Fatalf("first run: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errs)
	}
	args := []string{"dedup", "--db", db, mix}
	child := exec.Command(os.Args[0], "-test.run=^TestDedupCrashKeepsEarlierRuns$")
	child.Env = append(os.Environ(), "NEARDUP_TEST_DEDUP_CRASH_EARLIER=1", "NEARDUP_TEST_ARGS="+strings.Join(args, " "))
	var stderr bytes.Buffer
	child.Stderr = &stderr
	var ee *exec.ExitError
	if err := child.Run(); !errors.As(err, &ee) || ee.ExitCode() != 137 {
		t.Fatalf("dedup that stops after storing its batch: %v, stderr %q", err, stderr.String())
	}
	// The new documents the batch stored: what a run in memory keeps of
	// them after the old ones.
	_, fresh, _ := dedupRun(t, "", mix)
	stored := strings.Count(fresh, `"id":"new`)
	code, _, errs := dedupRun(t, idDocs("other", 2000, 3), "--db", db)
	if want := fmt.Sprintf("the %d documents that batch stored were taken out", stored); code != 0 || !strings.Contains(errs, want) {
		t.Fatalf("run after the crash: exit %d, stderr %q; want it to say %q", code, errs, want)
	}
	if code, out, errs := dedupRun(t, old, "--db", db); code != 0 || out != "" {
		t.Errorf("the first run's input again: exit %d, %d lines written, stderr %q; want none: the store keeps them", code, strings.Count(out, "\n"), errs)
	}
	code, out, errs := dedupRun(t, "", "--db", db, mix)
	if code != 0 || strings.Contains(out, `"id":"old`) || strings.Count(out, "\n") != stored {
		t.Errorf("the crashed run's input again: exit %d, %d lines written, stderr %q; want the %d new ones only", code, strings.Count(out, "\n"), errs, stored)
	}
}

// failingFile is a --report or --duplicates file whose writes fail as on
// a full disk.
type failingFile struct{ name string }

// Write fails.
func (f failingFile) Write(p []byte) (int, error) {
	return 0, fmt.Errorf("write %s: %w", f.name, syscall.ENOSPC)
}

// Close succeeds.
func (failingFile) Close() error { return nil }

// TestDedupReportFails checks that when writing --report or --duplicates
// fails, dedup --db exits 1 saying so, and that the batch, whose output
// was written, stays in the store and is not taken out by the next run:
// the pending file is gone once the output is out. Before, the pending
// file stayed, and the next run took the batch (with the documents of
// earlier runs it repeated) out of the store and wrote it again.
func TestDedupReportFails(t *testing.T) {
	t.Cleanup(func() { createSideFile = func(name string) (io.WriteCloser, error) { return os.Create(name) } })
	for _, side := range []struct{ flag, file, what string }{
		{"--report", "report.jsonl", "writing report"},
		{"--duplicates", "dups.jsonl", "writing duplicates"},
	} {
		dir := t.TempDir()
		db := filepath.Join(dir, "db")
		old := idDocs("old", 0, 300)
		createSideFile = func(name string) (io.WriteCloser, error) { return os.Create(name) }
		if code, _, errs := dedupRun(t, old, "--db", db); code != 0 {
			t.Fatalf("first run: exit %d: %s", code, errs)
		}
		mix := old + idDocs("new", 300, 300)
		createSideFile = func(name string) (io.WriteCloser, error) { return failingFile{filepath.Base(name)}, nil }
		code, out, errs := dedupRun(t, mix, "--db", db, side.flag, filepath.Join(dir, side.file))
		if want := side.what + ": write " + side.file + ": no space left on device"; code != 1 || !strings.Contains(errs, want) {
			t.Fatalf("%s on a full disk: exit %d, stderr %q; want exit 1 saying %q", side.flag, code, errs, want)
		}
		written := strings.Count(out, "\n")
		if written == 0 || strings.Contains(out, `"id":"old`) {
			t.Fatalf("%s on a full disk: %d lines written, want the new documents", side.flag, written)
		}
		if _, err := os.Stat(pendingPath(db)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the pending file is left although the output was written: %v", side.flag, err)
		}
		for _, in := range []string{mix, old} {
			if code, out, errs := dedupRun(t, in, "--db", db); code != 0 || out != "" || noSummary(errs) != "" {
				t.Errorf("%s: rerun: exit %d, %d lines written, stderr %q; want nothing: all of it is stored", side.flag, code, strings.Count(out, "\n"), errs)
			}
		}
	}
}

// TestDedupManyInputs reads more input files than the process may have
// open at once: each must be closed once read. Before, every file stayed
// open until the end ("too many open files").
func TestDedupManyInputs(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	const files = 300
	var args []string
	var all strings.Builder
	for i := range files {
		doc := idDocs(fmt.Sprintf("f%d-", i), i, 1)
		all.WriteString(doc)
		args = append(args, writeDedupFile(t, dir, fmt.Sprintf("in%03d.jsonl", i), doc))
	}
	_, want, _ := dedupRun(t, all.String()) // the same documents from one input
	low := lim
	low.Cur = 200
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	code, out, errs := dedupRun(t, "", args...)
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	if code != 0 || out != want {
		t.Fatalf("%d inputs with at most %d files open: exit %d, %d lines (want %d), stderr %q", files, low.Cur, code, strings.Count(out, "\n"), strings.Count(want, "\n"), errs)
	}
}

// TestDedupCorruptStore damages the text log of a store and runs dedup
// on near-duplicates of its documents, whose verification reads their
// stored texts: the failure is the store's, not the input's, so dedup
// exits 1 naming the store, with --on-error skip too. Before, each
// document was reported as a malformed input line (exit 2), and skipped
// with --on-error skip (exit 0, the documents dropped).
func TestDedupCorruptStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	// Enough batches for the store to keep texts in its log (texts/).
	const docs = 5 * dedupBatch
	var orig, near strings.Builder
	for i := range docs {
		fmt.Fprintf(&orig, "{\"id\":\"d%d\",\"text\":%q}\n", i, distinctText(i)+distinctText(i+docs))
		fmt.Fprintf(&near, "{\"id\":\"n%d\",\"text\":%q}\n", i, distinctText(i)+distinctText(i+docs)+" more")
	}
	if code, _, errs := dedupRun(t, orig.String(), "--db", db); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	logs, _ := filepath.Glob(filepath.Join(db, "texts", "*.log"))
	if len(logs) == 0 {
		t.Fatal("the store keeps no text log")
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		for i := 64; i < len(b); i += 61 {
			b[i] ^= 0x55
		}
		if err := os.WriteFile(l, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	saved := filepath.Join(dir, "saved")
	if err := os.CopyFS(saved, os.DirFS(db)); err != nil {
		t.Fatal(err)
	}
	for _, onError := range []string{"fail", "skip"} {
		os.RemoveAll(db)
		if err := os.CopyFS(db, os.DirFS(saved)); err != nil {
			t.Fatal(err)
		}
		code, _, errs := dedupRun(t, near.String(), "--db", db, "--on-error", onError)
		if code != 1 || !strings.Contains(errs, "--db "+db+": the store is damaged: store: corrupt record") || strings.Contains(errs, "skipped") || !strings.Contains(errs, "--on-error skip does not pass over it") {
			t.Errorf("--on-error %s: exit %d, stderr %.600q; want exit 1 naming the damaged store", onError, code, errs)
		}
	}
}

// TestDedupSnapshotFails makes the index snapshot fail to be written when
// the store is closed: output and store are complete, so dedup warns and
// exits 0, and the next run (which rebuilds the index) goes on. Before,
// every such run exited 1.
func TestDedupSnapshotFails(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	// A non-empty directory where the snapshot goes: renaming the
	// written snapshot over it fails. Made once the store is open (Open
	// removes stale snapshots).
	block := filepath.Join(db, "neardup-index-long.snap")
	t.Cleanup(func() { afterStore = nil })
	afterStore = func() {
		if err := os.MkdirAll(filepath.Join(block, "x"), 0o755); err != nil {
			t.Error(err)
		}
	}
	in := idDocs("s", 0, 50)
	code, out, errs := dedupRun(t, in, "--db", db)
	afterStore = nil
	if code != 0 || strings.Count(out, "\n") != 50 || !strings.Contains(errs, "warning: --db "+db+": index snapshot") || !strings.Contains(errs, "rebuilds the index") {
		t.Fatalf("snapshot that cannot be written: exit %d, %d lines, stderr %q; want exit 0 with a warning", code, strings.Count(out, "\n"), errs)
	}
	if err := os.RemoveAll(block); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := dedupRun(t, in, "--db", db); code != 0 || out != "" {
		t.Errorf("rerun: exit %d, %d lines, stderr %q; want nothing written: all stored", code, strings.Count(out, "\n"), errs)
	}
}

// TestDedupReportKeptWhenInUse runs dedup --db on a store another holds
// open: it fails, and leaves the --report file of an earlier run as it
// was. Before, the report was truncated before the store was opened.
func TestDedupReportKeptWhenInUse(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	o := neardup.DefaultOptions()
	e, err := neardup.Open(db, &o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	prev := writeDedupFile(t, dir, "prev.jsonl", `{"id":"b","duplicate_of":"a","distance":1,"similarity":0.9}`+"\n")
	code, _, errs := dedupRun(t, idDocs("u", 0, 3), "--db", db, "--report", prev)
	if code == 0 || !strings.Contains(errs, "in use") {
		t.Fatalf("store in use: exit %d, stderr %q", code, errs)
	}
	if b, err := os.ReadFile(prev); err != nil || !json.Valid(bytes.TrimSpace(b)) {
		t.Errorf("the earlier report is now %q (%v); want it as it was", b, err)
	}
}
