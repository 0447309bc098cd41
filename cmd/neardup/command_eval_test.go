package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/eval"
)

// evalTexts writes n generated fortunes-style texts of a few sentences.
func evalTexts(t *testing.T, n int) string {
	t.Helper()
	words := strings.Fields("river stone cloud market engine garden letter window silver number morning question village forest summer paper shadow kitchen island doctor bridge candle winter pocket music")
	var b strings.Builder
	for i := range n {
		for j := range 30 {
			b.WriteString(words[(i*7+j*j+i*j)%len(words)])
			fmt.Fprintf(&b, "%d ", (i*31+j)%97)
		}
		b.WriteString("\n%\n")
	}
	p := filepath.Join(t.TempDir(), "texts")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvalPairs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p.tsv")
	os.WriteFile(in, []byte("sentence1\tsentence2\tscore\n"+
		"the cat sat on the mat today\tthe cat sat on a mat today\t5\n"+
		"we all scream for ice cream\twe all scream for ice cream now\t4.5\n"+
		"stocks fell sharply on monday\tthe weather was mild in spring\t0.2\n"), 0o644)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"eval", "pairs", "--input", in, "--label-col", "score", "--label-threshold", "4", "--profiles", "default,classic", "--out", out}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"3 pairs (2 positive)", "| default |", "| classic |", "| jaccard |", "| policy |", "### by length"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	for _, f := range []string{"report.json", "summary.md", "pr.png", "recall-k.png", "hist-default.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

func TestEvalEditsJSON(t *testing.T) {
	in := evalTexts(t, 6)
	var stdout, stderr bytes.Buffer
	code := run([]string{"eval", "edits", "--input", in, "--json", "--profiles", "default", "--measures", "jaccard",
		"--kinds", "word-delete,case", "--rates", "0.05", "--negatives", "2", "--variant", "w1:Shingle=1",
		"--policy-variant", "wide:short-k=12,short-measure=cosine,short-min=0.7", "--policy-grid", "--grid-k", "4"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Pairs, Positives int
		Scorers          []struct {
			Name   string
			Groups map[string]map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, stdout.String())
	}
	if rep.Pairs != 6*2+6*2 || rep.Positives != 12 {
		t.Errorf("%d pairs, %d positives", rep.Pairs, rep.Positives)
	}
	var names []string
	for _, s := range rep.Scorers {
		names = append(names, s.Name)
	}
	want := "default default[w1] jaccard policy policy[wide] rule[k=4 levenshtein] rule[k=4 jaccard] rule[k=4 cosine]"
	if strings.Join(names, " ") != want {
		t.Errorf("scorers %q, want %q", strings.Join(names, " "), want)
	}
	if len(rep.Scorers[0].Groups["kind"]) != 2 {
		t.Errorf("kind groups %v", rep.Scorers[0].Groups["kind"])
	}
	// The same seed gives the same report.
	var again bytes.Buffer
	run([]string{"eval", "edits", "--input", in, "--json", "--profiles", "default", "--measures", "jaccard",
		"--kinds", "word-delete,case", "--rates", "0.05", "--negatives", "2", "--variant", "w1:Shingle=1",
		"--policy-variant", "wide:short-k=12,short-measure=cosine,short-min=0.7", "--policy-grid", "--grid-k", "4"}, nil, &again, &stderr)
	if again.String() != stdout.String() {
		t.Error("two runs with the same seed differ")
	}
}

// TestEvalEditsNegativesNote checks that the report's note gives the
// number of negatives per text used: 10 for --negatives 0, and no more than
// the other texts.
func TestEvalEditsNegativesNote(t *testing.T) {
	in := evalTexts(t, 12)
	for _, tc := range []struct {
		negs, sample, pairs int
		note                string
	}{
		{0, 0, 12 + 12*10, "10 negatives per text"},
		{5, 0, 12 + 12*5, "5 negatives per text"},
		{0, 3, 3 + 3*2, "2 negatives per text"},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"eval", "edits", "--input", in, "--json", "--profiles", "default", "--measures", "", "--policy=false",
			"--kinds", "word-delete", "--rates", "0.05", "--negatives", fmt.Sprint(tc.negs), "--sample", fmt.Sprint(tc.sample)}, nil, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		var rep struct {
			Pairs int
			Notes []string
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Pairs != tc.pairs || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], tc.note) {
			t.Errorf("--negatives %d --sample %d: %d pairs, notes %q; want %d pairs and %q", tc.negs, tc.sample, rep.Pairs, rep.Notes, tc.pairs, tc.note)
		}
	}
}

