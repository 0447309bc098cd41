package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// writeDedupFile writes content to name under dir and returns its path.
func writeDedupFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	fox   = "The quick brown fox jumps over the lazy dog near the river bank today."
	fox2  = "the quick brown fox jumps over the lazy dog near the river bank today!"
	other = "Stock markets fell sharply on Monday as investors worried about rates."
)

// TestDedup checks the output, the report and the duplicates file of each
// input format.
func TestDedup(t *testing.T) {
	dir := t.TempDir()
	jsonl := writeDedupFile(t, dir, "in.jsonl", fmt.Sprintf(
		"{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n\n{\"text\":%q}\n{\"id\":7,\"text\":\"\"}\n{\"id\":\"e\",\"text\":\" \"}\n", fox, fox2, other))
	csvFile := writeDedupFile(t, dir, "in.csv", fmt.Sprintf("id,text,n\n1,%q,x\n2,%q,y\n3,%q,z\n", fox, fox2, other))
	lines := writeDedupFile(t, dir, "in.txt", fox+"\n"+other+"\n"+fox2+"\n")
	writeDedupFile(t, dir, "tree/a.txt", fox)
	writeDedupFile(t, dir, "tree/sub/b.txt", fox2)
	writeDedupFile(t, dir, "tree/c.txt", other)
	tests := []struct {
		name    string
		args    []string
		want    string
		reports []string // "id>duplicate_of"
		dups    string   // the --duplicates file
	}{
		{"jsonl", []string{jsonl}, fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"text\":%q}\n{\"id\":7,\"text\":\"\"}\n", fox, other), []string{"b>a", "e>7"},
			fmt.Sprintf("{\"id\":\"b\",\"text\":%q}\n{\"id\":\"e\",\"text\":\" \"}\n", fox2)},
		{"csv", []string{csvFile}, fmt.Sprintf("id,text,n\n1,%s,x\n3,%s,z\n", fox, other), []string{"2>1"}, fmt.Sprintf("id,text,n\n2,%s,y\n", fox2)},
		{"lines", []string{"--lines", lines}, fox + "\n" + other + "\n", []string{"3>1"}, fox2 + "\n"},
		{"dir", []string{filepath.Join(dir, "tree")}, "a.txt\nc.txt\n", []string{"sub/b.txt>a.txt"}, "sub/b.txt\n"},
		{"custom fields", []string{"--id-field", "n", "--text-field", "t"}, "", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := filepath.Join(t.TempDir(), "rep.jsonl")
			dups := filepath.Join(t.TempDir(), "dups")
			var stdin = strings.NewReader("")
			if tc.name == "custom fields" {
				stdin = strings.NewReader(fmt.Sprintf("{\"n\":\"x\",\"t\":%q}\n{\"n\":\"y\",\"t\":%q}\n", fox, fox2))
				tc.want = fmt.Sprintf("{\"n\":\"x\",\"t\":%q}\n", fox)
				tc.reports = []string{"y>x"}
				tc.dups = fmt.Sprintf("{\"n\":\"y\",\"t\":%q}\n", fox2)
			}
			var out, errb bytes.Buffer
			if code := run(append([]string{"dedup", "--report", rep, "--duplicates", dups}, tc.args...), stdin, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if out.String() != tc.want {
				t.Errorf("output:\n%s\nwant:\n%s", out.String(), tc.want)
			}
			if b, err := os.ReadFile(dups); err != nil || string(b) != tc.dups {
				t.Errorf("duplicates file:\n%s\nwant:\n%s (%v)", b, tc.dups, err)
			}
			b, err := os.ReadFile(rep)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l == "" {
					continue
				}
				var r dupReport
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatal(err)
				}
				got = append(got, r.ID+">"+r.DuplicateOf)
			}
			if strings.Join(got, " ") != strings.Join(tc.reports, " ") {
				t.Errorf("report %v, want %v", got, tc.reports)
			}
		})
	}
}

// TestDedupBadInput checks the exit status, output and message of bad
// input and flags, with --on-error fail and skip.
func TestDedupBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeDedupFile(t, dir, "bad.jsonl", fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":\n{\"id\":\"c\"}\n{\"id\":\"d\",\"text\":%q}\n", fox, other))
	tests := []struct {
		args     []string
		code     int
		out      string
		inStderr string
	}{
		{[]string{bad}, 2, fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n", fox), "bad.jsonl:2: malformed JSON"},
		{[]string{"--on-error", "skip", bad}, 0, fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"d\",\"text\":%q}\n", fox, other), "bad.jsonl:3: no \"text\" field"},
		{[]string{"--on-error", "maybe", bad}, 2, "", "--on-error"},
		{[]string{filepath.Join(dir, "missing.jsonl")}, 2, "", "no such file"},
		{[]string{"--max-line", "20", bad}, 2, "", "bad.jsonl:1: line of"},
		{[]string{"--profile", "bogus", bad}, 2, "", `--profile "bogus": no such profile; want default, classic, py-simhash or go-mfonda`},
		{[]string{"--profile", "nilsimsa", bad}, 2, "", `--profile "nilsimsa"`},
		{[]string{"--profile", "go-mfonda", "--bits", "128", bad}, 2, "", `--bits 128: profile "go-mfonda" makes 64-bit fingerprints only`},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"dedup"}, tc.args...), strings.NewReader(""), &out, &errb)
		if code != tc.code || out.String() != tc.out || !strings.Contains(errb.String(), tc.inStderr) {
			t.Errorf("%v: exit %d, out %q, stderr %q", tc.args, code, out.String(), errb.String())
		}
	}
}

// TestDedupDB checks that --db remembers documents across runs.
func TestDedupDB(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	line := func(id, text string) string { return fmt.Sprintf("{\"id\":%q,\"text\":%q}\n", id, text) }
	for i, tc := range []struct{ in, want string }{
		{line("1", fox), line("1", fox)},
		{line("2", fox2) + line("3", other), line("3", other)},
		{line("3", other) + line("4", other), ""}, // 3 is stored already, 4 duplicates it
	} {
		var out, errb bytes.Buffer
		if code := run([]string{"dedup", "--db", db}, strings.NewReader(tc.in), &out, &errb); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, errb.String())
		}
		if out.String() != tc.want {
			t.Errorf("run %d: output %q, want %q", i, out.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"dedup", "--db", db}, strings.NewReader(line("1", other)), &out, &errb); code != 2 || !strings.Contains(errb.String(), "id already stored with another text") {
		t.Errorf("id reused with another text: exit %d, %s", code, errb.String())
	}
	// Another profile over the same store: refused, in one line that
	// names both and the package once.
	out.Reset()
	errb.Reset()
	code := run([]string{"dedup", "--db", db, "--profile", "classic"}, strings.NewReader(line("5", fox)), &out, &errb)
	want := `by profile "default" at 64 bits, the engine's are by profile "classic" at 64 bits`
	if msg := errb.String(); code != 1 || out.Len() != 0 || !strings.Contains(msg, want) || strings.Count(msg, "neardup:") != 1 || strings.Count(msg, "\n") != 1 {
		t.Errorf("another profile: exit %d, stdout %q, stderr %q", code, out.String(), msg)
	}
}

// TestFastLineMatchesJSON checks the JSONL reading without encoding/json
// against the one with it: on every line it accepts, the same id and text
// (ids of strings, numbers and null, repeated keys, escapes, other
// members, an id field that is also the text field).
func TestFastLineMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vals := []string{`"doc-1"`, `"caf\u00e9 \"q\"\n"`, `"日本語のテキスト"`, `""`, `42`, `-1.5e3`, `true`, `null`, `[1]`, `{"a":1}`, `"\ud83d\ude00"`}
	keys := []string{"id", "text", "body", "url", `t\u0065xt`}
	accepted := 0
	for i := range 5000 {
		in := &docInput{idField: "id", textField: "text"}
		if i%7 == 0 {
			in.idField, in.textField = "body", "body"
		}
		var b strings.Builder
		b.WriteString("{")
		for j := range r.IntN(5) {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%s", keys[r.IntN(len(keys))], vals[r.IntN(len(vals))])
		}
		b.WriteString("}")
		line := []byte(strings.ReplaceAll(b.String(), `\\u0065`, `\u0065`))
		fast, ok := in.fastLine(line, "7")
		if !ok {
			continue
		}
		accepted++
		slow, err := in.jsonLine(line, "7")
		if err != nil || slow.ID != fast.ID || slow.Text != fast.Text {
			t.Fatalf("%s: fast %+v, encoding/json %+v (%v)", line, fast, slow, err)
		}
	}
	if accepted < 300 {
		t.Fatalf("only %d lines read without encoding/json", accepted)
	}
}

