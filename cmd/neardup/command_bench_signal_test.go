//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchChildEnv holds, as JSON, the arguments of the neardup command that
// TestBenchSignalChild runs when this test binary is started as a child.
const benchChildEnv = "NEARDUP_BENCH_SIGNAL_CHILD"

// TestBenchSignalChild is not a test of its own: started by
// startBenchChild with benchChildEnv set, it runs neardup with those
// arguments and exits with its status, so that a signal sent to it
// reaches a real process, as one from a terminal does.
func TestBenchSignalChild(t *testing.T) {
	raw := os.Getenv(benchChildEnv)
	if raw == "" {
		t.Skip("runs only as the child process of the bench signal tests")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(99)
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// benchSyncBuf is a buffer written by a child's output copier and read by
// the test.
type benchSyncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *benchSyncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *benchSyncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// benchChild is neardup running in a child process with its own TMPDIR.
type benchChild struct {
	cmd            *exec.Cmd
	stdout, stderr benchSyncBuf
	tmp            string // the child's TMPDIR
}

// startBenchChild starts neardup with args in a child process whose
// TMPDIR is a new empty directory.
func startBenchChild(t *testing.T, args ...string) *benchChild {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := &benchChild{tmp: t.TempDir()}
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestBenchSignalChild$")
	c.cmd.Env = append(os.Environ(), benchChildEnv+"="+string(raw), "TMPDIR="+c.tmp)
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	return c
}

// waitFor waits up to 30 seconds for ready, and fails the test if it does
// not come.
func (c *benchChild) waitFor(t *testing.T, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not come in 30s; stdout %q, stderr %q", what, c.stdout.String(), c.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// interrupt sends sig to the child and returns its exit status.
func (c *benchChild) interrupt(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		<-done
		t.Fatalf("still running 30s after the signal; stderr %q", c.stderr.String())
	}
	return c.cmd.ProcessState.ExitCode()
}

// checkLeftNothing fails the test if the child left anything in its
// TMPDIR.
func (c *benchChild) checkLeftNothing(t *testing.T) {
	t.Helper()
	ents, err := os.ReadDir(c.tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}

// TestBenchServeInterrupted interrupts bench serve during its second
// mode: it exits 130 saying so, after printing the row of the first mode,
// stopping its server, removing its store and flushing its CPU profile.
func TestBenchServeInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	c := startBenchChild(t, "bench", "serve", "--in-memory", "--duration", "1s", "--warmup", "0s", "--conns", "2", "--batch", "20", "--batch-conns", "1", "--cpuprofile", prof)
	c.waitFor(t, "the batch mode", func() bool { return strings.Contains(c.stderr.String(), "bench serve: batch:") })
	time.Sleep(100 * time.Millisecond)
	if code := c.interrupt(t, syscall.SIGINT); code != 130 {
		t.Fatalf("exit %d, want 130; stderr %q", code, c.stderr.String())
	}
	out := c.stdout.String()
	if !strings.HasPrefix(out, "build: go") || benchRow(out, "single") == nil || strings.Contains(out, "  batch ") {
		t.Errorf("the report does not start with the build and show the single row alone:\n%s", out)
	}
	if msg := c.stderr.String(); !strings.Contains(msg, "neardup: bench serve: interrupted by SIGINT; the rows above were measured before it (batch was not)") {
		t.Errorf("stderr %q does not say the run was interrupted and what it measured", msg)
	}
	c.checkLeftNothing(t)
	checkProfile(t, prof)
}

// TestBenchEngineInterrupted sends SIGTERM to bench engine during its
// throughput run: it stops the writers, exits 143 saying so, removes its
// temporary store and flushes its CPU profile.
func TestBenchEngineInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a store")
	}
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	c := startBenchChild(t, "bench", "engine", "--docs", "100000", "--text-bytes", "20", "--writers", "4", "--durability", "nosync", "--restart-docs", "1000", "--cpuprofile", prof)
	c.waitFor(t, "the throughput store", func() bool {
		m, _ := filepath.Glob(filepath.Join(c.tmp, "neardup-bench-*", "throughput", "*"))
		return len(m) > 0
	})
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if code := c.interrupt(t, syscall.SIGTERM); code != 143 {
		t.Fatalf("exit %d, want 143; stderr %q", code, c.stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v to stop after the signal", d)
	}
	if msg := c.stderr.String(); !strings.Contains(msg, "neardup: bench engine: interrupted by SIGTERM; nothing was measured") {
		t.Errorf("stderr %q does not say the run was interrupted", msg)
	}
	c.checkLeftNothing(t)
	checkProfile(t, prof)
}

// TestBenchIndexInterrupted interrupts bench index --snapshot while it
// writes its snapshot: it exits 130 and leaves no snapshot file.
func TestBenchIndexInterrupted(t *testing.T) {
	c := startBenchChild(t, "bench", "index", "-n", "1000000", "--queries", "2000", "--baseline=false", "--snapshot")
	c.waitFor(t, "the snapshot", func() bool { return strings.Contains(c.stderr.String(), "bench index: snapshot") })
	if code := c.interrupt(t, syscall.SIGINT); code != 130 {
		t.Fatalf("exit %d, want 130; stderr %q", code, c.stderr.String())
	}
	if msg := c.stderr.String(); !strings.Contains(msg, "neardup: bench index: interrupted by SIGINT; stopped after ") {
		t.Errorf("stderr %q does not say the run was interrupted", msg)
	}
	c.checkLeftNothing(t)
}
