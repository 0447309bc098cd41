package main

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPairsCommand(t *testing.T) {
	tests := []struct {
		name, in, args, want string
	}{
		{"hex lines", "00000000000000ff\n00000000000000fe\nffffffffffffffff\n00000000000000f0\n", "",
			"1\t2\t1\n2\t4\t3\n"},
		{"k 1", "00000000000000ff\n00000000000000fe\nffffffffffffffff\n", "--k 1", "1\t2\t1\n"},
		{"ids and blanks", "a\t0000000000000001\n\nb\t0000000000000001\nc\t8000000000000001\n", "--k 0", "a\tb\t0\n"},
		{"input order names the first", "z\t0000000000000003\ny\t0000000000000001\n", "--k 1", "z\ty\t1\n"},
		{"empty", "", "", ""},
		{"fingerprint's output, HEX<TAB>NAME", "0000000000000003\tdoc-a\n0000000000000001\tdoc-b\n", "--k 1", "doc-a\tdoc-b\t1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"pairs"}, strings.Fields(tt.args)...)
			if code := run(args, strings.NewReader(tt.in), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if stdout.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", stdout.String(), tt.want)
			}
		})
	}
}

// TestPairsCommandBruteForce checks the command on a file of clustered
// fingerprints against a quadratic scan.
func TestPairsCommandBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var fps []uint64
	var in strings.Builder
	for i := range 3000 {
		fp := r.Uint64()
		if i > 0 && r.IntN(3) == 0 {
			fp = fps[r.IntN(i)] ^ 1<<r.UintN(64) ^ 1<<r.UintN(64)
		}
		fps = append(fps, fp)
		fmt.Fprintf(&in, "%016x\n", fp)
	}
	path := filepath.Join(t.TempDir(), "fps.txt")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range fps {
		for j := i + 1; j < len(fps); j++ {
			if d := bits.OnesCount64(fps[i] ^ fps[j]); d <= 2 {
				fmt.Fprintf(&want, "%d\t%d\t%d\n", i+1, j+1, d)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"pairs", "--k", "2", path}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.String() != want.String() {
		t.Fatalf("pairs output differs from brute force: %d bytes, want %d", stdout.Len(), want.Len())
	}
}

func TestPairsCommandErrors(t *testing.T) {
	tests := []struct {
		name, in string
		args     []string
		want     string
	}{
		{"bad hex", "00000000000000ff\nzz\n", nil, "line 2"},
		{"bad hex after id", "0000000000000001\nx\tnothex\n", nil, "line 2"},
		{"128-bit", "000000000000000000000000000000ff\n", nil, "line 1: 128-bit"},
		{"bad k", "", []string{"--k", "65"}, "out of range"},
		{"missing file", "", []string{"/nonexistent/fps"}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"pairs"}, tt.args...), strings.NewReader(tt.in), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.want)
			}
		})
	}
}
