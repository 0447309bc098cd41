package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/simhash/compat"
)

// runFP runs neardup with args and stdin and returns its stdout, stderr and
// exit status.
func runFP(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// writeFile writes content to a new file in a test directory and returns
// its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantUsageError checks that a run failed with exit status 2 and one line
// "neardup: ..." on stderr containing msg.
func wantUsageError(t *testing.T, stderr string, code int, msg string) {
	t.Helper()
	if code != 2 {
		t.Errorf("exit status %d, want 2 (stderr %q)", code, stderr)
	}
	if !strings.HasPrefix(stderr, "neardup: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, msg) {
		t.Errorf("stderr %q, want one line 'neardup: ...%s...'", stderr, msg)
	}
}

// mfonda is the go-mfonda fingerprint of text in hex, from the library.
func mfonda(text string) string { return fmt.Sprintf("%016x", compat.Mfonda64([]byte(text))) }

func TestFingerprintCommand(t *testing.T) {
	file := writeFile(t, "doc.txt", "this is a test phrase")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"lines", "this is a test phrase\nthis is a test phrass\r\n\nlast", []string{"fingerprint", "--profile", "go-mfonda", "--lines"},
			"8c3a5f7e9ecb3f35\t1\n8c3a5f7e9ecb3f21\t2\nffffffffffffffff\t3\nd06d7f7ec6478465\t4\n"},
		{"lines, final newline", "this is a test phrase\n", []string{"fingerprint", "--profile", "go-mfonda", "--lines"},
			"8c3a5f7e9ecb3f35\t1\n"},
		{"empty input with --lines", "", []string{"fingerprint", "--lines"}, ""},
		{"stdin is one document", "two lines\nof text", []string{"fingerprint", "--profile", "go-mfonda"},
			mfonda("two lines\nof text") + "\t-\n"},
		{"file", "", []string{"fingerprint", "--profile", "go-mfonda", file}, "8c3a5f7e9ecb3f35\t" + file + "\n"},
		{"file and stdin", "this is a test phrass", []string{"fingerprint", "--profile", "go-mfonda", file, "-"},
			"8c3a5f7e9ecb3f35\t" + file + "\n8c3a5f7e9ecb3f21\t-\n"},
		{"lines of two inputs", "x y", []string{"fingerprint", "--profile", "go-mfonda", "--lines", file, "-"},
			"8c3a5f7e9ecb3f35\t" + file + ":1\n" + mfonda("x y") + "\t-:1\n"},
		{"classic 128", "This is a test string for testing", []string{"fingerprint", "--profile", "classic", "--bits", "128"},
			"0000000020302202800d8e90e45cc488\t-\n"},
		{"nilsimsa by algo", "abcdefgh", []string{"fingerprint", "--algo", "nilsimsa"},
			"14c8118000000000030800000004042004189020001308014088003280000078\t-\n"},
		{"nilsimsa by profile", "abcdefgh", []string{"fingerprint", "--profile", "nilsimsa", "--algo", "nilsimsa"},
			"14c8118000000000030800000004042004189020001308014088003280000078\t-\n"},
		{"py-simhash empty", "", []string{"fingerprint", "--profile", "py-simhash"}, "e9800998ecf8427e\t-\n"},
	}
	for _, tt := range tests {
		out, errOut, code := runFP(t, tt.stdin, tt.args...)
		if code != 0 || out != tt.want {
			t.Errorf("%s: got %q (status %d, stderr %q), want %q", tt.name, out, code, errOut, tt.want)
		}
	}
}

// TestFingerprintDefaultProfile checks the output format of the default
// profile at both widths without fixing its values (FP-CORE's pipeline owns
// them): one zero-padded lower-case hex line per document, the same for the
// same text.
func TestFingerprintDefaultProfile(t *testing.T) {
	for _, bits := range []string{"64", "128"} {
		out, errOut, code := runFP(t, "same text\nsame text\n\n", "fingerprint", "--lines", "--bits", bits)
		if code != 0 {
			t.Fatalf("status %d: %s", code, errOut)
		}
		digits := map[string]int{"64": 16, "128": 32}[bits]
		re := regexp.MustCompile(fmt.Sprintf(`^[0-9a-f]{%d}\t[123]$`, digits))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("--bits %s: %d lines, want 3: %q", bits, len(lines), out)
		}
		for _, l := range lines {
			if !re.MatchString(l) {
				t.Errorf("--bits %s: line %q does not match %s", bits, l, re)
			}
		}
		if lines[0][:digits] != lines[1][:digits] {
			t.Errorf("--bits %s: the same text gives %q and %q", bits, lines[0], lines[1])
		}
	}
}