// dedupDocs returns n JSONL lines without ids, each with a text of random
// words that is no near-duplicate of another.
func dedupDocs(n int) []string {
	r := rand.New(rand.NewPCG(7, 8))
	words := make([]string, 5000)
	for i := range words {
		b := make([]byte, 6)
		for j := range b {
			b[j] = byte('a' + r.IntN(16))
		}
		words[i] = string(b)
	}
	lines := make([]string, n)
	for i := range lines {
		ws := make([]string, 15)
		for j := range ws {
			ws[j] = words[r.IntN(len(words))]
		}
		lines[i] = fmt.Sprintf("{\"text\":%q}\n", strings.Join(ws, " "))
	}
	return lines
}

// dedupSyncOut is a bytes.Buffer that another goroutine may read.
type dedupSyncOut struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *dedupSyncOut) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *dedupSyncOut) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fullWriter takes limit bytes, then fails as a full disk does.
type fullWriter struct {
	bytes.Buffer
	limit int
}

// Write takes what fits under the limit and fails with ENOSPC beyond.
func (w *fullWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.limit-w.Len())
	w.Buffer.Write(p[:n])
	if n < len(p) {
		return n, fmt.Errorf("write /dev/stdout: %w", syscall.ENOSPC)
	}
	return n, nil
}

// TestDedupOutputFails checks that when standard output fails in the
// middle of a batch, dedup --db exits 1 saying so, the batches before
// are written whole, and the failed batch's documents are not kept in
// the store: a rerun on the same input writes them.
func TestDedupOutputFails(t *testing.T) {
	lines := dedupDocs(dedupBatch + 1000) // the second batch is more than the 64 KiB output buffer
	input := strings.Join(lines, "")
	first := strings.Join(lines[:dedupBatch], "")
	db := filepath.Join(t.TempDir(), "db")
	out := &fullWriter{limit: len(first) + 300}
	var errb bytes.Buffer
	code := run([]string{"dedup", "--db", db}, strings.NewReader(input), out, &errb)
	msg := errb.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, msg)
	}
	if !strings.HasPrefix(out.String(), first) {
		t.Errorf("the first batch was not written whole before the failure")
	}
	for _, want := range []string{
		"neardup: dedup: writing output failed: write /dev/stdout: no space left on device",
		fmt.Sprintf("the 2048 unique documents before the batch from standard input:2049 to standard input:%d were written, every one complete", len(lines)),
		"not kept in the store, so a rerun on the same input writes them",
		"in both outputs",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q does not say %q", msg, want)
		}
	}
	var out2, errb2 bytes.Buffer
	if code := run([]string{"dedup", "--db", db}, strings.NewReader(input), &out2, &errb2); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errb2.String())
	}
	if got, want := out2.String(), strings.Join(lines[dedupBatch:], ""); got != want {
		t.Errorf("rerun wrote %d lines, want the %d of the failed batch", strings.Count(got, "\n"), len(lines)-dedupBatch)
	}

	// In memory: the same failure, with nothing said of a store.
	errb.Reset()
	out = &fullWriter{limit: 100}
	if code := run([]string{"dedup"}, strings.NewReader(input), out, &errb); code != 1 || !strings.Contains(errb.String(), "writing output failed") || strings.Contains(errb.String(), "store") {
		t.Errorf("in memory: exit %d, stderr %q", code, errb.String())
	}
}

// TestDedupCSVHeaders checks that a CSV input whose header differs from
// the first one's stops the run at its line 1 before any of its records
// is stored, and that a byte order mark does not make a header differ.
func TestDedupCSVHeaders(t *testing.T) {
	dir := t.TempDir()
	a := writeDedupFile(t, dir, "a.csv", fmt.Sprintf("id,text\n1,%q\n", fox))
	b := writeDedupFile(t, dir, "b.csv", fmt.Sprintf("id,body,text\n2,x,%q\n", other))
	db := filepath.Join(dir, "db")
	var out, errb bytes.Buffer
	code := run([]string{"dedup", "--db", db, a, b}, strings.NewReader(""), &out, &errb)
	if code != 2 || out.String() != fmt.Sprintf("id,text\n1,%s\n", fox) ||
		!strings.Contains(errb.String(), b+":1: CSV header differs from the one of "+a+", the first CSV input; dedup them separately") {
		t.Errorf("headers differ: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	// b.csv on its own: its record was not stored by the run that stopped.
	out.Reset()
	errb.Reset()
	if code := run([]string{"dedup", "--db", db, b}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != fmt.Sprintf("id,body,text\n2,x,%s\n", other) {
		t.Errorf("b.csv alone after: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestDedupCSVNoRecordKept checks that a CSV output that keeps no record
// (a rerun over a --db that has them all, a header alone) is a CSV file
// all the same, its header alone, and so is --duplicates FILE without
// duplicates.
func TestDedupCSVNoRecordKept(t *testing.T) {
	dir := t.TempDir()
	in := writeDedupFile(t, dir, "in.csv", fmt.Sprintf("id,text\n1,%q\n2,%q\n", fox, other))
	head := writeDedupFile(t, dir, "head.csv", "id,text\n")
	db, dups := filepath.Join(dir, "db"), filepath.Join(dir, "dups.csv")
	for _, tc := range []struct {
		args      []string
		out, dups string
	}{
		{[]string{"--db", db, "--duplicates", dups, in}, fmt.Sprintf("id,text\n1,%s\n2,%s\n", fox, other), "id,text\n"},
		{[]string{"--db", db, in}, "id,text\n", ""},
		{[]string{"--duplicates", dups, head}, "id,text\n", "id,text\n"},
	} {
		os.Remove(dups)
		var out, errb bytes.Buffer
		if code := run(append([]string{"dedup"}, tc.args...), strings.NewReader(""), &out, &errb); code != 0 || out.String() != tc.out {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out.String(), errb.String(), tc.out)
		}
		if b, _ := os.ReadFile(dups); string(b) != tc.dups {
			t.Errorf("%v: --duplicates %q, want %q", tc.args, b, tc.dups)
		}
	}
}

// TestDedupCSVHeaderTwice checks that a CSV header naming the text or id
// column twice is refused, naming the column and where, rather than read
// from the last one; other columns may share a name.
func TestDedupCSVHeaderTwice(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ header, msg string }{
		{"id,text,text", `CSV header names column "text" twice (columns 2 and 3)`},
		{"id,note,id,text", `CSV header names column "id" twice (columns 1 and 3)`},
		{"id,note,note,text", ""},
	} {
		path := writeDedupFile(t, dir, "in.csv", tc.header+"\n1,a,b,c\n")
		for _, cmd := range []string{"dedup", "cluster"} {
			var out, errb bytes.Buffer
			code := run([]string{cmd, "--on-error", "skip", path}, strings.NewReader(""), &out, &errb)
			if tc.msg == "" {
				if code != 0 {
					t.Errorf("%s %s: exit %d, stderr %q", cmd, tc.header, code, errb.String())
				}
				continue
			}
			wantUsageError(t, errb.String(), code, path+": "+tc.msg)
		}
	}
}

// TestDedupCSVEmptyField checks that a record of one empty field (a CSV
// of one column, an empty text) is written so that it reads back as a
// record, not as an empty line, which CSV readers skip; in the output and
// in --duplicates FILE.
func TestDedupCSVEmptyField(t *testing.T) {
	dir := t.TempDir()
	in := writeDedupFile(t, dir, "in.csv", fmt.Sprintf("text\n\"\"\n%q\n\"\"\n", fox))
	dups := filepath.Join(dir, "dups.csv")
	var out, errb bytes.Buffer
	if code := run([]string{"dedup", "--duplicates", dups, in}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "text\n\"\"\n"+fox+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if b, _ := os.ReadFile(dups); string(b) != "text\n\"\"\n" {
		t.Errorf("--duplicates %q", b)
	}
	// Read back, the output has its two records.
	back := writeDedupFile(t, dir, "out.csv", out.String())
	out.Reset()
	if code := run([]string{"fingerprint", back}, strings.NewReader(""), &out, &errb); code != 0 || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("read back: exit %d, %q", code, out.String())
	}
}

// TestDedupCSVByteOrderMark checks that a CSV input starting with a UTF-8
// byte order mark is read and that dedup writes its header without the
// mark, whichever of several inputs has it; the headers are the same.
func TestDedupCSVByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	bom := writeDedupFile(t, dir, "bom.csv", fmt.Sprintf("\ufeffid,text\n1,%q\n", fox))
	bom2 := writeDedupFile(t, dir, "bom2.csv", fmt.Sprintf("\ufeffid,text\n3,%q\n", fox2))
	c := writeDedupFile(t, dir, "c.csv", fmt.Sprintf("id,text\n2,%q\n", other))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{bom}, fmt.Sprintf("id,text\n1,%s\n", fox)},
		{[]string{bom, c}, fmt.Sprintf("id,text\n1,%s\n2,%s\n", fox, other)},
		{[]string{c, bom, bom2}, fmt.Sprintf("id,text\n2,%s\n1,%s\n", other, fox)},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"dedup"}, tc.args...), strings.NewReader(""), &out, &errb); code != 0 || out.String() != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tc.args, code, out.String(), errb.String(), tc.want)
		}
	}
}

