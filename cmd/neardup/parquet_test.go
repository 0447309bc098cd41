package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/internal/pqread"
)

// pqDoc is a row of the Parquet test files: an id, a text that may be
// null, and columns dedup must write back as they were.
type pqDoc struct {
	ID   string   `parquet:"id"`
	Text *string  `parquet:"text,optional"`
	N    int64    `parquet:"n"`
	Tags []string `parquet:"tags,list"`
}

// pqIntID is a row whose ids are numbers.
type pqIntID struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
}

// pqIntID32 is pqIntID with ids of 32 bits: another schema.
type pqIntID32 struct {
	ID   int32  `parquet:"id"`
	Text string `parquet:"text"`
}

// pqNoID is a row without an id column; Body holds its text.
type pqNoID struct {
	Body string `parquet:"body"`
	N    int32  `parquet:"n"`
}

// writeParquet writes rows to a new file name in dir and returns its path.
func writeParquet[T any](t *testing.T, dir, name string, rows []T) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := pqread.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

// readParquetRows reads back the rows of a Parquet file dedup wrote.
func readParquetRows[T any](t *testing.T, b []byte) []T {
	t.Helper()
	r := parquet.NewGenericReader[T](bytes.NewReader(b))
	defer r.Close()
	rows := make([]T, r.NumRows())
	n, err := r.Read(rows)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("reading the output back: %v", err)
	}
	return rows[:n]
}

// reportPairs returns the "id>duplicate_of" pairs of a --report file.
func reportPairs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for l := range strings.Lines(string(b)) {
		var r dupReport
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r.ID+">"+r.DuplicateOf)
	}
	return got
}

// TestDedupParquet checks that dedup reads a Parquet file's rows and
// writes the rows it keeps as a Parquet file of the same schema, every
// column as it was; that a null text is a malformed row named by its
// number; and that ids come from the id column, numbers or strings, or
// are row numbers.
func TestDedupParquet(t *testing.T) {
	dir := t.TempDir()
	s := func(x string) *string { return &x }
	in := writeParquet(t, dir, "in.parquet", []pqDoc{
		{"a", s(fox), 1, []string{"x", "y"}},
		{"b", s(fox2), 2, nil},
		{"c", s(other), 3, []string{"z"}},
		{"d", nil, 4, nil},
	})
	rep := filepath.Join(dir, "rep.jsonl")
	dups := filepath.Join(dir, "dups.parquet")
	var out, errb bytes.Buffer
	code := run([]string{"dedup", "--on-error", "skip", "--report", rep, "--duplicates", dups, in}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(errb.String(), in+`:4: text column "text" is null`) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	got := readParquetRows[pqDoc](t, out.Bytes())
	if len(got) != 2 || got[0].ID != "a" || *got[0].Text != fox || got[0].N != 1 || strings.Join(got[0].Tags, ",") != "x,y" ||
		got[1].ID != "c" || *got[1].Text != other || got[1].N != 3 || strings.Join(got[1].Tags, ",") != "z" {
		t.Errorf("rows written: %+v", got)
	}
	if p := reportPairs(t, rep); strings.Join(p, " ") != "b>a" {
		t.Errorf("report %v, want b>a", p)
	}
	// The duplicates are a Parquet file of the input's schema too.
	b, err := os.ReadFile(dups)
	if err != nil {
		t.Fatal(err)
	}
	if got := readParquetRows[pqDoc](t, b); len(got) != 1 || got[0].ID != "b" || *got[0].Text != fox2 || got[0].N != 2 {
		t.Errorf("rows of the duplicates file: %+v", got)
	}
	// Stopped by the null text, the output still ends as a Parquet file
	// does, with the rows kept before.
	out.Reset()
	errb.Reset()
	if code := run([]string{"dedup", in}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "the 2 unique documents before it were written") {
		t.Fatalf("--on-error fail: exit %d, stderr %q", code, errb.String())
	}
	if got := readParquetRows[pqDoc](t, out.Bytes()); len(got) != 2 || got[1].ID != "c" {
		t.Errorf("rows written before the null text: %+v", got)
	}

	// Number ids, and no id column at all (--text-field body).
	ints := writeParquet(t, dir, "ints.parquet", []pqIntID{{7, fox}, {9, fox2}})
	noID := writeParquet(t, dir, "noid.parquet", []pqNoID{{other, 1}, {fox, 2}, {fox2, 3}})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{ints}, "9>7"},
		{[]string{"--text-field", "body", noID}, "3>2"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(append([]string{"dedup", "--report", rep}, c.args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errb.String())
		}
		if p := reportPairs(t, rep); strings.Join(p, " ") != c.want {
			t.Errorf("%v: report %v, want %s", c.args, p, c.want)
		}
	}
	if got := readParquetRows[pqNoID](t, out.Bytes()); len(got) != 2 || got[0].Body != other || got[1].N != 2 {
		t.Errorf("rows written without an id column: %+v", got)
	}

	// Two inputs of one schema make one file; ids made of row numbers
	// name their file.
	in2 := writeParquet(t, dir, "in2.parquet", []pqNoID{{"Completely different words about gardening and tomatoes in spring.", 4}})
	out.Reset()
	if code := run([]string{"dedup", "--text-field", "body", noID, in2}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("two inputs: exit %d, stderr %q", code, errb.String())
	}
	if got := readParquetRows[pqNoID](t, out.Bytes()); len(got) != 3 || got[2].N != 4 {
		t.Errorf("rows written from two inputs: %+v", got)
	}

	// A run that keeps no row still writes a Parquet file, of no rows.
	empty := writeParquet(t, dir, "empty.parquet", []pqDoc{{"e", nil, 5, nil}})
	out.Reset()
	if code := run([]string{"dedup", "--on-error", "skip", empty}, strings.NewReader(""), &out, &errb); code != 0 || out.Len() == 0 {
		t.Fatalf("no row kept: exit %d, %d bytes written, stderr %q", code, out.Len(), errb.String())
	}
	if got := readParquetRows[pqDoc](t, out.Bytes()); len(got) != 0 {
		t.Errorf("no row kept, rows written: %+v", got)
	}

	// cluster reads Parquet too.
	out.Reset()
	if code := run([]string{"cluster", "--on-error", "skip", in}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), `"members":["a","b"]`) {
		t.Errorf("cluster: exit %d, output %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestDedupParquetSchemaDamaged checks that an input whose schema can be
// read but not written back (an integer column whose bit width a damaged
// byte made 185) stops dedup before any row is decided, naming the file,
// with exit status 2. Before, the Parquet writer panicked and dedup died
// writing its output.
func TestDedupParquetSchemaDamaged(t *testing.T) {
	dir := t.TempDir()
	s := func(x string) *string { return &x }
	good, err := os.ReadFile(writeParquet(t, dir, "good.parquet", []pqDoc{{"a", s(fox), 1, nil}, {"b", s(other), 2, nil}}))
	if err != nil {
		t.Fatal(err)
	}
	// The footer's IntType of column n: bitWidth 64 (an i8, field 1),
	// isSigned true (field 2).
	at := bytes.LastIndex(good, []byte{0x13, 0x40, 0x11})
	if at < 0 {
		t.Fatal("no IntType(64, signed) in the file's footer for the test to damage")
	}
	bad := bytes.Clone(good)
	bad[at+1] = 0xb9
	path := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"dedup", "--on-error", "skip", path}, strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), path+": damaged: its schema cannot be written back") || strings.Contains(errb.String(), "panic") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming the file and its schema", code, errb.String())
	}
}