// TestFingerprintLongLines checks --lines on a line longer than the read
// buffer (assembled in pieces) and on one longer than --max-line.
func TestFingerprintLongLines(t *testing.T) {
	long := strings.Repeat("word ", 100_000) // 500 KB, over the 256 KB buffer
	want, _, _ := runFP(t, long, "fingerprint", "--profile", "go-mfonda")
	out, errOut, code := runFP(t, "a b\n"+long+"\r\nc d\n", "fingerprint", "--profile", "go-mfonda", "--lines")
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) != 4 || lines[1][:16] != want[:16] || lines[1][16:] != "\t2" {
		t.Errorf("long line: status %d, stderr %q, output %q; want line 2 = %q", code, errOut, out, want[:16]+"\t2")
	}
	out, errOut, code = runFP(t, "short\n"+strings.Repeat("x", 20)+"\n", "fingerprint", "--lines", "--max-line", "10")
	wantUsageError(t, errOut, code, "line 2 is longer than --max-line")
	if !strings.HasSuffix(out, "\t1\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("lines before the long one: %q, want line 1 printed", out)
	}
	_, errOut, code = runFP(t, "short\n"+long, "fingerprint", "--lines", "--max-line", "300000")
	wantUsageError(t, errOut, code, "standard input: line 2 is longer than --max-line (300000 bytes)")
}

// TestFingerprintLinesOrder checks that many lines, fingerprinted by several
// workers in batches, come out in input order with the right numbers.
func TestFingerprintLinesOrder(t *testing.T) {
	var in, want strings.Builder
	for i := 1; i <= 5000; i++ {
		text := fmt.Sprintf("line %d of the input", i)
		if i%7 == 0 {
			text = strings.Repeat("long ", 500)
		}
		in.WriteString(text + "\n")
		fmt.Fprintf(&want, "%s\t%d\n", mfonda(text), i)
	}
	for _, workers := range []string{"1", "3"} {
		out, errOut, code := runFP(t, in.String(), "fingerprint", "--lines", "--profile", "go-mfonda", "--workers", workers)
		if code != 0 || out != want.String() {
			t.Errorf("--workers %s: status %d, stderr %q, output differs from the expected %d lines", workers, code, errOut, 5000)
		}
	}
}

func TestFingerprintErrors(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"fingerprint", "--profile", "simhash"}, `--profile "simhash": no such profile; want default, classic, py-simhash, go-mfonda or nilsimsa`},
		{[]string{"fingerprint", "--bits", "32"}, "--bits 32: want 64 or 128"},
		{[]string{"fingerprint", "--profile", "go-mfonda", "--bits", "128"}, `--bits 128: profile "go-mfonda" makes 64-bit fingerprints only`},
		{[]string{"compare", "--bits", "32", "a", "b"}, "--bits 32: want 64 or 128"},
		{[]string{"fingerprint", "--algo", "md5"}, `unknown --algo "md5"`},
		{[]string{"fingerprint", "--algo", "nilsimsa", "--profile", "classic"}, "conflicts"},
		{[]string{"fingerprint", "--algo", "simhash", "--profile", "nilsimsa"}, "conflicts"},
		{[]string{"fingerprint", "--profile", "nilsimsa", "--bits", "128"}, "--bits 128 conflicts with --profile nilsimsa"},
		{[]string{"fingerprint", "--algo", "nilsimsa", "--bits", "64"}, "--bits 64 conflicts with --algo nilsimsa"},
		{[]string{"compare", "--profile", "nilsimsa", "--bits", "128", "a", "b"}, "--bits 128 conflicts with --profile nilsimsa"},
		{[]string{"fingerprint", filepath.Join(t.TempDir(), "missing.txt")}, "missing.txt"},
		{[]string{"fingerprint", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"fingerprint", "--lines", "--max-line", "0"}, "--max-line must be positive"},
		{[]string{"fingerprint", "--lines", "--workers", "0"}, "--workers 0: want 1 to 1024"},
		{[]string{"fingerprint", "--lines", "--workers", "1000000"}, "--workers 1000000: want 1 to 1024"},
		{[]string{"fingerprint", "-", "-"}, `fingerprint: "-" is given 2 times, but standard input can be read once`},
		{[]string{"fingerprint", "--lines", "-", "x", "-"}, `fingerprint: "-" is given 2 times, but standard input can be read once`},
	}
	for _, tt := range tests {
		out, errOut, code := runFP(t, "text", tt.args...)
		if out != "" {
			t.Errorf("%v: printed %q", tt.args, out)
		}
		wantUsageError(t, errOut, code, tt.msg)
	}
}

