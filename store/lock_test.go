package store

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// lockChildEnv names the store directory a re-executed test binary holds
// open until its standard input closes.
const lockChildEnv = "NEARDUP_STORE_LOCK_CHILD_DIR"

// TestOpenInUse checks that a store open elsewhere, in this process or in
// another, is refused with ErrInUse naming the directory, and opens once
// it is closed.
func TestOpenInUse(t *testing.T) {
	if dir := os.Getenv(lockChildEnv); dir != "" {
		db, err := Open(dir, nil)
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(3)
		}
		os.Stdout.WriteString("open\n")
		io.Copy(io.Discard, os.Stdin)
		db.Close()
		os.Exit(0)
	}
	inUse := func(dir, who string) {
		t.Helper()
		db, err := Open(dir, nil)
		if err == nil {
			db.Close()
			t.Fatalf("%s: a second Open succeeded", who)
		}
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("%s: %v, want ErrInUse naming %s", who, err, dir)
		}
	}
	dir := t.TempDir()
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	inUse(dir, "open in this process")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return // the lock between processes is fcntl's
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenInUse$")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "open\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	inUse(dir, "open in another process")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	db, err = Open(dir, nil)
	if err != nil {
		t.Fatalf("after the other process closed it: %v", err)
	}
	db.Close()
}
