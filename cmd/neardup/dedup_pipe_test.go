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
	"testing"
)

// TestDedupBrokenPipe runs dedup --db in a process of its own whose
// standard output is a pipe the reader closes after the first bytes (as
// `| head` does): the process must not die of SIGPIPE between storing a
// batch and writing it, but fail the write and take the batch back out of
// the store, so that a rerun writes every document.
func TestDedupBrokenPipe(t *testing.T) {
	if os.Getenv("NEARDUP_TEST_DEDUP_CHILD") == "1" {
		os.Exit(run(strings.Fields(os.Getenv("NEARDUP_TEST_ARGS")), os.Stdin, os.Stdout, os.Stderr))
	}
	if testing.Short() {
		t.Skip("runs dedup in a process of its own")
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "in.txt")
	var b strings.Builder
	const docs = 5000
	for i := range docs {
		b.WriteString(distinctText(i) + "\n")
	}
	if err := os.WriteFile(input, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"dedup", "--lines", "--db", filepath.Join(dir, "db"), input}
	child := exec.Command(os.Args[0], "-test.run=^TestDedupBrokenPipe$")
	child.Env = append(os.Environ(), "NEARDUP_TEST_DEDUP_CHILD=1", "NEARDUP_TEST_ARGS="+strings.Join(args, " "))
	var stderr bytes.Buffer
	child.Stderr = &stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(out, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	out.Close()
	err = child.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "broken pipe") {
		t.Fatalf("dedup with its output closed: %v, stderr %q; want exit status 1 naming the broken pipe", err, stderr.String())
	}
	// The rerun writes what a run in memory does: every unique document.
	var rerun, fresh, rerr bytes.Buffer
	if code := run(args, strings.NewReader(""), &rerun, &rerr); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, rerr.String())
	}
	if code := run([]string{"dedup", "--lines", input}, strings.NewReader(""), &fresh, &rerr); code != 0 {
		t.Fatalf("run in memory: exit %d: %s", code, rerr.String())
	}
	if n, want := strings.Count(rerun.String(), "\n"), strings.Count(fresh.String(), "\n"); n != want || n < docs/2 {
		t.Errorf("rerun wrote %d documents, a run in memory %d of %d: those of the batch the broken pipe stopped are not kept", n, want, docs)
	}
}

// TestDedupCrash runs dedup --db in a process of its own that stops dead
// (os.Exit, as on kill -9: nothing deferred runs) right after storing its
// second batch, before writing it. The rerun must take that batch back out
// of the store and write it: every unique document of the input is then
// in one output or the other. Before, the batch was stored, never
// written, and skipped by the rerun as repeats.
func TestDedupCrash(t *testing.T) {
	if os.Getenv("NEARDUP_TEST_DEDUP_CRASH") == "1" {
		batches := 0
		afterStore = func() {
			if batches++; batches == 2 {
				os.Exit(137)
			}
		}
		os.Exit(run(strings.Fields(os.Getenv("NEARDUP_TEST_ARGS")), os.Stdin, os.Stdout, os.Stderr))
	}
	if testing.Short() {
		t.Skip("runs dedup in a process of its own")
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "in.jsonl")
	var b strings.Builder
	const docs = 3 * dedupBatch
	for i := range docs {
		fmt.Fprintf(&b, `{"id":"d%d","text":"%s"}`+"\n", i, distinctText(i))
	}
	if err := os.WriteFile(input, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"dedup", "--db", filepath.Join(dir, "db"), input}
	child := exec.Command(os.Args[0], "-test.run=^TestDedupCrash$")
	child.Env = append(os.Environ(), "NEARDUP_TEST_DEDUP_CRASH=1", "NEARDUP_TEST_ARGS="+strings.Join(args, " "))
	var first, stderr bytes.Buffer
	child.Stdout, child.Stderr = &first, &stderr
	err := child.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 137 {
		t.Fatalf("dedup that stops after its second batch: %v, stderr %q", err, stderr.String())
	}
	var rerun, rerr bytes.Buffer
	if code := run(args, strings.NewReader(""), &rerun, &rerr); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, rerr.String())
	}
	if !strings.Contains(rerr.String(), "stopped between storing a batch and writing it") {
		t.Errorf("the rerun does not say what it took back: %q", rerr.String())
	}
	// Every document a run in memory writes is in one output or the other.
	var fresh bytes.Buffer
	if code := run([]string{"dedup", input}, strings.NewReader(""), &fresh, &rerr); code != 0 {
		t.Fatalf("run in memory: exit %d: %s", code, rerr.String())
	}
	ids := func(out string) map[string]bool {
		m := map[string]bool{}
		for line := range strings.Lines(out) {
			var d struct{ ID string }
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("output line %q: %v", line, err)
			}
			m[d.ID] = true
		}
		return m
	}
	seen, want := ids(first.String()+rerun.String()), ids(fresh.String())
	missing := 0
	for id := range want {
		if !seen[id] {
			missing++
		}
	}
	if missing > 0 || len(want) < docs/2 {
		t.Errorf("%d of the %d unique documents are in neither output (%d and %d lines)", missing, len(want), strings.Count(first.String(), "\n"), strings.Count(rerun.String(), "\n"))
	}
}
