package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/weight"
)

func TestIDFBuild(t *testing.T) {
	dir := t.TempDir()
	corpus := "the cat sat on the mat\nthe dog sat on the log\nthe cat ate the fish\n"
	path := filepath.Join(dir, "corpus.txt")
	if err := os.WriteFile(path, []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "idf.txt")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"idf", "build", "--lines", "--shingle", "1", "--out", out, path}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "3 documents") {
		t.Fatalf("stderr %q", stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := weight.ReadIDF(f)
	if err != nil {
		t.Fatal(err)
	}
	// 9 distinct words; "the" is in every line, "fish" in one.
	if tab.Docs() != 3 || tab.Len() != 9 {
		t.Fatalf("docs %d, features %d", tab.Docs(), tab.Len())
	}
	feats, _ := neardup.NewFeatures(neardup.Pipeline{Shingle: 1})
	key := func(w string) uint64 { return feats.Keys(nil, []byte(w))[0] }
	if tab.Lookup(key("the")) >= tab.Lookup(key("fish")) {
		t.Fatal("a word in every document must weigh less than a rare one")
	}

	// Whole files as documents, from standard input, to standard output.
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"idf", "build"}, strings.NewReader(corpus), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "neardup-idf 2\ndocs 1\n") || !strings.HasSuffix(stdout.String(), "\nfeatures 9\n") {
		t.Fatalf("stdout %q", stdout.String())
	}
}

func TestIDFBuildErrors(t *testing.T) {
	tests := [][]string{
		{"idf", "build", "/nonexistent/file"},
		{"idf", "build", "--min-df", "0"},
		{"idf", "build", "--cjk", "trigram"},
		{"idf", "build", "--shingle", "99"},
		{"idf", "build", "--bogus"},
	}
	for _, args := range tests {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.HasPrefix(stderr.String(), "neardup: ") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, stderr.String())
		}
	}
}

// TestIDFBuildDirectory checks that a directory is read as dir by
// default, each file a document, and that a format that reads files names
// it once in the error, not once by the command and again by the system
// call.
func TestIDFBuildDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a b c\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("a b d\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"idf", "build", dir}, nil, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "neardup-idf 2\ndocs 2\n") {
		t.Errorf("exit %d, table %q, stderr %q; want 2 documents", code, stdout.String(), stderr.String())
	}
	for _, args := range [][]string{{"idf", "build", "--lines", dir}, {"idf", "build", "--format", "file", dir}, {"idf", "build", "--format", "jsonl", dir}} {
		var stdout, stderr bytes.Buffer
		code := run(args, nil, &stdout, &stderr)
		wantUsageError(t, stderr.String(), code, "is a directory")
		if strings.Count(stderr.String(), dir) != 1 {
			t.Errorf("%v: exit %d, stderr %q, want an error naming the directory once", args, code, stderr.String())
		}
	}
}

