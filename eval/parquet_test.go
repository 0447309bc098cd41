package eval

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/pqread"
)

// writeParquet writes rows as a new Parquet file name in dir.
func writeParquet[T any](t *testing.T, dir, name string, rows []T) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := pqread.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

// qqpRow is a row as the Quora Question Pairs are published: an index,
// two questions and a 0/1 label.
type qqpRow struct {
	Idx   int32  `parquet:"idx"`
	Q1    string `parquet:"question1"`
	Q2    string `parquet:"question2"`
	Label int64  `parquet:"label"`
}

// stsRow is a row with a score label and a list column, which the table
// leaves out.
type stsRow struct {
	S1    string   `parquet:"sentence1"`
	S2    string   `parquet:"sentence2"`
	Score float32  `parquet:"label"`
	Tags  []string `parquet:"tags,list"`
}

// TestReadPairsParquet checks that labelled pairs kept as Parquet read as
// the same pairs in CSV do: columns by name or number, integer and float
// labels, the format told by the name or, without one, by the file's
// first bytes; and that a missing column is ErrFormat.
func TestReadPairsParquet(t *testing.T) {
	dir := t.TempDir()
	qqp := writeParquet(t, dir, "qqp.parquet", []qqpRow{
		{0, "How do I learn Go?", "What is the best way to learn Go?", 1},
		{1, "How tall is Everest?", "Why is the sky blue?", 0},
		{2, "如何学习中文？", "学习中文的方法是什么？", 1},
	})
	sts := writeParquet(t, dir, "sts.parquet", []stsRow{
		{"a man plays a guitar", "a man is playing a guitar", 4.8, []string{"x"}},
		{"a dog runs", "a cat sleeps", 0.4, nil},
	})
	noName := filepath.Join(dir, "stdin-copy")
	b, _ := os.ReadFile(qqp)
	os.WriteFile(noName, b, 0o644)
	for _, tc := range []pairCase{
		{"qqp by name", qqp, PairOptions{ACol: "question1", BCol: "question2"}, []bool{true, false, true}, []string{"How do I learn Go?", "How tall is Everest?", "如何学习中文？"}},
		{"qqp by number", qqp, PairOptions{ACol: "1", BCol: "2", LabelCol: "3"}, []bool{true, false, true}, []string{"How do I learn Go?", "How tall is Everest?", "如何学习中文？"}},
		{"qqp by its bytes", noName, PairOptions{ACol: "question1", BCol: "question2"}, []bool{true, false, true}, []string{"How do I learn Go?", "How tall is Everest?", "如何学习中文？"}},
		{"sts scores", sts, PairOptions{LabelThreshold: 4, Format: FormatParquet}, []bool{true, false}, []string{"a man plays a guitar", "a dog runs"}},
	} {
		t.Run(tc.name, tc.check)
	}
	if _, err := ReadPairs(qqp, PairOptions{}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `no column "sentence1"`) {
		t.Errorf("missing column: err = %v, want ErrFormat naming sentence1", err)
	}
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, []byte("PAR1 is how it starts, but this is no Parquet file PAR1"), 0o644)
	if _, err := ReadPairs(bad, PairOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("damaged file: err = %v, want ErrFormat", err)
	}
}

// TestReadTextsParquet checks that a corpus kept as Parquet reads one text
// a row of the Field column, blank ones dropped.
func TestReadTextsParquet(t *testing.T) {
	type row struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
		Body string `parquet:"body"`
	}
	p := writeParquet(t, t.TempDir(), "c.parquet", []row{{1, "first text", "b1"}, {2, "  ", "b2"}, {3, "第三个", "b3"}})
	for _, tc := range []struct {
		o    TextOptions
		want []string
	}{
		{TextOptions{}, []string{"first text", "第三个"}},
		{TextOptions{Field: "body", Format: FormatParquet}, []string{"b1", "b2", "b3"}},
	} {
		got, err := ReadTexts(p, tc.o)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %q, %v; want %q", tc.o, got, err, tc.want)
		}
	}
	if _, err := ReadTexts(p, TextOptions{Field: "nope"}); !errors.Is(err, ErrFormat) {
		t.Errorf("missing column: err = %v, want ErrFormat", err)
	}
}
