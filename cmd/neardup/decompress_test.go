package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// compress returns b compressed in format ("gz", "zst" or "xz").
func compress(t *testing.T, format string, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	switch format {
	case "gz":
		w = gzip.NewWriter(&out)
	case "zst":
		zw, err := zstd.NewWriter(&out)
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	case "xz":
		xw, err := xz.NewWriter(&out)
		if err != nil {
			t.Fatal(err)
		}
		w = xw
	default:
		t.Fatalf("unknown format %q", format)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestCompressedInputs checks that every command that reads documents or
// fingerprints reads a gzip, zstd or xz copy of its input, from a file or
// standard input, as it reads the input itself: same output, same exit
// status.
func TestCompressedInputs(t *testing.T) {
	jsonl := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n{\"id\":\"c\",\"text\":%q}\n", fox, fox2, other)
	lines := fox + "\n" + other + "\n" + fox2 + "\n"
	csvText := fmt.Sprintf("id,text\n1,%q\n2,%q\n3,%q\n", fox, fox2, other)
	fps := "0123456789abcdef\ta\n0123456789abcdee\tb\nfedcba9876543210\tc\n"
	pairs := fmt.Sprintf("{\"a\":%q,\"b\":%q}\n{\"a\":%q,\"b\":%q}\n", fox, fox2, fox, other)
	tests := []struct {
		name    string
		file    string // the input's name, before the compression's extension
		content string
		args    []string // the input's path is appended, or replaces "@" + "X"
	}{
		{"dedup jsonl", "in.jsonl", jsonl, []string{"dedup"}},
		{"dedup csv by its inner extension", "in.csv", csvText, []string{"dedup"}},
		{"dedup lines", "in.txt", lines, []string{"dedup", "--lines"}},
		{"cluster", "in.jsonl", jsonl, []string{"cluster"}},
		{"fingerprint", "in.txt", fox, []string{"fingerprint"}},
		{"fingerprint lines", "in.txt", lines, []string{"fingerprint", "--lines"}},
		{"idf build", "in.txt", lines, []string{"idf", "build", "--lines"}},
		{"pairs", "fps.txt", fps, []string{"pairs", "--k", "3"}},
		{"compare pairs", "pairs.jsonl", pairs, []string{"compare", "--pairs"}},
		{"compare a file", "a.txt", fox, []string{"compare", fox2, "@X"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			runOn := func(name string, content []byte, stdin bool) (string, string, int) {
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, content, 0o644); err != nil {
					t.Fatal(err)
				}
				arg := path
				var in []byte
				if stdin {
					arg, in = "-", content
				}
				args := append([]string(nil), tc.args...)
				if i := len(args) - 1; args[i] == "@X" {
					args[i] = "@" + arg
				} else {
					args = append(args, arg)
				}
				var out, errb bytes.Buffer
				code := run(args, bytes.NewReader(in), &out, &errb)
				// The output may name the input.
				return strings.ReplaceAll(out.String(), path, "INPUT"), errb.String(), code
			}
			want, wantErr, wantCode := runOn(tc.file, []byte(tc.content), false)
			if wantCode != 0 || want == "" {
				t.Fatalf("plain input: exit %d, output %q, stderr %q", wantCode, want, wantErr)
			}
			for _, format := range []string{"gz", "zst", "xz"} {
				z := compress(t, format, []byte(tc.content))
				for _, stdin := range []bool{false, true} {
					if stdin && tc.file == "in.csv" {
						continue // standard input is JSON Lines unless --format csv
					}
					got, gotErr, code := runOn(tc.file+"."+format, z, stdin)
					want := want
					if stdin {
						want, _, _ = runOn(tc.file, []byte(tc.content), true)
					}
					if code != 0 || got != want {
						t.Errorf("%s (standard input %v): exit %d, stderr %q, output\n%s\nwant\n%s", format, stdin, code, gotErr, got, want)
					}
				}
			}
		})
	}
}

// TestCompressedDirectory checks that a compressed file of a directory
// input is read decompressed, under its own name, and that --max-line
// bounds its decompressed size.
func TestCompressedDirectory(t *testing.T) {
	dir := t.TempDir()
	writeDedupFile(t, dir, "a.txt", fox)
	if err := os.WriteFile(filepath.Join(dir, "b.txt.gz"), compress(t, "gz", []byte(fox2)), 0o644); err != nil {
		t.Fatal(err)
	}
	writeDedupFile(t, dir, "c.txt", other)
	var out, errb bytes.Buffer
	rep := filepath.Join(t.TempDir(), "rep.jsonl")
	if code := run([]string{"dedup", "--report", rep, dir}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "a.txt\nc.txt\n" {
		t.Fatalf("exit %d, output %q, stderr %q", code, out.String(), errb.String())
	}
	if b, err := os.ReadFile(rep); err != nil || !strings.Contains(string(b), `"id":"b.txt.gz"`) || !strings.Contains(string(b), `"duplicate_of":"a.txt"`) {
		t.Errorf("report %s (%v), want b.txt.gz a duplicate of a.txt", b, err)
	}
	// 100,000 bytes of text compress to far less than --max-line.
	big := strings.Repeat("many words again ", 100000/17)
	if err := os.WriteFile(filepath.Join(dir, "d.txt.zst"), compress(t, "zst", []byte(big)), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"dedup", "--max-line", "50000", "--on-error", "skip", dir}, strings.NewReader(""), &out, &errb)
	if code != 0 || out.String() != "a.txt\nc.txt\n" || !strings.Contains(errb.String(), "d.txt.zst: file decompressed is longer than --max-line 50000") {
		t.Errorf("exit %d, output %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestCompressedCSVCutShort checks that a compressed CSV input cut short
// stops the run at the line of the record it could not read, after the
// records before it.
func TestCompressedCSVCutShort(t *testing.T) {
	var in strings.Builder
	in.WriteString("id,text\n")
	for i := range 5000 {
		fmt.Fprintf(&in, "%d,\"text number %d, of words %d\"\n", i, i*7919%10007, i*104729%7)
	}
	z := compress(t, "gz", []byte(in.String()))
	path := writeDedupFile(t, t.TempDir(), "in.csv.gz", string(z[:len(z)*2/3]))
	var out, errb bytes.Buffer
	code := run([]string{"fingerprint", path}, strings.NewReader(""), &out, &errb)
	read := strings.Count(out.String(), "\n")
	want := fmt.Sprintf("%s:%d: cannot read: gzip data ends early", path, read+2) // after the header and the records read
	if code != 2 || read < 100 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, %d records, stderr %q; want exit 2 and %q", code, read, errb.String(), want)
	}
}

// TestCompressedCutShort checks that a compressed input cut short stops
// dedup with a message that names the file, the line and the cause, after
// writing every document before it, whole.
func TestCompressedCutShort(t *testing.T) {
	docs := dedupDocs(5000)
	in := strings.Join(docs, "")
	for _, format := range []string{"gz", "zst", "xz"} {
		t.Run(format, func(t *testing.T) {
			z := compress(t, format, []byte(in))
			path := filepath.Join(t.TempDir(), "in.jsonl."+format)
			if err := os.WriteFile(path, z[:len(z)*2/3], 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run([]string{"dedup", path}, strings.NewReader(""), &out, &errb)
			want := map[string]string{"gz": "gzip", "zst": "zstd", "xz": "xz"}[format] + " data ends early (is the file cut short?)"
			if code != 2 || !strings.Contains(errb.String(), path+":") || !strings.Contains(errb.String(), ": cannot read: "+want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errb.String(), want)
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(got) < 100 || len(got) >= len(docs) {
				t.Fatalf("%d documents written of %d", len(got), len(docs))
			}
			for i, l := range got {
				if l+"\n" != docs[i] {
					t.Fatalf("line %d written as %q, want %q", i+1, l, docs[i])
				}
			}
		})
	}
}