// TestIDFBuildRecords checks that a corpus kept as JSONL, CSV, Parquet or
// WARC (compressed or not) gives the table of its texts, each record one
// document, as when each text is a file of its own; and that a bad record
// stops the run, naming where it is, or is skipped with --on-error skip.
func TestIDFBuildRecords(t *testing.T) {
	texts := []string{fox, "a text of two lines\nwhose second line is part of it", other, "的确是一个中文的句子"}
	dir := t.TempDir()
	table := func(args []string, stdin string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"idf", "build"}, args...), strings.NewReader(stdin), &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
		return stdout.String()
	}
	var files []string
	for i, text := range texts {
		p := filepath.Join(dir, fmt.Sprintf("doc%d.txt", i))
		os.WriteFile(p, []byte(text), 0o644)
		files = append(files, p)
	}
	want := table(files, "")
	if !strings.HasPrefix(want, fmt.Sprintf("neardup-idf 2\ndocs %d\n", len(texts))) {
		t.Fatalf("the table of the files: %q", want)
	}

	var jsonl, csvText, warc strings.Builder
	cw := csv.NewWriter(&csvText)
	cw.Write([]string{"id", "body"})
	var rows []pqNoID
	for i, text := range texts {
		fmt.Fprintf(&jsonl, "{\"id\":%d,\"text\":%q}\n", i, text)
		cw.Write([]string{fmt.Sprint(i), text})
		warc.WriteString(warcRecord("conversion", fmt.Sprint(i), "http://x.example/", text))
		rows = append(rows, pqNoID{Body: text})
	}
	cw.Flush()
	jsonl.WriteString("{\"id\":9,\"text\":\"  \"}\n") // blank: no document
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"jsonl", []string{write("docs.jsonl", []byte(jsonl.String()))}, ""},
		{"jsonl, zstd", []string{write("docs.jsonl.zst", compress(t, "zst", []byte(jsonl.String())))}, ""},
		{"ndjson, xz", []string{write("docs.ndjson.xz", compress(t, "xz", []byte(jsonl.String())))}, ""},
		{"jsonl, standard input", []string{"--format", "jsonl"}, jsonl.String()},
		{"jsonl, another name", []string{"--format", "jsonl", write("docs.data", []byte(jsonl.String()))}, ""},
		{"csv", []string{"--text-field", "body", write("docs.csv", []byte(csvText.String()))}, ""},
		{"parquet", []string{"--text-field", "body", writeParquet(t, dir, "docs.parquet", rows)}, ""},
		{"warc, gzip", []string{write("crawl.warc.gz", compress(t, "gz", []byte(warc.String())))}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := table(tc.args, tc.stdin); got != want {
				t.Errorf("table\n%.200s...\nwant\n%.200s...", got, want)
			}
		})
	}

	// A bad line stops the run, or is skipped.
	bad := write("bad.jsonl", []byte(jsonl.String()+"{\"id\":10,\"text\":\n"))
	var stdout, stderr bytes.Buffer
	code := run([]string{"idf", "build", bad}, nil, &stdout, &stderr)
	wantUsageError(t, stderr.String(), code, "idf build: "+bad+":6: ")
	if stdout.Len() != 0 {
		t.Errorf("a table was written: %q", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"idf", "build", "--on-error", "skip", bad}, nil, &stdout, &stderr); code != 0 || stdout.String() != want || !strings.Contains(stderr.String(), "skipped "+bad+":6") {
		t.Errorf("--on-error skip: exit %d, stderr %q, the table of the good records: %v", code, stderr.String(), stdout.String() == want)
	}
	for _, args := range [][]string{{"--format", "xml"}, {"--lines", "--format", "csv"}, {"--on-error", "ignore"}, {"--warc-status", "9xx"}} {
		stderr.Reset()
		code := run(append([]string{"idf", "build"}, args...), strings.NewReader("a b c"), &stdout, &stderr)
		wantUsageError(t, stderr.String(), code, "idf build: --")
	}
}

// TestIDFBuildBlankLines checks that blank and white-space-only lines (and
// blank files) are not documents: N is the same with and without them.
func TestIDFBuildBlankLines(t *testing.T) {
	for _, in := range []string{"a b c\n\n\n\na b d\n", "a b c\n  \t\r\n\r\na b d", "a b c\na b d\n"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"idf", "build", "--lines"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", in, code, stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), "neardup-idf 2\ndocs 2\n") || !strings.Contains(stderr.String(), "2 documents") {
			t.Errorf("%q: %q, %q; want 2 documents", in, stdout.String(), stderr.String())
		}
	}
	dir := t.TempDir()
	blank, doc := filepath.Join(dir, "blank.txt"), filepath.Join(dir, "doc.txt")
	os.WriteFile(blank, []byte(" \n\n"), 0o644)
	os.WriteFile(doc, []byte("a b c\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"idf", "build", blank, doc}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "neardup: idf build: 1 document, 3 features\n") {
		t.Errorf("a blank file and a document: exit %d, %q; want 1 document", code, stderr.String())
	}
}

// TestIDFBuildLongLine checks that with --lines a line longer than
// --max-line is a usage error naming its input and number, as fingerprint
// --lines says, not a document read into memory however long it is.
func TestIDFBuildLongLine(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := "a b c\n" + strings.Repeat("word ", 100) + "\na b d\n"
	code := run([]string{"idf", "build", "--lines", "--max-line", "100"}, strings.NewReader(in), &stdout, &stderr)
	wantUsageError(t, stderr.String(), code, "idf build: standard input: line 2 is longer than --max-line (100 bytes)")
	if stdout.Len() != 0 {
		t.Errorf("a table written: %q", stdout.String())
	}
}

// TestIDFBuildEmpty checks that a corpus without documents is refused as a
// usage error, and that --out is then left as it was.
func TestIDFBuildEmpty(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "idf.txt")
	os.WriteFile(out, []byte("old\n"), 0o644)
	for _, tc := range []struct {
		args []string
		in   string
	}{
		{[]string{"idf", "build", "--out", out}, ""},
		{[]string{"idf", "build", "--out", out}, " \n"},
		{[]string{"idf", "build", "--lines", "--out", out}, ""},
		{[]string{"idf", "build", "--lines", "--out", out}, "\n \n\r\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(tc.in), &stdout, &stderr)
		wantUsageError(t, stderr.String(), code, "no documents in standard input")
		if b, _ := os.ReadFile(out); string(b) != "old\n" || stdout.Len() != 0 {
			t.Errorf("%v on %q: --out now %q, stdout %q; want both untouched", tc.args, tc.in, b, stdout.String())
		}
	}
}

