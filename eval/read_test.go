package eval

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/internal/pqread"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	b := []byte(content)
	switch filepath.Ext(name) {
	case ".gz":
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		b = buf.Bytes()
	case ".zst":
		zw, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		b = zw.EncodeAll(b, nil)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadTexts(t *testing.T) {
	dir := t.TempDir()
	fortunes := filepath.Join(dir, "fortunes")
	os.Mkdir(fortunes, 0o755)
	write(t, fortunes, "a", "one\nline two\n%\nthree\n%\n")
	write(t, fortunes, "b", "four\n")
	txt := filepath.Join(dir, "txt")
	os.Mkdir(txt, 0o755)
	write(t, txt, "x.txt", "text x\n")
	write(t, txt, "y.txt", "text y")
	for _, tc := range []struct {
		name string
		path string
		o    TextOptions
		want []string
	}{
		{"fortunes dir", fortunes, TextOptions{}, []string{"one\nline two", "three", "four"}},
		{"txt dir", txt, TextOptions{}, []string{"text x", "text y"}},
		{"jsonl", write(t, dir, "t.jsonl", `{"id":1,"text":"alpha"}`+"\n\n"+`{"body":"b","text":"beta"}`), TextOptions{}, []string{"alpha", "beta"}},
		{"jsonl field", write(t, dir, "f.jsonl", `{"body":"x"}`), TextOptions{Field: "body"}, []string{"x"}},
		{"lines gz", write(t, dir, "l.txt.gz", "\ufeffa\nbb\n\nccc\n"), TextOptions{MinRunes: 2}, []string{"bb", "ccc"}},
		{"jsonl zst", write(t, dir, "z.jsonl.zst", `{"text":"alpha"}`+"\n"), TextOptions{}, []string{"alpha"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadTexts(tc.path, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := ReadTexts(write(t, dir, "bad.jsonl", "{\"text\":1}\n"), TextOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("non-string text: err = %v, want ErrFormat", err)
	}
	if _, err := ReadTexts(dir, TextOptions{Format: "xml"}); err == nil {
		t.Error("unknown format accepted")
	}
}

// pairCase is a file of labelled pairs, how to read it, and the labels
// and first texts of the pairs it holds.
type pairCase struct {
	name    string
	path    string
	o       PairOptions
	wantPos []bool
	wantA   []string
}

// check reads the pairs of tc and compares them with what it wants.
func (tc pairCase) check(t *testing.T) {
	d, err := ReadPairs(tc.path, tc.o)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Pairs) != len(tc.wantPos) {
		t.Fatalf("%d pairs, want %d", len(d.Pairs), len(tc.wantPos))
	}
	for i, p := range d.Pairs {
		if p.Positive != tc.wantPos[i] || d.Texts[p.A] != tc.wantA[i] {
			t.Errorf("pair %d = %v %q, want %v %q", i, p.Positive, d.Texts[p.A], tc.wantPos[i], tc.wantA[i])
		}
	}
}

func TestReadPairs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []pairCase{
		{"mrpc tsv with BOM and header", write(t, dir, "m.tsv", "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA \"q\" b\tc\n0\t3\t4\td\te\n"),
			PairOptions{ACol: "#1 String", BCol: "#2 String", LabelCol: "Quality"}, []bool{true, false}, []string{"A \"q\" b", "d"}},
		{"sts gz with threshold", write(t, dir, "s.tsv.gz", "split\tscore\tsentence1\tsentence2\ntrain\t4.2\ta\tb\ntrain\t3.9\tc\td\n"),
			PairOptions{LabelCol: "score", LabelThreshold: 4}, []bool{true, false}, []string{"a", "c"}},
		{"numbered columns, no header", write(t, dir, "z.data", "甲\t乙\t5\n丙\t丁\t1\n"),
			PairOptions{ACol: "0", BCol: "1", LabelCol: "2", LabelThreshold: 4}, []bool{true, false}, []string{"甲", "丙"}},
		{"csv", write(t, dir, "b.csv", "sentence1,sentence2,label\n\"x, y\",z,1\nu,v,0\n"),
			PairOptions{}, []bool{true, false}, []string{"x, y", "u"}},
		{"jsonl", write(t, dir, "p.jsonl", `{"a":"p","b":"q","y":true}`+"\n"+`{"a":"r","b":"s","y":0}`),
			PairOptions{ACol: "a", BCol: "b", LabelCol: "y"}, []bool{true, false}, []string{"p", "r"}},
	} {
		t.Run(tc.name, tc.check)
	}
	for name, content := range map[string]string{
		"nolabel.tsv": "sentence1\tsentence2\tlabel\na\tb\tyes\n",
		"short.tsv":   "sentence1\tsentence2\tlabel\na\tb\n",
		"nocol.tsv":   "s1\ts2\tlabel\na\tb\t1\n",
	} {
		if _, err := ReadPairs(write(t, dir, name, content), PairOptions{}); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
}

func TestReadClough(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "file_information.csv", "File,Task,Category\ng0_taska.txt,a,cut\ng1_taska.txt,a,non\norig_taska.txt,a,orig\n")
	write(t, dir, "orig_taska.txt", "source text")
	write(t, dir, "g0_taska.txt", "copied text")
	write(t, dir, "g1_taska.txt", "own text")
	d, err := ReadPairs(dir, PairOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Pairs) != 2 || !d.Pairs[0].Positive || d.Pairs[1].Positive || d.Texts[d.Pairs[0].A] != "source text" ||
		!slices.Equal(d.Pairs[0].Tags, []Tag{{"category", "cut"}}) {
		t.Errorf("clough pairs = %+v, texts %q", d.Pairs, d.Texts)
	}
}

// Any bytes read as pairs give pairs or an error, never a panic, and every
// pair refers to texts that exist.
func FuzzReadPairs(f *testing.F) {
	f.Add([]byte("sentence1\tsentence2\tlabel\na\tb\t1\n"), "tsv")
	f.Add([]byte("sentence1,sentence2,label\n\"x,\"\"y\",z,0\n"), "csv")
	f.Add([]byte(`{"sentence1":"a","sentence2":"b","label":1}`), "jsonl")
	type row struct {
		S1    string  `parquet:"sentence1"`
		S2    string  `parquet:"sentence2"`
		Label float64 `parquet:"label"`
	}
	seed := filepath.Join(f.TempDir(), "seed.parquet")
	if err := pqread.WriteFile(seed, []row{{"a", "b", 1}, {"c", "d", 0}}); err != nil {
		f.Fatal(err)
	}
	pq, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pq, "parquet")
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		if format != "tsv" && format != "csv" && format != "jsonl" && format != "parquet" {
			return
		}
		p := filepath.Join(t.TempDir(), "in."+format)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadPairs(p, PairOptions{})
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}