// TestDedupCSVBadQuote checks that a record whose first field is badly
// quoted (a quote after the closing one), for which encoding/csv gives no
// field position, is malformed input named by file and line, as other
// quoting errors are, in dedup and cluster: exit 2, or skipped with
// --on-error skip.
func TestDedupCSVBadQuote(t *testing.T) {
	dir := t.TempDir()
	first := writeDedupFile(t, dir, "first.csv", "id,text\n\"x\"y,hello\n")
	after := writeDedupFile(t, dir, "after.csv", fmt.Sprintf("id,text\n1,%q\n\"x\"y,hello\n2,%q\n", fox, other))
	for _, tc := range []struct {
		args     []string
		code     int
		out      string
		inStderr string
	}{
		{[]string{"dedup", first}, 2, "id,text\n", "first.csv:2: malformed CSV: extraneous or missing \" in quoted-field"},
		{[]string{"dedup", "--on-error", "skip", first}, 0, "id,text\n", "skipped " + first + ":2: malformed CSV"},
		{[]string{"dedup", after}, 2, fmt.Sprintf("id,text\n1,%s\n", fox), "after.csv:3: malformed CSV"},
		{[]string{"dedup", "--on-error", "skip", after}, 0, fmt.Sprintf("id,text\n1,%s\n2,%s\n", fox, other), "skipped " + after + ":3: malformed CSV"},
		{[]string{"cluster", first}, 2, "", "first.csv:2: malformed CSV"},
		{[]string{"cluster", "--on-error", "skip", after}, 0, "", "skipped " + after + ":3: malformed CSV"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &out, &errb)
		stderr := errb.String()
		if code == 0 {
			stderr = noSummary(stderr) // a run that ends says how it went
		}
		if code != tc.code || out.String() != tc.out || !strings.Contains(stderr, tc.inStderr) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, one line of stderr with %q", tc.args, code, out.String(), errb.String(), tc.code, tc.out, tc.inStderr)
		}
	}
}

