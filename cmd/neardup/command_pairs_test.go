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
		// A name of 16 hex digits is taken as a name where the other
		// lines say the first field is the fingerprint, and names of 32
		// or 64 digits (md5, sha256) are never 64-bit fingerprints.
		{"hex names", "0000000000000003\tabcdef0123456789\n0000000000000001\tdoc-b\n", "--k 1", "abcdef0123456789\tdoc-b\t1\n"},
		{"md5 names", "0000000000000003\t" + strings.Repeat("ab", 16) + "\n0000000000000001\t" + strings.Repeat("cd", 16) + "\n", "--k 1", strings.Repeat("ab", 16) + "\t" + strings.Repeat("cd", 16) + "\t1\n"},
		{"hex ids, ID<TAB>HEX", "abcdef0123456789\t0000000000000003\nx\t0000000000000001\n", "--k 1", "abcdef0123456789\tx\t1\n"},
		{"every line ambiguous, --layout id-hex", "abcdef0123456789\t0000000000000003\n1111111111111111\t0000000000000001\n", "--k 1 --layout id-hex", "abcdef0123456789\t1111111111111111\t1\n"},
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

// TestPairsAmbiguous checks that a list whose every line has two
// fingerprints is read as neardup fingerprint writes it, with a warning.
func TestPairsAmbiguous(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := "0000000000000003\tabcdef0123456789\n0000000000000001\t1111111111111111\n"
	if code := run([]string{"pairs", "--k", "1"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.String() != "abcdef0123456789\t1111111111111111\t1\n" || !strings.Contains(stderr.String(), "--layout id-hex") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// TestPairsSpill checks that pairs past what is sorted in memory go
// through sorted runs in temporary files, merged into the same output as
// a sort in memory, and that the files have no names in the temporary
// directory even while they are merged (a run killed there, or cut off by
// a closed pipe, leaves nothing behind).
func TestPairsSpill(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var in strings.Builder
	for range 2000 {
		// Few distinct fingerprints: many pairs, many at distance 0.
		fmt.Fprintf(&in, "%016x\n", uint64(r.IntN(40))<<8|uint64(r.IntN(4)))
	}
	tmp := t.TempDir()
	pairsOut := func() (string, int) {
		stdout := &watchDir{dir: tmp}
		var stderr bytes.Buffer
		if code := run([]string{"pairs", "--k", "2"}, strings.NewReader(in.String()), stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		return stdout.String(), stdout.most
	}
	want, _ := pairsOut()
	t.Setenv("TMPDIR", tmp)
	defer func(n int) { pairsRun = n }(pairsRun)
	pairsRun = 1000
	got, most := pairsOut()
	if most != 0 {
		t.Errorf("%d temporary files named in %s while the output was written", most, tmp)
	}
	if n := strings.Count(want, "\n"); n < 20*pairsRun {
		t.Fatalf("only %d pairs; the test needs many runs", n)
	}
	if got != want {
		t.Fatalf("output through sorted runs differs: %d bytes, want %d", len(got), len(want))
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d temporary files left", len(left))
	}
}

// watchDir is a buffer that notes, at each write, the most entries dir
// has held.
type watchDir struct {
	bytes.Buffer
	dir  string
	most int
}

func (w *watchDir) Write(p []byte) (int, error) {
	if es, _ := os.ReadDir(w.dir); len(es) > w.most {
		w.most = len(es)
	}
	return w.Buffer.Write(p)
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
		{"bad layout", "", []string{"--layout", "x"}, "want auto, hex-id or id-hex"},
		{"layouts mixed", "a\t0000000000000001\n0000000000000002\tb\n", nil, "line 2: \"b\" is not a 64-bit hex fingerprint"},
		{"long bad line quoted cut", strings.Repeat("z", 5000) + "\n", nil, `line 1: "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"... is not`},
		{"line too long", "0000000000000001\n" + strings.Repeat("0", 2<<20) + "\n", nil, "line 2 is longer than 1048576 bytes"},
		{"missing file", "", []string{"/nonexistent/fps"}, "no such file"},
		{"standard input twice", "", []string{"-", "-"}, `pairs: "-" is given 2 times, but standard input can be read once`},
		{"byte order mark not on line 1", "0000000000000001\n\ufeff0000000000000002\n", nil, "line 2"},
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

// TestPairsEscapedIDs checks that ids are written with fingerprint's
// escapes, so that an id holding a tab stays one field, and that escaped
// ids (as fingerprint writes names) come out as they went in, white space
// around them included.
func TestPairsEscapedIDs(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a tab in an id", "0000000000000001\ta\tb\n0000000000000001\tc\n", "a\\tb\tc\t0\n"},
		{"escapes kept", "0000000000000001\tx\\ty\n0000000000000001\tx\\\\ty\n0000000000000001\tC:\\d\n", "x\\ty\tx\\\\ty\t0\nx\\ty\tC:\\\\d\t0\nx\\\\ty\tC:\\\\d\t0\n"},
		{"id first", "a\\tb\t0000000000000001\nc\t0000000000000001\n", "a\\tb\tc\t0\n"},
		{"spaces kept", "0000000000000001\t a \n 0000000000000001 \tb \n", " a \tb \t0\n"},
		{"spaces kept, id first", " a\t0000000000000001 \nb \t 0000000000000001\n", " a\tb \t0\n"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"pairs", "--k", "0"}, strings.NewReader(tc.in), &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr.String())
		}
		if stdout.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, stdout.String(), tc.want)
		}
		for _, l := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
			if strings.Count(l, "\t") != 2 {
				t.Errorf("%s: line %q has not three fields", tc.name, l)
			}
		}
	}
}