// TestFingerprintNilsimsaStream checks that a whole document digested as it
// streams gives the same digest as the profile on the whole text.
func TestFingerprintNilsimsaStream(t *testing.T) {
	text := strings.Repeat("The rain in Spain falls mainly in the plains. ", 50_000)
	file := writeFile(t, "big.txt", text)
	out, errOut, code := runFP(t, "", "fingerprint", "--algo", "nilsimsa", file)
	f, err := neardup.NewFingerprinter(neardup.Config{Profile: "nilsimsa"})
	if err != nil {
		t.Fatal(err)
	}
	if want := f.Fingerprint([]byte(text)).String() + "\t" + file + "\n"; code != 0 || out != want {
		t.Errorf("status %d, stderr %q, output %q, want %q", code, errOut, out, want)
	}
}

// TestFingerprintDirectory checks that a directory is read as dir by
// default, each file a document named by its relative path, and that a
// format that reads files makes it a usage error that names it once.
func TestFingerprintDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(fox), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte(other), 0o644)
	f, _ := neardup.NewFingerprinter(neardup.Config{Profile: "default", Bits: 64})
	want := f.Fingerprint([]byte(fox)).String() + "\ta.txt\n" + f.Fingerprint([]byte(other)).String() + "\tsub/b.txt\n"
	if out, errOut, code := runFP(t, "", "fingerprint", dir); code != 0 || out != want {
		t.Errorf("exit %d, stderr %q, output %q; want %q", code, errOut, out, want)
	}
	for _, args := range [][]string{
		{"fingerprint", "--format", "file", dir},
		{"fingerprint", "--format", "file", "--algo", "nilsimsa", dir},
		{"fingerprint", "--lines", dir},
		{"fingerprint", "--format", "jsonl", dir},
	} {
		out, errOut, code := runFP(t, "", args...)
		if out != "" {
			t.Errorf("%v: printed %q", args, out)
		}
		wantUsageError(t, errOut, code, "is a directory")
		if n := strings.Count(errOut, dir); n != 1 {
			t.Errorf("%v: stderr %q names the directory %d times, want once", args, errOut, n)
		}
	}
}

// TestFingerprintRecords checks that the records of a JSONL, CSV or
// Parquet corpus are fingerprinted as their texts are, named by their ids
// (or FILE:N line numbers when several inputs are given), in input order
// with any number of workers; that pairs reads the output; and that a bad
// record stops the run after the fingerprints before it, or is skipped.
func TestFingerprintRecords(t *testing.T) {
	f, _ := neardup.NewFingerprinter(neardup.Config{Profile: "default", Bits: 64})
	hex := func(text string) string { return f.Fingerprint([]byte(text)).String() }
	texts := []string{fox, other, fox2, "一个中文的句子，和另一个"}
	var jsonl, noIDs strings.Builder
	var rows []pqNoID
	for i, text := range texts {
		fmt.Fprintf(&jsonl, "{\"id\":\"doc-%d\",\"text\":%q}\n", i, text)
		fmt.Fprintf(&noIDs, "{\"text\":%q}\n", text)
		rows = append(rows, pqNoID{Body: text})
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "docs.jsonl.zst")
	os.WriteFile(path, compress(t, "zst", []byte(jsonl.String())), 0o644)
	var want strings.Builder
	for i, text := range texts {
		fmt.Fprintf(&want, "%s\tdoc-%d\n", hex(text), i)
	}
	for _, workers := range []string{"1", "3"} {
		if out, errOut, code := runFP(t, "", "fingerprint", "--workers", workers, path); code != 0 || out != want.String() {
			t.Errorf("--workers %s: exit %d, stderr %q, output\n%s\nwant\n%s", workers, code, errOut, out, want.String())
		}
	}
	if out, errOut, code := runFP(t, jsonl.String(), "fingerprint", "--format", "jsonl"); code != 0 || out != want.String() {
		t.Errorf("standard input: exit %d, stderr %q, output %q", code, errOut, out)
	}

	// Without ids, by line number, after the input's name when there are
	// several; Parquet rows by row number.
	a := writeFile(t, "a.jsonl", noIDs.String())
	pq := writeParquet(t, dir, "docs.parquet", rows)
	out, errOut, code := runFP(t, "", "fingerprint", "--text-field", "body", pq, "--format", "parquet")
	if code != 0 || !strings.HasPrefix(out, hex(texts[0])+"\t1\n"+hex(texts[1])+"\t2\n") {
		t.Errorf("parquet: exit %d, stderr %q, output %q", code, errOut, out)
	}
	out, errOut, code = runFP(t, "", "fingerprint", a, path)
	if code != 0 || !strings.HasPrefix(out, hex(texts[0])+"\t"+a+":1\n"+hex(texts[1])+"\t"+a+":2\n") || !strings.HasSuffix(out, want.String()) {
		t.Errorf("two inputs: exit %d, stderr %q, output %q", code, errOut, out)
	}

	// pairs reads the output: fox and fox2 are near.
	fps := writeFile(t, "fps.tsv", want.String())
	if out, errOut, code := runFP(t, "", "pairs", "--k", "6", fps); code != 0 || !strings.Contains(out, "doc-0\tdoc-2\t") {
		t.Errorf("pairs: exit %d, stderr %q, output %q; want doc-0 and doc-2", code, errOut, out)
	}

	bad := writeFile(t, "bad.jsonl", jsonl.String()+"{\"text\": 7}\n"+noIDs.String())
	out, errOut, code = runFP(t, "", "fingerprint", bad)
	wantUsageError(t, errOut, code, "fingerprint: "+bad+":5: ")
	if out != want.String() {
		t.Errorf("the fingerprints before the bad record: %q", out)
	}
	out, errOut, code = runFP(t, "", "fingerprint", "--on-error", "skip", bad)
	if code != 0 || !strings.HasPrefix(out, want.String()) || strings.Count(out, "\n") != 2*len(texts) || !strings.Contains(errOut, "skipped "+bad+":5") {
		t.Errorf("--on-error skip: exit %d, stderr %q, output %q", code, errOut, out)
	}
	for _, args := range [][]string{{"--format", "xml"}, {"--lines", "--format", "csv"}, {"--on-error", "ignore"}} {
		_, errOut, code := runFP(t, "a b c", append([]string{"fingerprint"}, args...)...)
		wantUsageError(t, errOut, code, "--")
	}
}