// TestDedupCSVOpenQuote checks that a CSV record that runs past twice
// --max-line, as one whose quote is left open runs on to the end of the
// file, stops the run at the line it starts on, whatever --on-error says,
// rather than being read into memory whole; a text over --max-line in a
// record under that is a malformed record still, which skip passes over.
func TestDedupCSVOpenQuote(t *testing.T) {
	dir := t.TempDir()
	rest := strings.Repeat("some more text\n", 1000) // past the reader's buffer
	open := writeDedupFile(t, dir, "open.csv", fmt.Sprintf("id,text\n1,%q\n2,\"%s,%s\n3,%q\n", fox, "a\nquote left open", rest, other))
	var out, errb bytes.Buffer
	code := run([]string{"dedup", "--max-line", "100", "--on-error", "skip", open}, strings.NewReader(""), &out, &errb)
	if code != 2 || out.String() != fmt.Sprintf("id,text\n1,%s\n", fox) || !strings.Contains(errb.String(), open+":3: CSV record runs past 200 bytes, twice --max-line (is a quote left open?)") {
		t.Errorf("a quote left open: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	long := writeDedupFile(t, dir, "long.csv", fmt.Sprintf("id,text\n1,%q\n2,%q\n3,%q\n", fox, strings.Repeat("x", 150), other))
	out.Reset()
	errb.Reset()
	code = run([]string{"dedup", "--max-line", "100", "--on-error", "skip", long}, strings.NewReader(""), &out, &errb)
	if code != 0 || out.String() != fmt.Sprintf("id,text\n1,%s\n3,%s\n", fox, other) || !strings.Contains(errb.String(), long+":3: text of 150 bytes is longer than --max-line 100") {
		t.Errorf("a long text: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestDedupJSONLByteOrderMark checks that a JSONL input starting with a
// UTF-8 byte order mark is read (by dedup and cluster, which share the
// reader) and that dedup writes its first line without the mark.
func TestDedupJSONLByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	first := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}", fox)
	f := writeDedupFile(t, dir, "bom.jsonl", "\ufeff"+first+"\n"+fmt.Sprintf("{\"id\":\"b\",\"text\":%q}\n", fox2))
	var out, errb bytes.Buffer
	if code := run([]string{"dedup", f}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != first+"\n" {
		t.Errorf("dedup: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"cluster", f}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), `"members":["a","b"]`) {
		t.Errorf("cluster: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestDedupUnreadableInDir checks that a file of a directory input that
// cannot be read, or a subdirectory that cannot be listed, is bad input
// named once: exit 2, or skipped with --on-error skip. The test makes
// them with paths longer than the system takes (Linux's PATH_MAX), which
// root cannot read either; as another user, also with a file of mode 0.
func TestDedupUnreadableInDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the paths too long to read are Linux's")
	}
	tree := filepath.Join(t.TempDir(), "tree")
	writeDedupFile(t, tree, "a.txt", fox)
	writeDedupFile(t, tree, "z.txt", other)
	// tree/d/ddd.../ddd... just under PATH_MAX (4096), holding a file
	// and a directory whose paths are over it.
	r, err := os.OpenRoot(tree)
	if err != nil {
		t.Fatal(err)
	}
	dirPath := tree
	for first := true; len(dirPath) < 3800; first = false {
		name := strings.Repeat("d", 200)
		if first {
			name = "d"
		}
		if err := r.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
		r2, err := r.OpenRoot(name)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r, dirPath = r2, dirPath+"/"+name
	}
	long := strings.Repeat("f", 250)
	if err := r.WriteFile(long+".txt", []byte(fox2+" different"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Close()
	badFile, badDir := dirPath+"/"+long+".txt", dirPath+"/"+long

	var out, errb bytes.Buffer
	code := run([]string{"dedup", tree}, strings.NewReader(""), &out, &errb)
	want := "neardup: dedup: " + badDir + ": cannot list: file name too long (stopped there; the 1 unique documents before it were written"
	if code != 2 || out.String() != "a.txt\n" || !strings.HasPrefix(errb.String(), want) {
		t.Errorf("--on-error fail: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"dedup", "--on-error", "skip", tree}, strings.NewReader(""), &out, &errb)
	wantErr := "neardup: dedup: skipped " + badDir + ": cannot list: file name too long\n" +
		"neardup: dedup: skipped " + badFile + ": cannot read: file name too long\n"
	if code != 0 || out.String() != "a.txt\nz.txt\n" || noSummary(errb.String()) != wantErr {
		t.Errorf("--on-error skip: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}

	if os.Geteuid() == 0 {
		return // root reads a file of mode 0
	}
	tree2 := filepath.Join(t.TempDir(), "tree")
	writeDedupFile(t, tree2, "a.txt", fox)
	c := writeDedupFile(t, tree2, "c.txt", other)
	if err := os.Chmod(c, 0); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"dedup", "--on-error", "skip", tree2}, strings.NewReader(""), &out, &errb)
	if code != 0 || out.String() != "a.txt\n" || errb.String() != "neardup: dedup: skipped "+c+": cannot read: permission denied\n" {
		t.Errorf("mode 0, --on-error skip: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestDedupStdinUnreadable checks that a standard input that cannot be
// read (here a directory) is bad input, exit 2, named once.
func TestDedupStdinUnreadable(t *testing.T) {
	d, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out, errb bytes.Buffer
	code := run([]string{"dedup"}, d, &out, &errb)
	if msg := errb.String(); code != 2 || !strings.HasPrefix(msg, "neardup: dedup: standard input:1: cannot read: is a directory (stopped there;") || strings.Contains(msg, "/dev/stdin") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
}

// TestDedupDBGeneratedIDs checks that with --db the ids dedup makes of
// line numbers carry the run's start time, so that a later run over
// another file does not collide with them, and the report says which
// run, file and line; ids the input gives are kept.
// TestDedupDBDirectories runs dedup --db over two directories that hold a
// file of the same name with other texts, as daily dumps of a crawl do:
// the second run keeps its file, under an id of its own run.
func TestDedupDBDirectories(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	for i, text := range []string{fox, other} {
		day := filepath.Join(dir, fmt.Sprint("day", i))
		if err := os.MkdirAll(day, 0o755); err != nil {
			t.Fatal(err)
		}
		writeDedupFile(t, day, "page.txt", text)
		var out, errb bytes.Buffer
		if code := run([]string{"dedup", "--db", db, day}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "page.txt\n" {
			t.Errorf("run %d: exit %d, stdout %q, stderr %q; want page.txt kept", i, code, out.String(), errb.String())
		}
	}
}

// TestDedupDBGeneratedIDs checks that with --db, ids made of line numbers
// or paths follow the run's start time.
func TestDedupDBGeneratedIDs(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	en := writeDedupFile(t, dir, "en.txt", fox+"\n")
	zh := writeDedupFile(t, dir, "zh.txt", other+"\n"+fox2+"\n")
	rep := filepath.Join(dir, "rep.jsonl")
	stamp := `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/`
	type dup struct{ id, of string } // patterns
	for _, tc := range []struct {
		inputs []string
		out    string
		dups   []dup
	}{
		{[]string{en}, fox + "\n", nil},
		{[]string{zh}, other + "\n", []dup{{stamp + "2", stamp + "1"}}},
		{[]string{zh, en}, "", []dup{
			{stamp + regexp.QuoteMeta(zh) + ":1", stamp + "1"},
			{stamp + regexp.QuoteMeta(zh) + ":2", stamp + "1"},
			{stamp + regexp.QuoteMeta(en) + ":1", stamp + "1"},
		}},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"dedup", "--lines", "--db", db, "--report", rep}, tc.inputs...), strings.NewReader(""), &out, &errb); code != 0 || out.String() != tc.out {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", tc.inputs, code, out.String(), errb.String())
		}
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		reps := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i, want := range tc.dups {
			var r dupReport
			if len(reps) != len(tc.dups) || json.Unmarshal([]byte(reps[i]), &r) != nil ||
				!regexp.MustCompile("^"+want.id+"$").MatchString(r.ID) || !regexp.MustCompile("^"+want.of+"$").MatchString(r.DuplicateOf) ||
				r.ID[:24] <= r.DuplicateOf[:24] {
				t.Errorf("%v: report %q, line %d: want id %s, duplicate of an earlier run's %s", tc.inputs, reps, i+1, want.id, want.of)
			}
		}
	}

	var out, errb bytes.Buffer
	// JSONL without ids and CSV without an id column, run after run;
	// a given id is kept.
	for _, in := range []string{
		fmt.Sprintf("{\"text\":%q}\n", fox),
		fmt.Sprintf("{\"text\":%q}\n{\"id\":\"given\",\"text\":%q}\n", other, fox2),
	} {
		out.Reset()
		errb.Reset()
		if code := run([]string{"dedup", "--db", db, "--report", rep}, strings.NewReader(in), &out, &errb); code != 0 {
			t.Errorf("JSONL %q: exit %d, stderr %q", in, code, errb.String())
		}
	}
	if b, _ := os.ReadFile(rep); !strings.Contains(string(b), `{"id":"given","duplicate_of":`) {
		t.Errorf("report %s: the given id is not kept", b)
	}
	for i, text := range []string{fox, other} {
		f := writeDedupFile(t, dir, fmt.Sprintf("t%d.csv", i), fmt.Sprintf("text\n%q\n", text))
		out.Reset()
		errb.Reset()
		if code := run([]string{"dedup", "--db", db, f}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Errorf("CSV %d: exit %d, stderr %q", i, code, errb.String())
		}
	}
}

// TestDedupDBEmptyText checks that with --db each run keeps its first
// empty text, as the help says.
func TestDedupDBEmptyText(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	for i := range 2 {
		var out, errb bytes.Buffer
		if code := run([]string{"dedup", "--lines", "--db", db}, strings.NewReader("\n"+fox+"\n \n"), &out, &errb); code != 0 || out.String() != "\n"+strings.Repeat(fox+"\n", 1-i) {
			t.Errorf("run %d: exit %d, stdout %q, stderr %q", i+1, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	run([]string{"dedup", "--help"}, strings.NewReader(""), &out, &errb)
	if help := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(help, "the first one of each run is kept (with --db, each run keeps its first one again)") {
		t.Errorf("the help does not say each run keeps its first empty text:\n%s", out.String())
	}
}

// TestDedupLongLine checks that a line longer than --max-line is
// reported with its real length, whatever its line ending, and that the
// lines after it are read.
func TestDedupLongLine(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n", ""} {
		in := strings.Repeat("x", 3_000_000) + eol
		if eol != "" {
			in += fox + "\n"
		}
		var out, errb bytes.Buffer
		code := run([]string{"dedup", "--lines", "--on-error", "skip", "--max-line", "1000000"}, strings.NewReader(in), &out, &errb)
		wantOut := fox + "\n"
		if eol == "" {
			wantOut = ""
		}
		if code != 0 || out.String() != wantOut || noSummary(errb.String()) != "neardup: dedup: skipped standard input:1: line of 3000000 bytes is longer than --max-line 1000000\n" {
			t.Errorf("end of line %q: exit %d, stdout %q, stderr %q", eol, code, out.String(), errb.String())
		}
	}
}

// TestDedupFlagConflicts checks that flags that contradict each other, or
// mean nothing together, are refused with both named.
func TestDedupFlagConflicts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"dedup", "--retention", "24h"}, "--retention needs --db"},
		{[]string{"dedup", "--retention", "0s"}, "--retention needs --db"},
		{[]string{"dedup", "--min-free", "1GiB"}, "--min-free needs --db"},
		{[]string{"dedup", "--min-free", "0"}, "--min-free needs --db"},
		{[]string{"dedup", "--db", db, "--retention", "-1h"}, "--retention -1h0m0s is negative"},
		{[]string{"dedup", "--lines", "--format", "csv"}, "--lines conflicts with --format csv"},
		{[]string{"cluster", "--lines", "--format", "jsonl"}, "--lines conflicts with --format jsonl"},
		{[]string{"dedup", "--long-min", "1.5"}, "--long-min 1.5: want a score from 0 to 1"},
		{[]string{"cluster", "--short-min", "-0.1"}, "--short-min -0.1: want a score from 0 to 1"},
		{[]string{"dedup", "--short-k", "33"}, "--short-k 33: want 0 to 32"},
		{[]string{"dedup", "--k", "-1"}, "--k -1: want 0 to 32 bits per 64"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader(fmt.Sprintf("{\"text\":%q}\n", fox)), &out, &errb)
		wantUsageError(t, errb.String(), code, tc.msg)
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q", tc.args, out.String())
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused run created the store %s", db)
	}
}

// TestDedupInputConflicts checks the inputs dedup, cluster and idf build
// refuse before reading any: standard input twice (read once, the second
// would be nothing), --text-field or --id-field with plain text (which
// has no fields: they were ignored), and, for dedup, inputs of two formats
// (whose output mixed them: a CSV header amid JSON lines).
func TestDedupInputConflicts(t *testing.T) {
	dir := t.TempDir()
	jsonl := writeDedupFile(t, dir, "in.jsonl", fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n", fox))
	csvFile := writeDedupFile(t, dir, "in.csv", fmt.Sprintf("id,text\n1,%s\n", other))
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"dedup", "-", "-"}, `"-" is given 2 times, but standard input can be read once`},
		{[]string{"cluster", jsonl, "-", "-"}, `"-" is given 2 times, but standard input can be read once`},
		{[]string{"idf", "build", "-o", filepath.Join(dir, "t.idf"), "-", "-"}, `idf build: "-" is given 2 times`},
		{[]string{"dedup", "--lines", "--text-field", "body"}, "--text-field with plain text (--lines)"},
		{[]string{"cluster", "--format", "lines", "--id-field", "n"}, "--id-field with plain text (--lines)"},
		{[]string{"dedup", csvFile, jsonl}, "dedup: " + csvFile + " is CSV and " + jsonl + " is JSON Lines"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, strings.NewReader(fmt.Sprintf("{\"text\":%q}\n", fox2)), &out, &errb)
		wantUsageError(t, errb.String(), code, c.msg)
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q", c.args, out.String())
		}
	}
}

// TestDedupShardsNote checks that a directory of shards with one other
// file, read one document a file, is read so with a warning naming that
// file, and a directory of plain documents without one.
func TestDedupShardsNote(t *testing.T) {
	dir := t.TempDir()
	writeDedupFile(t, dir, "shards/part-0.jsonl", fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n", fox))
	writeDedupFile(t, dir, "shards/README.md", "what the shards hold")
	writeDedupFile(t, dir, "docs/a.txt", fox)
	writeDedupFile(t, dir, "docs/b.txt", other)
	for _, c := range []struct{ dir, out, note string }{
		{"shards", "README.md\npart-0.jsonl\n", "is read one document a file (its files' paths are what is written), not as shards of records: " + filepath.Join(dir, "shards", "README.md") + " is not named as a shard is"},
		{"docs", "a.txt\nb.txt\n", ""},
	} {
		code, out, errs := dedupRun(t, "", filepath.Join(dir, c.dir))
		if code != 0 || out != c.out || strings.Contains(errs, "warning") != (c.note != "") || !strings.Contains(errs, c.note) {
			t.Errorf("%s: exit %d, output %q, stderr %q; want %q and the warning %q", c.dir, code, out, errs, c.out, c.note)
		}
	}
}

// TestDedupTimeMeta checks --time-field and --meta-field: times in RFC
// 3339 or Unix seconds and metadata are stored from JSONL and CSV inputs,
// bad ones are input errors naming the line, a time before the retention
// window is refused as expired, and the flags need --db and inputs of
// those formats.
func TestDedupTimeMeta(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	jsonl := writeDedupFile(t, dir, "in.jsonl", fmt.Sprintf(
		"{\"id\":\"a\",\"text\":%q,\"seen\":\"2026-11-30T08:00:00Z\",\"m\":{\"src\":\"feed\"}}\n"+
			"{\"id\":\"b\",\"text\":%q,\"seen\":1764489600.5,\"m\":null}\n", fox, other))
	if code, _, errs := dedupRun(t, "", "--db", db, "--time-field", "seen", "--meta-field", "m", jsonl); code != 0 {
		t.Fatalf("JSONL: exit %d: %s", code, errs)
	}
	csvFile := writeDedupFile(t, dir, "in.csv", "id,text,seen,m\nc,Completely different words about gardening and tomatoes in spring.,2026-11-29T00:00:00+01:00,\"{\"\"n\"\":1}\"\n")
	if code, _, errs := dedupRun(t, "", "--db", db, "--time-field", "seen", "--meta-field", "m", csvFile); code != 0 {
		t.Fatalf("CSV: exit %d: %s", code, errs)
	}
	out, errs, code := runFP(t, "", "export", db)
	if code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	got := map[string]string{}
	for _, l := range readExport(t, out) {
		got[l.ID] = l.Time.Format(time.RFC3339) + " " + string(l.Meta)
	}
	want := map[string]string{"a": `2026-11-30T08:00:00Z {"src":"feed"}`, "b": "2025-11-30T08:00:00Z ", "c": `2026-11-28T23:00:00Z {"n":1}`}
	if !maps.Equal(got, want) {
		t.Errorf("stored times and metadata %v, want %v", got, want)
	}

	bad := writeDedupFile(t, dir, "bad.jsonl", "{\"text\":\"first\",\"seen\":\"yesterday\"}\n{\"text\":\"second\",\"seen\":\"0001-01-01T00:00:00Z\"}\n{\"text\":\"third\",\"seen\":\"2001-01-01T00:00:00Z\"}\n")
	code, _, errs = dedupRun(t, "", "--db", filepath.Join(dir, "db2"), "--retention", "48h", "--time-field", "seen", "--on-error", "skip", bad)
	for _, w := range []string{
		bad + `:1: field "seen": "yesterday": want a time in RFC 3339`,
		bad + `:2: field "seen": "0001-01-01T00:00:00Z" is the zero time`,
		bad + `:3: document time outside the retention window`,
	} {
		if code != 0 || !strings.Contains(errs, w) {
			t.Errorf("bad times: exit %d, stderr %q; want %q", code, errs, w)
		}
	}
	badMeta := writeDedupFile(t, dir, "bad.csv", "text,m\nsome text here,{not json\n")
	if code, _, errs := dedupRun(t, "", "--db", filepath.Join(dir, "db3"), "--meta-field", "m", badMeta); code != 2 || !strings.Contains(errs, badMeta+`:2: column "m" is not JSON`) {
		t.Errorf("bad CSV metadata: exit %d, stderr %q", code, errs)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--time-field", "seen", jsonl}, "--time-field needs --db"},
		{[]string{"--db", filepath.Join(dir, "db4"), "--meta-field", "m", "--lines", jsonl}, "--meta-field reads JSON Lines and CSV inputs; " + jsonl + " is plain text"},
		{[]string{"--db", filepath.Join(dir, "db5"), "--time-field", "when", csvFile}, `CSV header has no "when" column (see --time-field)`},
	} {
		code, _, errs := dedupRun(t, "", c.args...)
		wantUsageError(t, errs, code, c.msg)
	}
}

// TestDedupSlowStream checks that documents of a stream that comes slowly
// (tail -f) are written as they come, without waiting for a batch of
// dedupBatch documents or the end of the input.
func TestDedupSlowStream(t *testing.T) {
	pr, pw := io.Pipe()
	var out, errb dedupSyncOut
	done := make(chan int)
	go func() { done <- run([]string{"dedup", "--lines"}, pr, &out, &errb) }()
	fmt.Fprintln(pw, fox)
	fmt.Fprintln(pw, other)
	deadline := time.Now().Add(20 * time.Second)
	for out.String() != fox+"\n"+other+"\n" {
		if time.Now().After(deadline) {
			t.Fatalf("output %q after 20 s with the input still open, want its two lines", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintln(pw, fox2)
	pw.Close()
	if code := <-done; code != 0 || out.String() != fox+"\n"+other+"\n" {
		t.Errorf("exit %d, output %q, stderr %q; want the two lines and the third a duplicate", code, out.String(), errb.String())
	}
}

// TestDedupSideFileClash checks that --report and --duplicates may not
// name an input (itself or through a link), a file inside an input
// directory, or each other, and that a refused run leaves the input as it
// was.
func TestDedupSideFileClash(t *testing.T) {
	dir := t.TempDir()
	content := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n", fox, fox2)
	in := writeDedupFile(t, dir, "in.jsonl", content)
	tree := filepath.Join(dir, "tree")
	writeDedupFile(t, dir, "tree/a.txt", fox)
	link, treeLink := filepath.Join(dir, "link.jsonl"), filepath.Join(dir, "treelink")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tree, treeLink); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "out.jsonl")
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"--duplicates", in, in}, "--duplicates " + in + " is an input of the run"},
		{[]string{"--report", link, in}, "--report " + link + " is an input of the run"},
		{[]string{"--report", other, "--duplicates", other, in}, "--report and --duplicates both name " + other},
		{[]string{"--duplicates", filepath.Join(treeLink, "d.txt"), tree}, "is inside the input directory " + tree},
		{[]string{"--db", filepath.Join(dir, "db"), "--report", filepath.Join(dir, "nowhere", "r.jsonl"), in}, "there is no directory " + filepath.Join(dir, "nowhere") + " to create it in"},
		{[]string{"--duplicates", tree, in}, "--duplicates " + tree + " is a directory"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"dedup"}, tc.args...), strings.NewReader(""), &out, &errb)
		wantUsageError(t, errb.String(), code, tc.msg)
		if b, err := os.ReadFile(in); err != nil || string(b) != content {
			t.Fatalf("%v: the input is now %q (%v)", tc.args, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "db")); err == nil {
		t.Error("a run refused for its report created its store")
	}
	if _, err := os.Stat(filepath.Join(tree, "d.txt")); err == nil {
		t.Error("a refused run created its duplicates file in the input directory")
	}
	// Standard output going to the file named.
	f, err := os.Create(other)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var errb0 bytes.Buffer
	code := run([]string{"dedup", "--duplicates", other, in}, strings.NewReader(""), f, &errb0)
	wantUsageError(t, errb0.String(), code, "--duplicates "+other+" is where standard output goes")
	// A file beside the input directory is no clash.
	var out, errb bytes.Buffer
	if code := run([]string{"dedup", "--duplicates", filepath.Join(dir, "treedups.txt"), tree}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Errorf("a duplicates file beside the input directory: exit %d, %s", code, errb.String())
	}
}

// TestDedupPolicyFlags checks that --short-k, --tiny-k, --tiny-length, --tiny-words,
// --short-min and --long-min change dedup's decisions as they say: a tiny
// pair 11 bits apart and one word apart is joined at the default tiny
// distance (14) and at --tiny-k 10 (its words), kept apart at --tiny-k 10
// with --tiny-words 0 or as a short pair (--tiny-length 0, the short
// distance 10) and joined again at --short-k 12, and pairs whose measure
// passes the default threshold are kept apart when the threshold is
// raised above their score.
func TestDedupPolicyFlags(t *testing.T) {
	long := strings.Repeat("Markets fell on Monday as investors weighed the central bank's next move on rates. ", 8)
	longEdited := strings.Replace(long, "Monday", "Tuesday", 1)
	tests := []struct {
		a, b string
		args []string
		dup  bool
	}{
		{"the cat sat on the mat", "the cat sat on a mat", nil, true},
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-k", "10"}, true}, // one word apart
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-k", "10", "--tiny-words", "0"}, false},
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-length", "0"}, false},
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-length", "0", "--short-k", "12"}, true},
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--short-min", "0.9"}, false},
		{fox, fox2, nil, true},
		{fox, strings.Replace(fox, "river", "lake", 1), []string{"--short-min", "0.99"}, false},
		{long, longEdited, nil, true},
		{long, longEdited, []string{"--long-min", "0.999"}, false},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		in := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n", tc.a, tc.b)
		if code := run(append([]string{"dedup"}, tc.args...), strings.NewReader(in), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errb.String())
		}
		if kept := strings.Count(out.String(), "\n"); (kept == 1) != tc.dup {
			t.Errorf("%v on %.30q and %.30q: kept %d, want a duplicate %v", tc.args, tc.a, tc.b, kept, tc.dup)
		}
	}
}

// TestDedupPlainTextHint checks that a plain text file read as JSONL fails
// at its first line with a hint to use --lines, and that a JSONL input
// with a bad line gets no such hint.
func TestDedupPlainTextHint(t *testing.T) {
	dir := t.TempDir()
	const hint = "(plain text? --lines reads one document per line)"
	tests := []struct {
		name, content string
		hint          bool
	}{
		{"en.txt", fox + "\n" + other + "\n", true},
		{"en.txt", "{\"id\":\"a\",\"text\":\n", true},
		{"notes", "\ufeff  " + fox + "\n", true},
		{"notes", "\n\n" + fox + "\n", true},
		{"in.jsonl", "{\"id\":\"a\",\"text\":\n", false},
		{"in.jsonl", "[1,2]\n", false},
		{"in.jsonl", fmt.Sprintf("{\"text\":%q}\n%s\n", fox, other), false},
	}
	for i, tc := range tests {
		p := writeDedupFile(t, filepath.Join(dir, strconv.Itoa(i)), tc.name, tc.content)
		var out, errb bytes.Buffer
		code := run([]string{"dedup", p}, strings.NewReader(""), &out, &errb)
		msg := errb.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || strings.Contains(msg, hint) != tc.hint {
			t.Errorf("%s %q: exit %d, stderr %q, want hint %t", tc.name, tc.content, code, msg, tc.hint)
		}
	}
}

// TestDedupFieldTypes checks that a JSONL text must be a string (null
// included) and an id a string of valid UTF-8 or a number, on the fast path and on
// encoding/json's, and that a number id is its decimal text.
func TestDedupFieldTypes(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`{"id":"a","text":null}`, `standard input:1: field "text" is null; want a string`},
		{`{"id":"a","text":null,"n":[1]}`, `standard input:1: field "text" is null; want a string`},
		{`{"id":{"x":1},"text":"t"}`, `standard input:1: field "id" is an object; want a string or a number`},
		{`{"id":[1],"text":"t"}`, `standard input:1: field "id" is an array; want a string or a number`},
		{`{"id":true,"text":"t"}`, `standard input:1: field "id" is a bool; want a string or a number`},
		{`{"id":false,"text":"t","n":{}}`, `standard input:1: field "id" is a bool; want a string or a number`},
		{`{"id":"a","text":中文}`, `standard input:1: malformed JSON: invalid character '中' looking for beginning of value`},
		// Read as U+FFFD, these two ids would be one.
		{"{\"id\":\"x\xff\",\"text\":\"a b c\"}\n{\"id\":\"x\xfe\",\"text\":\"d e f\"}", `standard input:1: field "id" is not valid UTF-8`},
		{"{\"id\":\"x\xff\",\"text\":\"a b c\",\"n\":[1]}", `standard input:1: field "id" is not valid UTF-8`},
		{`{"id":5,"text":"` + fox + `"}` + "\n" + `{"id":"5","text":"` + other + `"}`, `standard input:2: id already stored with another text: "5"`},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"dedup", "cluster"} {
			if cmd == "cluster" && strings.Contains(tc.msg, "already stored") {
				tc.msg = strings.Replace(tc.msg, "stored", "seen", 1)
			}
			var out, errb bytes.Buffer
			code := run([]string{cmd}, strings.NewReader(tc.in+"\n"), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q, want %q", cmd, tc.in, code, out.String(), errb.String(), tc.msg)
			}
		}
	}
	var out, errb bytes.Buffer
	run([]string{"dedup", "--help"}, strings.NewReader(""), &out, &errb)
	if help := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(help, `a number id is read as its decimal text, as written, so 5 and "5" are the same id`) {
		t.Errorf("the help does not say how a number id is read:\n%s", out.String())
	}
}

