//go:build unix

package main

import (
	"bytes"
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
		r := uint64(i+1) * 0x9e3779b97f4a7c15 // distinct words for each line
		for w := range 12 {
			fmt.Fprintf(&b, "%x ", (r>>(w*5))*2654435761%1000003)
		}
		b.WriteString("\n")
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