// TestDedupParquetErrors checks the messages of Parquet inputs dedup
// cannot read or write, and that it writes nothing then.
func TestDedupParquetErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeParquet(t, dir, "in.parquet", []pqIntID{{1, fox}})
	noID := writeParquet(t, dir, "noid.parquet", []pqNoID{{fox, 1}})
	notPQ := writeDedupFile(t, dir, "bad.parquet", "{\"text\":\"not parquet\"}\n")
	jsonl := writeDedupFile(t, dir, "in.jsonl", "{\"text\":\"x\"}\n")
	other := writeParquet(t, dir, "other.parquet", []pqIntID32{{1, fox}})
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{notPQ}, notPQ + ": not a Parquet file that can be read"},
		{[]string{noID}, noID + `: the Parquet schema has no column "text" (see --text-field)`},
		{[]string{"--text-field", "id", in}, in + `: column "id" holds INT64 values, not strings`},
		{[]string{"--format", "parquet", "-"}, "--format parquet reads files, not standard input"},
		{[]string{in, jsonl}, "Parquet inputs with inputs of other formats"},
		{[]string{"--db", filepath.Join(dir, "db"), in}, "--db with Parquet inputs"},
		{[]string{in, other}, other + ": the Parquet schema differs from the one of " + in},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"dedup"}, tc.args...), strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.msg)
		}
	}
}

// TestDedupParquetDamaged checks that a Parquet file with bytes damaged
// anywhere stops dedup with a message naming it, or is read, but never
// ends the process otherwise.
func TestDedupParquetDamaged(t *testing.T) {
	dir := t.TempDir()
	var rows []pqDoc
	for i := range 300 {
		text := fmt.Sprintf("document %d of a file that gets damaged, with words %x", i, i*7919)
		rows = append(rows, pqDoc{ID: fmt.Sprint(i), Text: &text, N: int64(i), Tags: []string{"t"}})
	}
	good, err := os.ReadFile(writeParquet(t, dir, "good.parquet", rows))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		b := bytes.Clone(good)
		for range 1 + trial%4 {
			b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
		}
		if trial%5 == 0 {
			b = b[:r.IntN(len(b))]
		}
		path := filepath.Join(dir, fmt.Sprintf("bad%d.parquet", trial))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run([]string{"dedup", "--on-error", "skip", path}, strings.NewReader(""), &out, &errb)
		if code != 0 && (code != 2 || !strings.Contains(errb.String(), path)) {
			t.Errorf("trial %d: exit %d, stderr %q", trial, code, errb.String())
		}
	}
}