// TestDedupReportRepeat checks that the report tells the same document
// again (same id, same text: in the input, or already in the store) from
// a near-duplicate.
func TestDedupReportRepeat(t *testing.T) {
	dir := t.TempDir()
	line := func(id, text string) string { return fmt.Sprintf("{\"id\":%q,\"text\":%q}\n", id, text) }
	in := line("d1", fox) + line("d1", fox) + line("d2", fox2) + line("e", "") + line("e", "") + line("f", "")
	// report runs dedup and returns its report as "id>duplicate_of",
	// with " repeat" after a repeat.
	report := func(args ...string) string {
		t.Helper()
		rep := filepath.Join(dir, "rep.jsonl")
		var out, errb bytes.Buffer
		if code := run(append([]string{"dedup", "--report", rep}, args...), strings.NewReader(in), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("report line %q: %v", l, err)
			}
			r := fmt.Sprintf("%v>%v", m["id"], m["duplicate_of"])
			if v, ok := m["repeat"]; ok {
				r += fmt.Sprintf(" repeat=%v", v)
			}
			got = append(got, r)
		}
		return strings.Join(got, ", ")
	}
	if got, want := report(), "d1>d1 repeat=true, d2>d1, e>e repeat=true, f>e"; got != want {
		t.Errorf("report %s, want %s", got, want)
	}
	db := filepath.Join(dir, "db")
	report("--db", db)
	if got, want := report("--db", db), "d1>d1 repeat=true, d1>d1 repeat=true, d2>d1, e>e repeat=true, f>e"; got != want {
		t.Errorf("second run over the store: report %s, want %s", got, want)
	}
	var out, errb bytes.Buffer
	run([]string{"dedup", "--help"}, strings.NewReader(""), &out, &errb)
	if help := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(help, `"repeat": true when it is the same document again`) {
		t.Errorf("the help does not describe the repeat field:\n%s", out.String())
	}
}

