package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestedFields checks that --text-field and --id-field a.b name field
// b of object a in JSONL (as tweets and API exports nest their texts) and
// column b of group a in Parquet, that a field named a.b itself comes
// first, and that a path that leads nowhere is a bad line naming it.
func TestNestedFields(t *testing.T) {
	dir := t.TempDir()
	var jsonl strings.Builder
	for i, text := range []string{fox, other, fox2} {
		fmt.Fprintf(&jsonl, "{\"data\":{\"id\":\"t%d\",\"text\":%q,\"lang\":\"en\"},\"meta\":{\"n\":%d}}\n", i, text, i)
	}
	in := filepath.Join(dir, "tweets.jsonl")
	os.WriteFile(in, []byte(jsonl.String()), 0o644)
	run1 := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		return out.String(), errb.String(), code
	}
	out, errOut, code := run1("dedup", "--text-field", "data.text", "--id-field", "data.id", "--report", filepath.Join(dir, "rep.jsonl"), in)
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Fatalf("dedup: exit %d, stderr %q, output %q; want the two unique lines", code, errOut, out)
	}
	if rep, _ := os.ReadFile(filepath.Join(dir, "rep.jsonl")); !strings.Contains(string(rep), `"id":"t2","duplicate_of":"t0"`) {
		t.Errorf("report %s; want t2 a duplicate of t0, by the nested ids", rep)
	}
	if out, _, code := run1("fingerprint", "--text-field", "data.text", "--id-field", "data.id", in); code != 0 || !strings.Contains(out, "\tt0\n") || !strings.Contains(out, "\tt2\n") {
		t.Errorf("fingerprint: exit %d, output %q; want names t0 to t2", code, out)
	}

	// A member named with the dot itself is the field.
	flat := filepath.Join(dir, "flat.jsonl")
	os.WriteFile(flat, fmt.Appendf(nil, "{\"data.text\":%q,\"data\":{\"text\":%q}}\n", fox, other), 0o644)
	if out, _, code := run1("fingerprint", "--text-field", "data.text", flat); code != 0 || !strings.HasPrefix(out, fingerprintHex(t, fox)) {
		t.Errorf("a member named data.text: exit %d, output %q; want the fingerprint of its text", code, out)
	}

	for _, field := range []string{"data.body", "meta.n.text", "data.text.x"} {
		_, errOut, code := run1("dedup", "--text-field", field, in)
		if code != 2 || !strings.Contains(errOut, in+":1: no \""+field+"\" field") {
			t.Errorf("--text-field %s: exit %d, stderr %q; want the bad line named", field, code, errOut)
		}
	}

	// Parquet: a column of a group.
	type meta struct {
		Text string `parquet:"text"`
		Lang string `parquet:"lang"`
	}
	type row struct {
		ID   string   `parquet:"id"`
		Meta meta     `parquet:"meta"`
		Tags []string `parquet:"tags,list"`
	}
	pq := writeParquet(t, dir, "nested.parquet", []row{{"a", meta{fox, "en"}, nil}, {"b", meta{other, "en"}, nil}, {"c", meta{fox2, "en"}, []string{"x"}}})
	out, errOut, code = run1("fingerprint", "--text-field", "meta.text", pq)
	if want := fingerprintHex(t, fox) + "\ta\n"; code != 0 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 3 {
		t.Errorf("parquet meta.text: exit %d, stderr %q, output %q; want 3 lines starting %q", code, errOut, out, want)
	}
	if _, errOut, code := run1("dedup", "--text-field", "tags", pq); code != 2 || !strings.Contains(errOut, `column "tags" is a list or a group`) {
		t.Errorf("a list column as the text: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := run1("dedup", "--text-field", "meta", pq); code != 2 || !strings.Contains(errOut, `column "meta" is a list or a group`) {
		t.Errorf("a group as the text: exit %d, stderr %q", code, errOut)
	}
}

// fingerprintHex is the default fingerprint of text in hex, as the
// fingerprint command prints it.
func fingerprintHex(t *testing.T, text string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"fingerprint"}, strings.NewReader(text), &out, &errb); code != 0 {
		t.Fatalf("fingerprint: exit %d, %s", code, errb.String())
	}
	hex, _, _ := strings.Cut(out.String(), "\t")
	return hex
}

// TestShardDirectory checks that a directory whose files are all shards
// of a record format (hidden ones aside: Spark's _SUCCESS and .crc files)
// is read as those files, in name order, by dedup, fingerprint and idf
// build; and that one holding other files too is read one document a
// file, as before.
func TestShardDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	lines := []string{
		fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n", fox),
		fmt.Sprintf("{\"id\":\"b\",\"text\":%q}\n", other),
		fmt.Sprintf("{\"id\":\"c\",\"text\":%q}\n", fox2),
	}
	os.WriteFile(filepath.Join(dir, "part-0.jsonl.zst"), compress(t, "zst", []byte(lines[0]+lines[1])), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "part-1.json"), []byte(lines[2]), 0o644)
	os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ".part-0.jsonl.zst.crc"), []byte("\x00\x01"), 0o644)
	run1 := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		return out.String(), errb.String(), code
	}
	if out, errOut, code := run1("dedup", dir); code != 0 || out != lines[0]+lines[1] || !strings.Contains(errOut, "3 documents, 2 unique (written), 1 duplicate") {
		t.Errorf("dedup: exit %d, stderr %q, output %q; want a and b, c a duplicate", code, errOut, out)
	}
	if out, _, code := run1("fingerprint", dir); code != 0 || !strings.HasSuffix(out, "\tc\n") || strings.Count(out, "\n") != 3 {
		t.Errorf("fingerprint: exit %d, output %q; want a, b and c", code, out)
	}
	if out, _, code := run1("idf", "build", dir); code != 0 || !strings.HasPrefix(out, "neardup-idf 2\ndocs 3\n") {
		t.Errorf("idf build: exit %d, table %.40q; want 3 documents", code, out)
	}
	if out, _, code := run1("dedup", "--format", "dir", dir); code != 0 || !strings.Contains(out, ".part-0.jsonl.zst.crc\npart-0.jsonl.zst\n") {
		t.Errorf("--format dir: exit %d, output %q; want each file a document", code, out)
	}
	// JSON documents of several lines, one a file (an API's dump): each
	// file a document.
	docs := t.TempDir()
	for i, text := range []string{fox, other} {
		os.WriteFile(filepath.Join(docs, fmt.Sprintf("doc%d.json", i)), fmt.Appendf(nil, "{\n  \"id\": %d,\n  \"text\": %q\n}\n", i, text), 0o644)
	}
	if out, errOut, code := run1("dedup", docs); code != 0 || out != "doc0.json\ndoc1.json\n" {
		t.Errorf("a directory of JSON documents: exit %d, stderr %q, output %q; want each file a document", code, errOut, out)
	}

	os.WriteFile(filepath.Join(dir, "README.md"), []byte("How the shards were made."), 0o644)
	if out, _, code := run1("dedup", dir); code != 0 || !strings.Contains(out, "README.md\n") || !strings.Contains(out, "part-0.jsonl.zst\n") {
		t.Errorf("with a README: exit %d, output %q; want each file a document", code, out)
	}
}