// TestEvalNoPositives checks that with no positive pairs the summary shows
// recall as undefined ("-"), not 1 next to a precision of 0.
func TestEvalNoPositives(t *testing.T) {
	in := filepath.Join(t.TempDir(), "p.tsv")
	os.WriteFile(in, []byte("sentence1\tsentence2\tlabel\n"+
		"the cat sat on the mat today\tthe cat sat on the mat today\t1\n"+
		"stocks fell sharply on monday\tthe weather was mild in spring\t0\n"), 0o644)
	var stdout, stderr bytes.Buffer
	code := run([]string{"eval", "pairs", "--input", in, "--label-threshold", "2", "--profiles", "default", "--measures", "", "--policy=false"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| default | - | 0.000 | - | 0.000 |") {
		t.Errorf("summary without positives:\n%s", stdout.String())
	}
}

func TestEvalCorpus(t *testing.T) {
	in := evalTexts(t, 30)
	var stdout, stderr bytes.Buffer
	code := run([]string{"eval", "corpus", "--input", in, "--profiles", "default", "--originals", "5", "--kinds", "word-delete", "--rates", "0.02"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"40 texts: 10 planted copies", "| dedup default |", "| cluster policy |", "| dedup engine |"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestEvalBadInput(t *testing.T) {
	in := evalTexts(t, 3)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "pairs"}, "--input is required"},
		{[]string{"eval", "pairs", "--input", "/nonexistent/x.tsv"}, "no such file"},
		{[]string{"eval", "edits", "--input", in, "--kinds", "shout"}, "unknown edit kind"},
		{[]string{"eval", "edits", "--input", in, "--rates", "1.5"}, "--rates 1.5: want each rate above 0 and at most 1"},
		{[]string{"eval", "corpus", "--input", in, "--rates", "0"}, "--rates 0: want each rate above 0"},
		{[]string{"eval", "edits", "--input", in, "--negatives", "-1"}, "--negatives -1 is negative"},
		{[]string{"eval", "edits", "--input", in, "--passage", "-5"}, "--passage -5 is negative"},
		{[]string{"eval", "edits", "--input", in, "--workers", "-1"}, "--workers -1 is negative"},
		{[]string{"eval", "edits", "--input", in, "--policy-grid", "--grid-k", "3,40"}, "--grid-k 40: want 0 to 32"},
		// A negative count of originals made Plant slice out of range: a
		// panic, not a message.
		{[]string{"eval", "corpus", "--input", in, "--originals", "-1"}, "--originals -1 is negative"},
		{[]string{"eval", "corpus", "--input", in, "--copies", "-1"}, "--copies -1 is negative"},
		{[]string{"eval", "edits", "--input", in, "--variant", "x:Shingles=2"}, "no field"},
		{[]string{"eval", "edits", "--input", in, "--variant", "x:Shingle=99"}, "Shingle"},
		{[]string{"eval", "edits", "--input", in, "--policy-variant", "x:short-k=99"}, "out of range"},
		{[]string{"eval", "edits", "--input", in, "--profiles", "nope"}, "profile"},
		{[]string{"eval", "edits", "--input", in, "--bits", "32"}, "--bits"},
		{[]string{"eval", "edits", "--input", in, "--bits", "128", "--profiles", "go-mfonda"}, `eval: --profiles go-mfonda: --bits 128: profile "go-mfonda" makes 64-bit fingerprints only`},
		{[]string{"eval", "edits", "--input", in, "--profiles", "default,nope"}, `eval: --profiles nope: no such profile; want default, classic, py-simhash, go-mfonda or nilsimsa`},
		{[]string{"eval", "pairs", "--input", in, "extra"}, `eval pairs takes no arguments, got "extra": give the input with --input FILE ("-" for standard input)`},
		{[]string{"eval", "edits", "extra", "--input", in}, `eval edits takes no arguments, got "extra"`},
		{[]string{"eval", "corpus", "--input", in, "extra"}, `eval corpus takes no arguments, got "extra"`},
		{[]string{"eval", "edits", "--input", "-", "--format", "files"}, "--input - with --format files"},
		{[]string{"eval", "pairs", "--input", "-", "--format", "clough"}, "--input - with --format clough"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestEvalBits128DefaultProfiles checks that --bits 128 without
// --profiles scores the default profiles that make 128-bit fingerprints,
// leaving out go-mfonda (64 bits only) with a note naming it.
func TestEvalBits128DefaultProfiles(t *testing.T) {
	in := evalTexts(t, 4)
	var stdout, stderr bytes.Buffer
	code := run([]string{"eval", "edits", "--input", in, "--bits", "128", "--measures", "", "--policy=false", "--kinds", "word-delete", "--rates", "0.1"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "neardup: eval: leaving out profile go-mfonda, which makes no 128-bit fingerprints (--profiles chooses the profiles)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	for _, want := range []string{"| default/128 |", "| classic/128 |", "| py-simhash/128 |", "| nilsimsa |"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "go-mfonda") {
		t.Errorf("output scores go-mfonda:\n%s", stdout.String())
	}
}

// TestEvalStdin checks that --input - reads standard input, plain or
// gzipped, JSON Lines told by its first character, named standard input
// in messages and stdin in the report, with no temporary file left.
func TestEvalStdin(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	tsv := "sentence1\tsentence2\tlabel\nthe cat sat on the mat today\tthe cat sat on a mat today\t1\nstocks fell sharply on monday\tthe weather was mild in spring\t0\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(tsv))
	zw.Close()
	jsonl := `{"sentence1": "the cat sat on the mat today", "sentence2": "the cat sat on a mat today", "label": 1}` + "\n" +
		`{"sentence1": "stocks fell sharply on monday", "sentence2": "the weather was mild in spring", "label": 0}` + "\n"
	for name, in := range map[string]string{"tsv": tsv, "gzip": gz.String(), "jsonl": "\ufeff" + jsonl} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"eval", "pairs", "--input", "-", "--profiles", "default", "--measures", "", "--policy=false"}, strings.NewReader(in), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "## stdin: 2 pairs (1 positive)") {
			t.Errorf("%s: output:\n%s", name, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"eval", "pairs", "--input", "-"}, strings.NewReader(`{"x": 1}`+"\n"), &stdout, &stderr)
	wantUsageError(t, stderr.String(), code, `standard input:1: need string fields "sentence1" and "sentence2"`)
	stderr.Reset()
	texts, _ := os.ReadFile(evalTexts(t, 4))
	code = run([]string{"eval", "edits", "--input", "-", "--profiles", "default", "--measures", "", "--policy=false", "--kinds", "word-delete", "--rates", "0.1"}, bytes.NewReader(texts), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("edits: exit %d: %s", code, stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d temporary files left in TMPDIR", len(left))
	}
}

// pairRow is a labelled pair as a Parquet row.
type pairRow struct {
	S1    string `parquet:"sentence1"`
	S2    string `parquet:"sentence2"`
	Label int64  `parquet:"label"`
}

// TestEvalPairsParquet checks that eval pairs reads labelled pairs kept as
// Parquet, from a file or standard input, into the report it makes of the
// same pairs as TSV.
func TestEvalPairsParquet(t *testing.T) {
	rows := []pairRow{
		{fox, fox2, 1},
		{fox, other, 0},
		{"the cat sat on the mat today", "the cat sat on the mat today!", 1},
		{"stocks fell sharply on monday", "the weather was mild in spring", 0},
	}
	dir := t.TempDir()
	var tsv strings.Builder
	tsv.WriteString("sentence1\tsentence2\tlabel\n")
	for _, r := range rows {
		fmt.Fprintf(&tsv, "%s\t%s\t%d\n", r.S1, r.S2, r.Label)
	}
	tsvPath := filepath.Join(dir, "p.tsv")
	os.WriteFile(tsvPath, []byte(tsv.String()), 0o644)
	pq := writeParquet(t, dir, "p.parquet", rows)
	report := func(input string, stdin []byte) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run([]string{"eval", "pairs", "--input", input, "--name", "p", "--profiles", "default", "--measures", "jaccard", "--json"}, bytes.NewReader(stdin), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", input, code, stderr.String())
		}
		return stdout.String()
	}
	want := report(tsvPath, nil)
	if !strings.Contains(want, "\"pairs\": 4,\n  \"positives\": 2,") {
		t.Fatalf("the TSV report: %s", want)
	}
	b, _ := os.ReadFile(pq)
	for name, got := range map[string]string{"file": report(pq, nil), "standard input": report("-", b)} {
		if got != want {
			t.Errorf("%s: the Parquet report differs from the TSV one:\n%s\nwant\n%s", name, got, want)
		}
	}
}

// TestSamplePairs checks that a sample of pairs keeps the texts those pairs
// refer to and no other, each pair still naming its own two texts: the
// report's count of texts is then that of the sample. Before, every text
// of the file stayed, and the report counted them all.
func TestSamplePairs(t *testing.T) {
	d := &eval.Dataset{Name: "d", Texts: []string{"t0", "t1", "t2", "t3", "t4", "t5"}}
	for i := range 5 {
		d.Pairs = append(d.Pairs, eval.Pair{A: i, B: i + 1, Positive: i%2 == 0})
	}
	s := samplePairs(d, 2, 7)
	if len(s.Pairs) != 2 {
		t.Fatalf("%d pairs sampled, want 2", len(s.Pairs))
	}
	used := map[string]bool{}
	for _, p := range s.Pairs {
		a, b := s.Texts[p.A], s.Texts[p.B]
		used[a], used[b] = true, true
		var ia int
		fmt.Sscanf(a, "t%d", &ia)
		if b != fmt.Sprintf("t%d", ia+1) || p.Positive != (ia%2 == 0) {
			t.Errorf("sampled pair %q, %q (positive %v): not a pair of the dataset", a, b, p.Positive)
		}
	}
	if len(s.Texts) != len(used) {
		t.Errorf("the sample keeps %d texts %q, want only the %d its pairs refer to", len(s.Texts), s.Texts, len(used))
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}