// summaryLine matches the line that ends a dedup or cluster run on
// standard error.
var summaryLine = regexp.MustCompile(`(?m)^neardup: (dedup: \d+ documents?, \d+ unique \(written\), \d+ duplicates?( \([0-9.]+%(, \d+ of them the same documents again)?\))?(; \d+ bad lines? skipped)?|cluster: \d+ documents?, \d+ groups? of near-duplicates holding \d+ of them)\n`)

// noSummary returns stderr without the summary line of a dedup or cluster
// run, checked to be there once.
func noSummary(stderr string) string {
	if n := len(summaryLine.FindAllString(stderr, -1)); n != 1 {
		return fmt.Sprintf("%d summary lines in %q", n, stderr)
	}
	return summaryLine.ReplaceAllString(stderr, "")
}

// TestDedupSummary checks the line that ends a run: the documents
// decided, the unique ones written, the duplicates, their share and how
// many are the same documents again, and the bad lines skipped.
func TestDedupSummary(t *testing.T) {
	lines := []string{"--lines", "--max-line", "100", "--on-error", "skip"}
	jsonl := fmt.Sprintf("{\"id\":\"x\",\"text\":%q}\n{\"id\":\"x\",\"text\":%q}\n{\"id\":\"y\",\"text\":%q}\n", fox, fox, fox2)
	for _, tc := range []struct {
		args     []string
		in, want string
	}{
		{lines, fox + "\n" + fox2 + "\n" + other + "\n", "neardup: dedup: 3 documents, 2 unique (written), 1 duplicate (33.3%)\n"},
		{lines, "", "neardup: dedup: 0 documents, 0 unique (written), 0 duplicates\n"},
		{nil, jsonl, "neardup: dedup: 3 documents, 1 unique (written), 2 duplicates (66.7%, 1 of them the same documents again)\n"},
		{lines, fox + "\n" + strings.Repeat("x", 200) + "\n" + fox + "\n", "neardup: dedup: 2 documents, 1 unique (written), 1 duplicate (50.0%); 1 bad line skipped\n"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"dedup"}, tc.args...), strings.NewReader(tc.in), &out, &errb)
		if got := errb.String(); code != 0 || !strings.HasSuffix(got, tc.want) || noSummary(got) == got {
			t.Errorf("%q: exit %d, stderr %q; want it to end with %q", tc.in, code, got, tc.want)
		}
	}
}

