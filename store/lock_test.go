package store

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// TestOpenNotStore checks that a directory holding files no store makes
// is refused, naming one, and left as it was: pebble would have deleted a
// user's file named like one of its logs. An empty directory, one with
// lost+found only, and a store are opened.
func TestOpenNotStore(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"notes.txt": "notes", "000001.log": "not pebble's"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(dir, nil)
	if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), `"notes.txt"`) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("Open of a directory with notes.txt: %v, want ErrNotStore naming it", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(files) {
		t.Errorf("the directory holds %d entries after the refusal, want its %d files only", len(ents), len(files))
	}
	for name, text := range files {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != text {
			t.Errorf("%s after the refusal: %q, %v", name, b, err)
		}
	}
	fresh := t.TempDir()
	if err := os.Mkdir(filepath.Join(fresh, "lost+found"), 0o700); err != nil {
		t.Fatal(err)
	}
	for range 2 { // new, then a store
		db, err := Open(fresh, nil)
		if err != nil {
			t.Fatalf("Open of %s: %v", fresh, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFatalExits checks what a fatal error of pebble's that is not a
// commit's (a checksum mismatch found by a compaction, say) does: one line
// on standard error and exit status 1, in a re-executed test binary; it
// was a panic whose stack trace, and a second panic, buried the message.
// Pebble's report of on-disk corruption formats its error with %+v, which
// adds the error's chain and stack traces on many more lines: only the
// first, which names the file and the damage, is written.
func TestFatalExits(t *testing.T) {
	switch os.Getenv("NEARDUP_STORE_FATAL_CHILD") {
	case "":
	case "chain":
		(&storeLogger{}).Fatalf("%s", "on-disk corruption: 000007.sst; details: checksum mismatch\n(1) path: 000007.sst\nWraps: (2) attached stack trace\n  -- stack trace:\n  | pebble.(*Reader).doRead")
		return
	default:
		(&storeLogger{}).Fatalf("on-disk corruption: %s: checksum mismatch", "000007.sst")
		return
	}
	for child, want := range map[string]string{
		"one line": "store: pebble fatal: on-disk corruption: 000007.sst: checksum mismatch (the store cannot go on; stopping the process)\n",
		"chain":    "store: pebble fatal: on-disk corruption: 000007.sst; details: checksum mismatch (the store cannot go on; stopping the process)\n",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFatalExits$")
		cmd.Env = append(os.Environ(), "NEARDUP_STORE_FATAL_CHILD="+child)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("child %s: %v, want exit status 1; stderr %q", child, err, stderr.String())
		}
		if stderr.String() != want {
			t.Errorf("child %s: stderr %q, want %q", child, stderr.String(), want)
		}
	}
}

// TestOpenMustExist checks that MustExist refuses a missing directory and
// an empty one with ErrNoStore, creating nothing in either, and opens a
// store that is there.
func TestOpenMustExist(t *testing.T) {
	base := t.TempDir()
	missing, empty := filepath.Join(base, "missing"), filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{missing, empty} {
		db, err := Open(dir, &Options{MustExist: true})
		if !errors.Is(err, ErrNoStore) || !strings.Contains(err.Error(), dir) {
			if db != nil {
				db.Close()
			}
			t.Fatalf("Open of %s with MustExist: %v, want ErrNoStore naming it", dir, err)
		}
		if Exists(dir) {
			t.Errorf("Exists(%s) after the refusal", dir)
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing directory after the refusal: %v, want it still missing", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("the empty directory holds %d entries after the refusal", len(ents))
	}
	db, err := Open(empty, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if !Exists(empty) {
		t.Fatalf("Exists(%s) false after a store was made there", empty)
	}
	db, err = Open(empty, &Options{MustExist: true})
	if err != nil {
		t.Fatalf("Open of a store with MustExist: %v", err)
	}
	db.Close()
}
