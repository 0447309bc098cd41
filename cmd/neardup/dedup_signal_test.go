//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// signalInput is a standard input that gives data, then, when asked for
// more, waits until ready says the output is there, sends sig to this
// process and blocks until release is closed, as a terminal or a pipe
// that has nothing more yet.
type signalInput struct {
	data    *strings.Reader
	ready   func() bool
	sig     syscall.Signal
	release chan struct{}
	sent    atomic.Bool
	late    atomic.Bool // ready did not become true in time
}

// Read reads the input (see signalInput).
func (r *signalInput) Read(p []byte) (int, error) {
	if r.data.Len() > 0 {
		return r.data.Read(p)
	}
	if !r.sent.Swap(true) {
		deadline := time.Now().Add(10 * time.Second)
		for !r.ready() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		r.late.Store(!r.ready())
		// dedup catches SIGINT and SIGTERM while it reads (it asked for
		// this input), so the signal does not end the test process.
		syscall.Kill(os.Getpid(), r.sig)
	}
	<-r.release
	return 0, io.EOF
}

// TestDedupInterrupted checks that SIGINT or SIGTERM during dedup --db
// loses nothing: the batch decided is on standard output, whole, before
// the next one is decided; the run exits with 128 plus the signal's
// number and says how far it got; a rerun on the same input writes
// exactly the rest.
func TestDedupInterrupted(t *testing.T) {
	lines := dedupDocs(dedupBatch + 150)
	input := strings.Join(lines, "")
	for _, tc := range []struct {
		sig    syscall.Signal
		status int
		name   string
	}{
		{syscall.SIGINT, 130, "SIGINT"},
		{syscall.SIGTERM, 143, "SIGTERM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "db")
			var out, errb dedupSyncOut
			in := &signalInput{
				data:    strings.NewReader(input),
				ready:   func() bool { return out.String() == strings.Join(lines[:dedupBatch], "") },
				sig:     tc.sig,
				release: make(chan struct{}),
			}
			defer close(in.release)
			code := run([]string{"dedup", "--db", db}, in, &out, &errb)
			if in.late.Load() {
				t.Errorf("the first batch was not on standard output before the next was decided: %d bytes written", len(out.String()))
			}
			msg := errb.String()
			if code != tc.status {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.status, msg)
			}
			if got, want := out.String(), strings.Join(lines[:dedupBatch], ""); got != want {
				t.Errorf("interrupted run wrote %d bytes, want the first batch, %d bytes", len(got), len(want))
			}
			for _, want := range []string{
				"neardup: dedup: interrupted by " + tc.name,
				"after deciding 2048 documents (up to standard input:2048): 2048 unique ones were written, every one complete",
				"stored in " + db + ", so a rerun on the same input writes the rest",
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr %q does not say %q", msg, want)
				}
			}
			if strings.Count(msg, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", msg)
			}
			var out2, errb2 dedupSyncOut
			if code := run([]string{"dedup", "--db", db}, strings.NewReader(input), &out2, &errb2); code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, errb2.String())
			}
			if got, want := out2.String(), strings.Join(lines[dedupBatch:], ""); got != want {
				t.Errorf("rerun wrote %d lines, want the %d after the first batch", strings.Count(got, "\n"), len(lines)-dedupBatch)
			}
		})
	}
}