// TestClusterSummary checks the line that ends a cluster run.
func TestClusterSummary(t *testing.T) {
	var out, errb bytes.Buffer
	in := fox + "\n" + fox2 + "\n" + other + "\n" + fox + "!\n"
	code := run([]string{"cluster", "--lines"}, strings.NewReader(in), &out, &errb)
	if want := "neardup: cluster: 4 documents, 1 group of near-duplicates holding 3 of them\n"; code != 0 || errb.String() != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out.String(), errb.String(), want)
	}
}

// TestDedupIDOfDuplicate checks that the id of a duplicate, which the
// store does not hold, is still known to the run: a later document of that
// id and another text is refused as cluster refuses it, and one of the
// same text is the same document again, in the same batch or a later one.
// Before, the first was written as a new document and the second reported
// as a plain duplicate.
func TestDedupIDOfDuplicate(t *testing.T) {
	dup := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n", fox, fox2)
	filler := idDocs("f", 0, dedupBatch) // puts what follows in the next batch
	for _, c := range []struct{ name, gap string }{{"same batch", ""}, {"next batch", filler}} {
		conflict := dup + c.gap + fmt.Sprintf("{\"id\":\"b\",\"text\":%q}\n", other)
		code, out, errs := dedupRun(t, conflict)
		if want := `id already seen with another text: "b" (stopped there`; code != 2 || !strings.Contains(errs, want) || strings.Contains(out, other) {
			t.Errorf("%s, another text: exit %d, stderr %q, output has it: %v; want exit 2 saying %q", c.name, code, errs, strings.Contains(out, other), want)
		}
		code, out, errs = dedupRun(t, conflict, "--on-error", "skip")
		if code != 0 || !strings.Contains(errs, `skipped standard input:`) || strings.Contains(out, other) {
			t.Errorf("%s, another text, --on-error skip: exit %d, stderr %q", c.name, code, errs)
		}
		rep := filepath.Join(t.TempDir(), "rep.jsonl")
		again := dup + c.gap + fmt.Sprintf("{\"id\":\"b\",\"text\":%q}\n", fox2)
		if code, _, errs := dedupRun(t, again, "--report", rep); code != 0 || !strings.Contains(errs, "1 of them the same documents again") {
			t.Errorf("%s, the same text: exit %d, stderr %q; want one repeat", c.name, code, errs)
		}
		var ofB []string // the filler's own pairs left out
		for _, p := range reportPairs(t, rep) {
			if strings.HasPrefix(p, "b>") {
				ofB = append(ofB, p)
			}
		}
		if strings.Join(ofB, " ") != "b>a b>b" {
			t.Errorf("%s, the same text: report of b %v, want b>a b>b", c.name, ofB)
		}
	}
}

