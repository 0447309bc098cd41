//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIDFBuildOutFIFO checks that --out naming a FIFO, or a link to one,
// writes the table into it, as into /dev/stdout, instead of replacing it
// with a regular file.
func TestIDFBuildOutFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fifo, link} {
		// A reader opened first (without waiting for a writer) lets the
		// writer's open go through; the table fits the pipe's buffer.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run([]string{"idf", "build", "-o", out}, strings.NewReader("a b c"), &stdout, &stderr)
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(r); got <- b }()
		var b []byte
		select {
		case b = <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("reading the FIFO did not end")
		}
		r.Close()
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", out, code, stderr.String())
		}
		if !strings.HasPrefix(string(b), "neardup-idf 2\n") {
			t.Errorf("-o %s: the FIFO gave %q; want the table", out, b)
		}
		if fi, err := os.Stat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("-o %s: %s is now %v (%v); want the FIFO kept", out, fifo, fi.Mode(), err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("-o %s: %s is no longer a link (%v)", out, link, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("the directory holds %d entries; want the FIFO and the link", len(ents))
	}
}

// TestIDFBuildOutProcFD checks that --out naming an open pipe by
// /proc/self/fd/N, as /dev/stdout names standard output, writes into the
// pipe: the link's target, "pipe:[...]", is not a path to replace.
func TestIDFBuildOutProcFD(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	if _, err := os.Stat(path); err != nil {
		w.Close()
		t.Skipf("no %s here: %v", path, err)
	}
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	var stdout, stderr bytes.Buffer
	code := run([]string{"idf", "build", "-o", path}, strings.NewReader("a b c"), &stdout, &stderr)
	w.Close()
	b := <-got
	if code != 0 || !strings.HasPrefix(string(b), "neardup-idf 2\n") {
		t.Errorf("-o %s: exit %d, stderr %q, the pipe gave %q; want the table", path, code, stderr.String(), b)
	}
}

// TestIDFBuildOutProcFDFile checks that --out naming an open regular
// file by /proc/self/fd/N, as /dev/stdout does when standard output goes
// to a file, writes after what the descriptor wrote, into the same file,
// instead of replacing the file the link resolves to.
func TestIDFBuildOutProcFDFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.txt")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("before\n")
	path := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s here: %v", path, err)
	}
	before, _ := os.Stat(name)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"idf", "build", "-o", path}, strings.NewReader("a b c"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, _ := os.ReadFile(name)
	if !strings.HasPrefix(string(b), "before\nneardup-idf 2\n") {
		t.Errorf("the file holds %q; want what was written, then the table", b)
	}
	if after, err := os.Stat(name); err != nil || !os.SameFile(before, after) {
		t.Errorf("the file was replaced (%v)", err)
	}
}

// signalWriterTo writes a table slowly and sends sig to this process
// after its first line, as a user pressing ^C (SIGINT) or a kill
// (SIGTERM) does while a big table is written; it writes on until a write
// fails, for at most 10 seconds.
type signalWriterTo struct{ sig syscall.Signal }

// WriteTo writes to w until a write fails or 10 seconds pass, sending
// the signal after the first line.
func (s signalWriterTo) WriteTo(w io.Writer) (int64, error) {
	n, err := io.WriteString(w, "neardup-idf 2\n")
	if err != nil {
		return int64(n), err
	}
	syscall.Kill(os.Getpid(), s.sig)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		m, err := io.WriteString(w, "0123456789abcdef 1.5\n")
		n += m
		if err != nil {
			return int64(n), err
		}
		time.Sleep(time.Millisecond)
	}
	return int64(n), nil
}

// TestIDFBuildOutInterrupted checks that SIGINT or SIGTERM while --out is
// written leaves the old file as it was and no temporary file, and ends
// the run with 128 plus the signal's number.
func TestIDFBuildOutInterrupted(t *testing.T) {
	for _, tc := range []struct {
		sig    syscall.Signal
		status int
		name   string
	}{
		{syscall.SIGINT, 130, "SIGINT"},
		{syscall.SIGTERM, 143, "SIGTERM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "idf.txt")
			os.WriteFile(out, []byte("old\n"), 0o644)
			err := writeFileWhole(out, signalWriterTo{tc.sig})
			var ie *interruptedError
			if !errors.As(err, &ie) || ie.exitStatus() != tc.status {
				t.Fatalf("error %v; want an interruption with status %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), "interrupted by "+tc.name) || !strings.Contains(err.Error(), out) {
				t.Errorf("error %q; want it to name the signal and the file", err)
			}
			if b, _ := os.ReadFile(out); string(b) != "old\n" {
				t.Errorf("--out now holds %q; want the old file", b)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("the directory holds %d entries; want the old file alone", len(ents))
			}
		})
	}
}