// TestIDFBuildOutWhole checks that --out is replaced only by a complete
// table: a write that fails leaves the old file and no temporary file, and
// a successful one keeps the old file's mode.
func TestIDFBuildOutWhole(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "idf.txt")
	os.WriteFile(out, []byte("old\n"), 0o600)
	err := writeFileWhole(out, failingWriterTo{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("failing write: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "old\n" {
		t.Errorf("after a failed write --out holds %q, want the old file", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("after a failed write the directory holds %d files, want the old one alone", len(ents))
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"idf", "build", "--out", out}, strings.NewReader("a b c"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced --out: %v, mode %v; want 0600 kept", err, fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("after a write the directory holds %d files, want one", len(ents))
	}
	stderr.Reset()
	code := run([]string{"idf", "build", "--out", dir}, strings.NewReader("a b c"), &stdout, &stderr)
	wantUsageError(t, stderr.String(), code, "is a directory")
}

// failingWriterTo writes half a table, then fails as a full disk does.
type failingWriterTo struct{}

func (failingWriterTo) WriteTo(w io.Writer) (int64, error) {
	n, _ := io.WriteString(w, "neardup-idf 2\ndocs 3\n")
	return int64(n), errors.New("disk full")
}

// TestIDFTruncatedTable checks that a table cut short is refused where it
// is used, naming the file and calling it truncated, while a table of the
// previous version (no trailer) is still read.
func TestIDFTruncatedTable(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "idf.txt")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"idf", "build", "--lines", "--out", full}, strings.NewReader("the cat sat\nthe dog ran\nthe fish swam\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, _ := os.ReadFile(full)
	if !bytes.HasSuffix(b, []byte("\nfeatures 7\n")) {
		t.Fatalf("the table does not end with its trailer: %q", b)
	}
	cut := filepath.Join(dir, "cut.txt")
	os.WriteFile(cut, b[:len(b)-len("features 7\n")-2], 0o644)
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"fingerprint", "--idf", cut}, strings.NewReader("the cat"), &stdout, &stderr)
	wantUsageError(t, stderr.String(), code, "--idf "+cut+": ")
	if !strings.Contains(stderr.String(), "truncated") {
		t.Errorf("stderr %q, want it to say the table looks truncated", stderr.String())
	}
	v1 := filepath.Join(dir, "v1.txt")
	old := strings.Replace(string(b[:len(b)-len("features 7\n")]), "neardup-idf 2", "neardup-idf 1", 1)
	os.WriteFile(v1, []byte(old), 0o644)
	stderr.Reset()
	if code := run([]string{"fingerprint", "--idf", v1}, strings.NewReader("the cat"), &stdout, &stderr); code != 0 {
		t.Errorf("a version 1 table: exit %d, %s", code, stderr.String())
	}
}

// TestIDFBuildStatusLine checks the status line: neardup's prefix, and
// "document" and "feature" in the singular for one.
func TestIDFBuildStatusLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", "neardup: idf build: 1 document, 1 feature\n"},
		{"a b\nc d\n", "neardup: idf build: 2 documents, 4 features\n"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"idf", "build", "--lines", "--shingle", "1"}, strings.NewReader(tc.in), &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", tc.in, code, stderr.String())
		}
		if stderr.String() != tc.want {
			t.Errorf("%q: stderr %q, want %q", tc.in, stderr.String(), tc.want)
		}
	}
}

// TestIDFBuildOutSymlink checks that --out naming a symbolic link writes
// the file the link points to, and keeps the link, whether that file
// exists (its mode is kept) or not yet (a dangling link, relative).
func TestIDFBuildOutSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	os.WriteFile(target, []byte("old\n"), 0o600)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	dangling := filepath.Join(dir, "dangling.txt")
	if err := os.Symlink("sub/new.txt", dangling); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for _, tc := range []struct{ link, target string }{{link, target}, {dangling, filepath.Join(dir, "sub", "new.txt")}} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"idf", "build", "-o", tc.link}, strings.NewReader("a b c"), &stdout, &stderr); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", tc.link, code, stderr.String())
		}
		if fi, err := os.Lstat(tc.link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("-o %s: the link is now %v (%v); want it kept", tc.link, fi.Mode(), err)
		}
		if b, err := os.ReadFile(tc.target); err != nil || !strings.HasPrefix(string(b), "neardup-idf 2\n") {
			t.Errorf("-o %s: %s holds %q (%v); want the table", tc.link, tc.target, b, err)
		}
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("the link's target has mode %v; want 0600 kept", fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("the directory holds %d entries; want the two links, the target and sub", len(ents))
	}
}
