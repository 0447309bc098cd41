package neardup

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// crashChildEnv names the store directory a re-executed test binary fills
// until it is killed.
const crashChildEnv = "NEARDUP_CRASH_CHILD_DIR"

// crashText is the text of document i of the crash test.
func crashText(i int) string {
	return genText(rand.New(rand.NewPCG(uint64(i), 77)), 30+i%200)
}

// crashChild inserts documents from several goroutines and prints "ack N"
// for each one CheckAndInsert acknowledged as stored.
func crashChild(dir string) {
	e, err := Open(dir, nil)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	var out sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; ; i += 8 {
				res, err := e.CheckAndInsert(context.Background(), Document{ID: strconv.Itoa(i), Text: crashText(i)})
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(4)
				}
				if res.Inserted {
					out.Lock()
					fmt.Fprintf(w, "ack %d\n", i)
					w.Flush()
					out.Unlock()
				}
			}
		})
	}
	wg.Wait()
}

// TestCrashSafety kills a process that is inserting (SIGKILL, mid-stream),
// reopens its store and checks that every acknowledged document is there.
func TestCrashSafety(t *testing.T) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	dir := t.TempDir()
	for round := range 2 { // the second round crashes a reopened store
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := map[int]bool{}
		sc := bufio.NewScanner(stdout)
		killAfter := 1500 + 1000*round
		for sc.Scan() {
			line := sc.Text()
			n, err := strconv.Atoi(strings.TrimPrefix(line, "ack "))
			if err != nil {
				t.Fatalf("child said %q", line)
			}
			acked[n] = true
			if len(acked) == killAfter {
				cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		cmd.Wait()
		if len(acked) < killAfter {
			t.Fatalf("child stopped after %d acks: %s", len(acked), stderr.String())
		}
		e, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("round %d: store does not open after kill -9: %v", round, err)
		}
		lost := 0
		for n := range acked {
			d, err := e.Get(strconv.Itoa(n))
			if err != nil || d.Text != crashText(n) {
				lost++
			}
		}
		t.Logf("round %d: %d acknowledged, %d stored after restart, %d lost", round, len(acked), e.Stats().Documents, lost)
		if lost > 0 {
			t.Errorf("round %d: %d of %d acknowledged documents lost", round, lost, len(acked))
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