// TestPairsBOM checks that a byte order mark at the start of the input,
// as some editors write, is not part of the first fingerprint or id.
func TestPairsBOM(t *testing.T) {
	for _, in := range []string{"\ufeff8606000000000000\n8606000000000001\n", "\ufeffa\t8606000000000000\nb\t8606000000000001\n"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"pairs", "--k", "1"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", in, code, stderr.String())
		}
		if got := stdout.String(); got != "1\t2\t1\n" && got != "a\tb\t1\n" {
			t.Errorf("%q: got %q", in, got)
		}
	}
}

// TestPairsSeveralFiles checks that several files are read in order as one
// input, a HEX line's id being its line number in the whole input, with
// standard input among them; errors name the file and its own line.
func TestPairsSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("0000000000000001\n\n"), 0o644)
	os.WriteFile(b, []byte("\ufeff0000000000000003\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"pairs", "--k", "1", a, "-", b}, strings.NewReader("0000000000000000\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "1\t3\t1\n1\t4\t1\n"; stdout.String() != want {
		t.Errorf("got %q, want %q", stdout.String(), want)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0000000000000001\nzz\n"), 0o644)
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"pairs", a, bad}, nil, &stdout, &stderr)
	wantUsageError(t, stderr.String(), code, "pairs: "+bad+": line 2: \"zz\" is not a 64-bit hex fingerprint")
}

// TestPairsHelp checks the help's account of empty texts: their
// fingerprints are not 0 in every profile, and n of them make n(n-1)/2
// pairs.
func TestPairsHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	run([]string{"pairs", "--help"}, nil, &stdout, &stderr)
	help := strings.Join(strings.Fields(stdout.String()), " ")
	for _, want := range []string{"n(n-1)/2", "ffffffffffffffff for classic and go-mfonda", "e9800998ecf8427e for py-simhash"} {
		if !strings.Contains(help, want) {
			t.Errorf("pairs --help does not say %q", want)
		}
	}
	if strings.Contains(help, "0 in every profile") {
		t.Error("pairs --help still says an empty text's fingerprint is 0 in every profile")
	}
	for _, p := range []struct{ profile, want string }{{"default", "0000000000000000"}, {"classic", "ffffffffffffffff"}, {"go-mfonda", "ffffffffffffffff"}, {"py-simhash", "e9800998ecf8427e"}} {
		stdout.Reset()
		run([]string{"fingerprint", "--profile", p.profile}, strings.NewReader(""), &stdout, &stderr)
		if got := strings.Split(stdout.String(), "\t")[0]; got != p.want {
			t.Errorf("an empty text's %s fingerprint is %s; the help says %s", p.profile, got, p.want)
		}
	}
}