// TestDedupStopsAtRefusedLine checks that a document the engine refuses
// (its id stored with another text) stops the run at its line with
// --on-error fail: the documents after it in its batch are neither
// written nor stored, so a rerun with the line mended writes them.
// Before, the rest of the batch was written and stored, and a rerun took
// those documents for repeats and wrote none of them.
func TestDedupStopsAtRefusedLine(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	if code, _, errs := dedupRun(t, fmt.Sprintf("{\"id\":\"x\",\"text\":%q}\n", fox), "--db", db); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	before := idDocs("y", 0, 3)
	after := idDocs("z", 3, 3)
	code, out, errs := dedupRun(t, before+fmt.Sprintf("{\"id\":\"x\",\"text\":%q}\n", other)+after, "--db", db)
	if code != 2 || !strings.Contains(errs, "standard input:4: id already stored with another text") || out != before {
		t.Fatalf("exit %d, stderr %q, output %q; want exit 2 at line 4 and the 3 lines before it", code, errs, out)
	}
	code, out, errs = dedupRun(t, before+fmt.Sprintf("{\"id\":\"x2\",\"text\":%q}\n", other)+after, "--db", db)
	if code != 0 || out != fmt.Sprintf("{\"id\":\"x2\",\"text\":%q}\n", other)+after {
		t.Errorf("rerun with the line mended: exit %d, stderr %q, output %q; want that line and the 3 after it", code, errs, out)
	}
}

// TestDedupSkipConflict checks the line that --on-error skip writes for an
// id seen again with another text: the package is named once, as in the
// message of --on-error fail.
func TestDedupSkipConflict(t *testing.T) {
	var out, errb bytes.Buffer
	in := fmt.Sprintf("{\"id\":\"x\",\"text\":%q}\n{\"id\":\"x\",\"text\":%q}\n", fox, other)
	code := run([]string{"dedup", "--on-error", "skip"}, strings.NewReader(in), &out, &errb)
	want := "neardup: dedup: skipped standard input:2: id already stored with another text: \"x\"\n" +
		"neardup: dedup: 1 document, 1 unique (written), 0 duplicates (0.0%); 1 bad line skipped\n"
	if code != 0 || errb.String() != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errb.String(), want)
	}
}

// TestDedupInvisibleText checks that texts of invisible characters only (a
// byte order mark, zero-width spaces), which the engine refuses as empty,
// are decided as empty texts are: the first kept, the others its
// duplicates, with no error.
func TestDedupInvisibleText(t *testing.T) {
	in := "{\"id\":\"a\",\"text\":\"\\ufeff\"}\n{\"id\":\"b\",\"text\":\"\\u200b \\u200b\"}\n{\"id\":\"c\",\"text\":\"words to keep\"}\n"
	var out, errb bytes.Buffer
	if code := run([]string{"dedup"}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[0], `"a"`) || !strings.Contains(lines[1], `"c"`) {
		t.Errorf("output %q, want a and c", out.String())
	}
}

// TestDedupMinFree checks --min-free: a margin beyond the disk's free
// space stops the run before it stores anything, naming the flag, and 0
// turns the check off. dedup had no flag for it, and a disk with less than
// the default 64 MiB free could not be used at all.
func TestDedupMinFree(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	in := "a b c\nd e f\n"
	var out, errb bytes.Buffer
	if code := run([]string{"dedup", "--lines", "--db", db, "--min-free", "1024GiB"}, strings.NewReader(in), &out, &errb); code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "--min-free sets that margin") {
		t.Fatalf("--min-free 1024GiB: exit %d, stdout %q, stderr %q; want status 1 naming --min-free", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"dedup", "--lines", "--db", db, "--min-free", "0"}, strings.NewReader(in), &out, &errb); code != 0 || out.String() != in || noSummary(errb.String()) != "" {
		t.Fatalf("--min-free 0: exit %d, stdout %q, stderr %q; want both lines and nothing said", code, out.String(), errb.String())
	}
}

// TestDedupLoneSurrogateID checks that a JSONL id holding an escaped lone
// UTF-16 surrogate is refused naming its line, on the fast path and on
// encoding/json's: both would read it as U+FFFD, and "a\ud800" and
// "a\udbff" would be one id. Before, the second line was refused as an id
// already stored with another text. A surrogate pair, and an escaped
// backslash before "ud800", are fine.
func TestDedupLoneSurrogateID(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`{"id":"a\ud800","text":"a b c"}` + "\n" + `{"id":"a\udbff","text":"d e f"}`, `standard input:1: field "id" holds \ud800, a lone UTF-16 surrogate`},
		{`{"id":"a\ud800","text":"a b c","n":[1]}`, `standard input:1: field "id" holds \ud800, a lone UTF-16 surrogate`},
		{`{"text":"a b c"}` + "\n" + `{"id":"\udc00x","text":"d e f"}`, `standard input:2: field "id" holds \udc00, a lone UTF-16 surrogate`},
		{`{"id":"\ud83d\ude00\uDBFF","text":"d e f"}`, `standard input:1: field "id" holds \uDBFF, a lone UTF-16 surrogate`},
		{`{"id":"\ud83dx","text":"d e f","n":{}}`, `standard input:1: field "id" holds \ud83d, a lone UTF-16 surrogate`},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"dedup", "cluster"} {
			var out, errb bytes.Buffer
			code := run([]string{cmd}, strings.NewReader(tc.in+"\n"), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q, want %q", cmd, tc.in, code, out.String(), errb.String(), tc.msg)
			}
		}
	}
	ok := `{"id":"\ud83d\ude00","text":"` + fox + `"}` + "\n" + `{"id":"\\ud800","text":"` + other + `"}` + "\n"
	var out, errb bytes.Buffer
	if code := run([]string{"dedup"}, strings.NewReader(ok), &out, &errb); code != 0 || out.String() != ok {
		t.Errorf("a surrogate pair and an escaped backslash: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestDedupCRLFHelp checks that the help says a JSONL line ending in CRLF
// is written with LF, as it is. Before, it said the line was written as
// is.
func TestDedupCRLFHelp(t *testing.T) {
	in := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\r\n", fox)
	var out, errb bytes.Buffer
	if code := run([]string{"dedup"}, strings.NewReader(in), &out, &errb); code != 0 || out.String() != strings.TrimSuffix(in, "\r\n")+"\n" {
		t.Fatalf("CRLF line: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	run([]string{"dedup", "--help"}, strings.NewReader(""), &out, &errb)
	if help := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(help, "Output: the line as is, but for its line end: a line ending in CRLF is written with LF") {
		t.Errorf("the help does not say a CRLF line end is written as LF:\n%s", out.String())
	}
}

// TestDedupBatchBytes checks that a batch ends once its texts and lines
// reach 64 MiB (dedupBatchBytes), however few its documents, and that the
// output keeps the input's order. Before, 130 lines of 512 KiB (1 MiB a
// document, with its text) made one batch (a batch of long lines took
// gigabytes); now they make three, of 64, 64 and 2.
func TestDedupBatchBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("dedups 65 MiB")
	}
	const docs, size = 130, 512 << 10 // 65 MiB in all
	var b strings.Builder
	var want []string
	for i := range docs {
		var line strings.Builder
		for j := 0; line.Len() < size; j++ {
			line.WriteString(distinctText(i*100000 + j))
		}
		want = append(want, line.String())
		b.WriteString(line.String() + "\n")
	}
	batches := 0
	// Lines this long are read slowly under the race detector: a batch
	// must not be cut for waiting.
	wait := dedupBatchWait
	t.Cleanup(func() { afterStore, dedupBatchWait = nil, wait })
	dedupBatchWait = time.Hour
	afterStore = func() { batches++ }
	var out, errb bytes.Buffer
	code := run([]string{"dedup", "--lines"}, strings.NewReader(b.String()), &out, &errb)
	afterStore = nil
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if batches != 3 {
		t.Errorf("%d lines of %d bytes made %d batches, want 3 (64 MiB of texts and lines at most a batch)", docs, size, batches)
	}
	if got := strings.Join(want, "\n") + "\n"; out.String() != got {
		t.Errorf("the output (%d lines) is not the input (%d lines)", strings.Count(out.String(), "\n"), docs)
	}
}

// distinctText returns the i-th of texts of 12 words each, made of hex
// numbers, that are mostly not near-duplicates of each other.
func distinctText(i int) string {
	var b strings.Builder
	r := uint64(i+1) * 0x9e3779b97f4a7c15
	for w := range 12 {
		fmt.Fprintf(&b, "%x ", (r>>(w*5))*2654435761%1000003)
	}
	return b.String()
}