// TestFingerprintNameEscaped checks that file names with a tab or a line
// break are escaped, so each output line has one tab and pairs reads it.
func TestFingerprintNameEscaped(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a\tb\\.txt"), filepath.Join(dir, "c\nd.txt")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("the same text in two files"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"fingerprint", a, b}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || strings.Count(lines[0], "\t") != 1 || strings.Count(lines[1], "\t") != 1 ||
		!strings.HasSuffix(lines[0], `a\tb\\.txt`) || !strings.HasSuffix(lines[1], `c\nd.txt`) {
		t.Fatalf("output %q", out.String())
	}
	var pairs bytes.Buffer
	if code := run([]string{"pairs", "--k", "0"}, strings.NewReader(out.String()), &pairs, &errb); code != 0 || strings.Count(pairs.String(), "\t") != 2 {
		t.Fatalf("pairs: exit %d, %q, %s", code, pairs.String(), errb.String())
	}
}

// TestFingerprintNameUnambiguous checks that two names that differ, one
// holding a backslash and a "t", the other a tab, are written differently
// (backslashes are escaped always), and that pairs, reading the lines,
// writes the names back as fingerprint wrote them.
func TestFingerprintNameUnambiguous(t *testing.T) {
	dir := t.TempDir()
	names := []string{"x\\ty", "x\ty", "back\\slash", "plain"}
	want := []string{`x\\ty`, `x\ty`, `back\\slash`, "plain"}
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("the same text in every file"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var out, errb bytes.Buffer
	if code := run(append([]string{"fingerprint"}, paths...), nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(names) {
		t.Fatalf("output %q", out.String())
	}
	for i, l := range lines {
		if _, name, _ := strings.Cut(l, "\t"); !strings.HasSuffix(name, string(filepath.Separator)+want[i]) {
			t.Errorf("name %q is written %q; want it to end in %q", names[i], name, want[i])
		}
	}
	if lines[0] == lines[1] {
		t.Errorf("%q and %q are written alike: %q", names[0], names[1], lines[0])
	}
	var pairs bytes.Buffer
	errb.Reset()
	if code := run([]string{"pairs", "--k", "0"}, strings.NewReader(out.String()), &pairs, &errb); code != 0 {
		t.Fatalf("pairs: exit %d: %s", code, errb.String())
	}
	got := strings.Split(strings.TrimSuffix(pairs.String(), "\n"), "\n")
	if len(got) != 6 {
		t.Fatalf("pairs: %q; want the 6 pairs of 4 names", pairs.String())
	}
	_, first, _ := strings.Cut(lines[0], "\t")
	_, second, _ := strings.Cut(lines[1], "\t")
	if want := first + "\t" + second + "\t0"; got[0] != want {
		t.Errorf("pairs wrote %q; want %q, the names as fingerprint wrote them", got[0], want)
	}
}

// TestTSVUnescape checks that tsvUnescape undoes tsvField and keeps a
// backslash before anything else.
func TestTSVUnescape(t *testing.T) {
	for _, s := range []string{"", "plain", "a\tb", "a\\tb", "a\\\\b\r\n", "end\\", "\\\t"} {
		if got := tsvUnescape(tsvField(s)); got != s {
			t.Errorf("tsvUnescape(tsvField(%q)) = %q", s, got)
		}
	}
	for in, want := range map[string]string{`C:\docs`: `C:\docs`, `a\`: `a\`, `a\qb`: `a\qb`} {
		if got := tsvUnescape(in); got != want {
			t.Errorf("tsvUnescape(%q) = %q, want %q", in, got, want)
		}
	}
}
