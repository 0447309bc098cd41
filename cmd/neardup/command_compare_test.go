package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

func TestCompareCommand(t *testing.T) {
	out, errOut, code := runFP(t, "", "compare", "--profile", "go-mfonda", "this is a test phrase", "this is a test phrass")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errOut)
	}
	for _, want := range []string{"go-mfonda (64 bits)", "8c3a5f7e9ecb3f35", "8c3a5f7e9ecb3f21", "distance           2\n",
		"similarity         0.9688\n", "jaccard", "cosine", "levenshtein_ratio  0.9524\n", "duplicate          true\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// --json, a file argument and standard input give the same numbers.
	file := writeFile(t, "a.txt", "This is a test string for testing")
	out, errOut, code = runFP(t, "This is a test string for testing also!", "compare", "--json", "--profile", "classic", "--bits", "128", "@"+file, "@-")
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil || code != 0 {
		t.Fatalf("--json: %v, status %d, stderr %q, output %q", err, code, errOut, out)
	}
	// Short texts: the default policy allows 20 bits at 128 and confirms
	// with the Levenshtein ratio (0.85 >= 0.8).
	if c.Distance != 14 || c.Bits != 128 || c.Similarity != 1-14.0/128 || c.Profile != "classic" || !c.Duplicate {
		t.Errorf("--json = %+v, want distance 14 of 128 bits, a duplicate by the short-text rule", c)
	}
	if c.Jaccard <= 0 || c.Jaccard >= 1 || c.Cosine <= 0 || c.Cosine >= 1 || c.LevenshteinRatio <= 0.8 || c.LevenshteinRatio >= 1 {
		t.Errorf("--json measures out of range: %+v", c)
	}
}

// TestCompareWhy checks the table's line that says which rule decided a
// pair and by what: the distance bound, or the rule's measure against its
// threshold.
func TestCompareWhy(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		// One word apart, but 11 bits: within the tiny rule's 14, beyond
		// the short rule's 10. Their ratio would pass: the line says which
		// flag lets them be compared (TestComparePolicyFlags checks that
		// it does).
		{[]string{"the cat sat on the mat", "the cat sat on a mat"}, "why                tiny rule (the shorter text under 64 characters, the longer under 80): within its 14 bits, and the Levenshtein ratio 0.8636 is at least 0.8\n"},
		{[]string{"--tiny-length", "0", "the cat sat on the mat", "the cat sat on a mat"}, "why                short rule (the shorter text under 500 characters, the longer under 625): 11 bits apart, more than its 10, so the texts are not compared (their Levenshtein ratio 0.8636 would pass: --short-k 11 calls them duplicates)\n"},
		{[]string{"--tiny-length", "0", "--bits", "128", "the cat sat on the mat", "the cat sat on a mat"}, "more than its 20, so the texts are not compared"},
		// One typo, 15 bits: beyond the tiny rule's 14, but one word
		// apart; without --tiny-words, the distance decides.
		{[]string{"A girl is playing a flute.", "A gvrl is playing a flute."}, "why                tiny rule (the shorter text under 64 characters, the longer under 80): 15 bits apart, more than its 14, but one word apart (of 12 words at most, --tiny-words), and the Levenshtein ratio 0.9600 is at least 0.8\n"},
		{[]string{"--tiny-words", "0", "A girl is playing a flute.", "A gvrl is playing a flute."}, "why                tiny rule (the shorter text under 64 characters, the longer under 80): 15 bits apart, more than its 14, so the texts are not compared (their Levenshtein ratio 0.9600 would pass: --tiny-k 15 calls them duplicates)\n"},
		// Far apart, and told apart by their numbers whatever the
		// distance: no flag to suggest.
		{[]string{"--distinct-numbers", "--tiny-words", "0", "A girl is playing 2 flutes.", "A gvrl is playing 3 flutes."}, "more than its 14, so the texts are not compared (their Levenshtein ratio 0.9231 would pass, but their numbers differ (--distinct-numbers))\n"},
		// Far apart and unlike: no flag to suggest.
		{[]string{"the cat sat on the mat", "an entirely different sentence"}, "so the texts are not compared\n"},
		{[]string{"The patient is allergic to penicillin.", "The patient is not allergic to penicillin."}, "tiny rule (the shorter text under 64 characters, the longer under 80): within its 14 bits, and the Levenshtein ratio 0.9024 is at least 0.8\n"},
		// Numbers: a duplicate by default, told apart with --distinct-numbers.
		{[]string{"Your verification code is 482913. It expires in 10 minutes.", "Your verification code is 573201. It expires in 10 minutes."}, "within its 14 bits, and the Levenshtein ratio 0.9123 is at least 0.8\n"},
		{[]string{"--distinct-numbers", "Your verification code is 482913. It expires in 10 minutes.", "Your verification code is 573201. It expires in 10 minutes."}, "within its 14 bits, and the Levenshtein ratio 0.9123 is at least 0.8, but their numbers differ (--distinct-numbers)\n"},
		{[]string{"The patient is allergic to penicillin and was given another drug.", "The patient is not allergic to penicillin and was given another drug."}, "short rule (the shorter text under 500 characters, the longer under 625): within its 10 bits, and the Levenshtein ratio 0.9412 is at least 0.8\n"},
		// Negation: a duplicate by default, told apart with --distinct-negation.
		{[]string{"--distinct-negation", "The patient is allergic to penicillin and was given another drug.", "The patient is not allergic to penicillin and was given another drug."}, "within its 10 bits, and the Levenshtein ratio 0.9412 is at least 0.8, but their words of negation differ (--distinct-negation)\n"},
		{[]string{"--distinct-negation", "--distinct-numbers", "Your verification code is 482913. It expires in 10 minutes.", "Your verification code is 573201. It expires in 10 minutes."}, "is at least 0.8, but their numbers differ (--distinct-numbers)\n"},
		// The ratio leaves out punctuation, as the fingerprint does.
		{[]string{"谢谢分享", "谢谢分享！！"}, "within its 14 bits, and the Levenshtein ratio 1.0000 is at least 0.8\n"},
		{[]string{"我爱北京天安门", "我爱北京"}, "within its 14 bits, and the Levenshtein ratio 0.5714 is under 0.8\n"},
		{[]string{strings.Repeat("long text of many words ", 30), strings.Repeat("long text of many words ", 29) + "and one more"}, "long rule (the shorter text of 500 characters or more, or the longer of 625 or more): within its 6 bits, and the Jaccard"},
	} {
		out, errOut, code := runFP(t, "", append([]string{"compare"}, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("compare %q: status %d, stderr %q, output lacks %q:\n%s", tc.args, code, errOut, tc.want, out)
		}
	}
	// The flag the line suggests does what it says, at both widths.
	for _, bits := range []string{"64", "128"} {
		for _, args := range [][]string{
			{"compare", "--bits", bits, "--tiny-length", "0", "--short-k", "11", "the cat sat on the mat", "the cat sat on a mat"},
			{"compare", "--bits", bits, "--tiny-k", "15", "A girl is playing a flute.", "A gvrl is playing a flute."},
		} {
			if out, errOut, code := runFP(t, "", args...); code != 0 || !strings.Contains(out, "duplicate          true\n") {
				t.Errorf("%q: status %d, stderr %q, not a duplicate:\n%s", args, code, errOut, out)
			}
		}
	}
}

// TestComparePolicyFlags checks that compare's policy flags change its
// decision as they change dedup's: for each pair and flags, compare calls
// the pair a duplicate exactly when dedup, given the two texts, drops the
// second.
func TestComparePolicyFlags(t *testing.T) {
	long := strings.Repeat("a long text of many words ", 25)
	// 458 characters, and with a footer 511: the shorter text chooses the
	// short rule, and they are 8 bits apart (beyond the long rule's 6).
	harbour := "The harbour town woke slowly that morning. Fishing boats came back with their nets half empty, " +
		"and the market stalls opened late because of the rain. Old men argued about the price of diesel " +
		"while children ran between the crates, chasing a dog that had stolen a loaf of bread. By noon the " +
		"clouds broke, the sun dried the cobbles, and the ferry from the island arrived with tourists who " +
		"photographed everything, even the rusty anchor that had lain by the quay"
	footer := " Follow us for more stories like this one every week."
	for _, tc := range []struct {
		a, b  string
		flags []string
		dup   bool
	}{
		{"the cat sat on the mat", "the cat sat on a mat", nil, true},                        // 11 bits, tiny
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-k", "10"}, true}, // one word apart
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-k", "10", "--tiny-words", "0"}, false},
		{"Your code is 482913, valid 10 minutes.", "Your code is 573201, valid 10 minutes.", nil, true},
		{"Your code is 482913, valid 10 minutes.", "Your code is 573201, valid 10 minutes.", []string{"--distinct-numbers"}, false},
		{"Your code is 482913, valid 10 minutes.", "your code is 482913 - valid 10 minutes", []string{"--distinct-numbers"}, true},
		{"The patient is allergic to penicillin.", "The patient is not allergic to penicillin.", []string{"--distinct-negation"}, false},
		{"The patient is allergic to penicillin.", "the patient is allergic to penicillin!", []string{"--distinct-negation"}, true},
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-k", "10", "--tiny-words", "5"}, false}, // 6 words
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-length", "0"}, false},
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-length", "0", "--short-k", "12"}, true},
		{"the cat sat on the mat", "the cat sat on a mat", []string{"--tiny-length", "20"}, false}, // 22 characters: short
		{"A girl is playing a flute.", "A gvrl is playing a flute.", nil, true},                    // 15 bits, one word apart
		{"A girl is playing a flute.", "A gvrl is playing a flute.", []string{"--tiny-words", "0"}, false},
		{"A girl is playing a flute.", "A gvrl is playing a flute.", []string{"--tiny-words", "0", "--tiny-k", "16"}, true},
		{"A girl is playing a flute.", "A gvrl is playing flutes.", nil, false}, // two words apart
		{"The patient is allergic to penicillin.", "The patient is not allergic to penicillin.", nil, true},
		{"The patient is allergic to penicillin.", "The patient is not allergic to penicillin.", []string{"--short-min", "0.95"}, false},
		{long + ".", long + "!", nil, true},
		{long + ".", long + "!", []string{"--long-min", "0.95"}, false},
		{long, long + " and one more", nil, false}, // 8 bits apart
		{long, long + " and one more", []string{"--k", "10"}, true},
		{harbour, harbour + footer, nil, true},
		{harbour, harbour + footer, []string{"--short-k", "7"}, false},
	} {
		var c comparison
		out, errOut, code := runFP(t, "", append(append([]string{"compare", "--json"}, tc.flags...), tc.a, tc.b)...)
		if err := json.Unmarshal([]byte(out), &c); err != nil || code != 0 {
			t.Fatalf("compare %v: %v, status %d, stderr %q", tc.flags, err, code, errOut)
		}
		out, errOut, code = runFP(t, tc.a+"\n"+tc.b+"\n", append([]string{"dedup", "--lines"}, tc.flags...)...)
		if code != 0 {
			t.Fatalf("dedup %v: status %d, stderr %q", tc.flags, code, errOut)
		}
		dropped := strings.Count(out, "\n") == 1
		if c.Duplicate != tc.dup || dropped != tc.dup {
			t.Errorf("%q and %q with %v: compare says duplicate %v, dedup dropped the second %v; want %v", tc.a[:20], tc.b[:20], tc.flags, c.Duplicate, dropped, tc.dup)
		}
	}
	out, errOut, code := runFP(t, "", "compare", "--short-min", "2", "a", "b")
	wantUsageError(t, errOut, code, "--short-min 2")
	if out != "" {
		t.Errorf("--short-min 2 wrote %q", out)
	}
}

// TestCompareNilsimsa checks the reference's score in both output forms.
func TestCompareNilsimsa(t *testing.T) {
	a, b := "The rain in Spain falls mostly in the plains.", "The rain in Spain falls mainly in the plains."
	out, errOut, code := runFP(t, "", "compare", "--algo", "nilsimsa", a, b)
	if code != 0 || !strings.Contains(out, "distance           36\n") || !strings.Contains(out, "nilsimsa_score     92\n") {
		t.Errorf("status %d, stderr %q, output:\n%s", code, errOut, out)
	}
	out, _, _ = runFP(t, "", "compare", "--json", "--profile", "nilsimsa", a, b)
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.NilsimsaScore == nil || *c.NilsimsaScore != 92 || c.Bits != 256 {
		t.Errorf("--json: %v, %s", err, out)
	}
	out, _, _ = runFP(t, "", "compare", "--json", a, b)
	if strings.Contains(out, "nilsimsa_score") {
		t.Errorf("SimHash profile prints a nilsimsa score: %s", out)
	}
}

func TestComparePairs(t *testing.T) {
	in := `{"a": "the same text", "b": "the same text"}
{"id": 7, "a": "你妈妈喊你回家吃饭哦,回家罗回家罗", "b": "你妈妈叫你回家吃饭啦,回家罗回家罗"}
{"a": "", "b": "something else entirely"}
`
	out, errOut, code := runFP(t, in, "compare", "--pairs", "-")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d output lines, want 3: %q", len(lines), out)
	}
	var got []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		for _, k := range []string{"distance", "similarity", "jaccard", "cosine", "levenshtein_ratio", "duplicate"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %q lacks %q", l, k)
			}
		}
		got = append(got, m)
	}
	if got[0]["distance"] != 0.0 || got[0]["similarity"] != 1.0 || got[0]["duplicate"] != true || got[0]["bits"] != 64.0 {
		t.Errorf("identical pair: %v", got[0])
	}
	// Two of 16 characters differ; the comma is not counted.
	if r := got[1]["levenshtein_ratio"].(float64); r < 1-2.0/16-1e-9 || r > 1-2.0/16+1e-9 {
		t.Errorf("Chinese pair: levenshtein_ratio %v, want 14/16", r)
	}
	if got[2]["jaccard"] != 0.0 || got[2]["levenshtein_ratio"] != 0.0 {
		t.Errorf("empty vs text: %v", got[2])
	}
}

// TestComparePairsLineAndID checks that each --pairs output record names
// its input line (blank lines are skipped, so output line N need not be
// input line N) and carries the input's "id", matched as the other fields
// are (case-insensitively), as written.
func TestComparePairsLineAndID(t *testing.T) {
	in := "\n" + `{"a": "x", "b": "x"}` + "\n  \n\r\n" + `{"ID": "k-1", "a": "y", "b": "z"}` + "\n" + `{"id": 7, "a": "y", "b": "z"}` + "\n" + `{"id": {"n": [1, 2]}, "a": "y", "b": "z"}`
	out, errOut, code := runFP(t, in, "compare", "--pairs", "-")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{`{"line":2,"profile"`, `{"line":5,"id":"k-1","profile"`, `{"line":6,"id":7,"profile"`, `{"line":7,"id":{"n":[1,2]},"profile"`}
	if len(lines) != len(want) {
		t.Fatalf("%d output lines, want %d: %q", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("output line %d = %s, want it to start %s", i+1, lines[i], w)
		}
	}
	// A single comparison has neither.
	out, _, _ = runFP(t, "", "compare", "--json", "x", "y")
	if strings.Contains(out, `"line"`) || strings.Contains(out, `"id"`) {
		t.Errorf("compare --json: %s, want no line or id", out)
	}
}

func TestComparePairsErrors(t *testing.T) {
	tests := []struct {
		stdin string
		args  []string
		msg   string
	}{
		{`{"a": "x", "b": "y"}` + "\nnot json\n", []string{"compare", "--pairs", "-"}, "standard input: line 2: invalid character"},
		{`{"a": "x"}` + "\n", []string{"compare", "--pairs", "-"}, `line 1: want an object with string fields "a" and "b"`},
		{`{"a": 1, "b": "y"}` + "\n", []string{"compare", "--pairs", "-"}, `line 1: field "a" is a number; want a string`},
		{"", []string{"compare", "--pairs", "-", "extra"}, "takes no text arguments"},
		{"", []string{"compare", "only-one"}, "needs two texts"},
		{"", []string{"compare", "--profile", "nope", "a", "b"}, `--profile "nope": no such profile; want default, classic, py-simhash, go-mfonda or nilsimsa`},
		{"", []string{"compare", "@/nonexistent/file", "b"}, `compare: A is "@/nonexistent/file", which reads the file /nonexistent/file: open /nonexistent/file: no such file or directory (for a text that starts with @, write @@: "@@/nonexistent/file")`},
		{"", []string{"compare", "--pairs", "/nonexistent/pairs.jsonl"}, "/nonexistent/pairs.jsonl"},
	}
	for _, tt := range tests {
		_, errOut, code := runFP(t, tt.stdin, tt.args...)
		wantUsageError(t, errOut, code, tt.msg)
	}
	// Lines before the bad one are printed, in order.
	out, _, _ := runFP(t, `{"a": "x", "b": "x"}`+"\n{\n", "compare", "--pairs", "-")
	if strings.Count(out, "\n") != 1 {
		t.Errorf("output before the bad line: %q", out)
	}
}

// TestCompareHelpDecision checks that compare's help states the decision
// compare makes, the default policy's, and not a bare distance bound: a
// pair of tiny texts 36 bits apart of nilsimsa's 256 (9 per 64) is a
// duplicate, as the tiny-text rule says.
func TestCompareHelpDecision(t *testing.T) {
	help, errOut, code := runFP(t, "", "compare", "--help")
	if code != 0 {
		t.Fatalf("compare --help: status %d: %s", code, errOut)
	}
	help = strings.Join(strings.Fields(help), " ")
	p := neardup.DefaultPolicy()
	for _, want := range []string{
		"default verification policy",
		fmt.Sprintf("fewer than %d (and the longer fewer than %d), when they are at most %d bits apart per 64", p.ShortLength, p.ShortCap(), p.Short.MaxDistance),
		fmt.Sprintf("fewer than %d normalized characters (and the longer fewer than %d) is a duplicate when the fingerprints are at most %d bits apart per 64", p.TinyLength, p.TinyCap(), p.Tiny.MaxDistance),
		fmt.Sprintf("at most %d bits apart per 64 and their Levenshtein ratio is at least %g", p.Short.MaxDistance, p.Short.MinSimilarity),
		fmt.Sprintf("at most %d bits apart per 64 and their Jaccard similarity is at least %g", p.Long.MaxDistance, p.Long.MinSimilarity),
		"four times at nilsimsa's 256",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("compare --help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "<= 3") {
		t.Errorf("compare --help still gives a bound of 3 bits:\n%s", help)
	}
	out, _, _ := runFP(t, "", "compare", "--json", "--algo", "nilsimsa", "The rain in Spain falls mostly in the plains.", "The rain in Spain falls mainly in the plains.")
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Distance != 36 || !c.Duplicate {
		t.Errorf("nilsimsa pair: %v, %+v; want distance 36 and a duplicate, as the help says", err, c)
	}
}

// TestComparePairsShape checks that a --pairs line that is JSON but not an
// object is named as such (not as a Go type), and that blank lines are
// skipped as dedup skips them.
func TestComparePairsShape(t *testing.T) {
	for in, want := range map[string]string{
		"[1,2]\n":  `standard input: line 1: want an object {"a": ..., "b": ...}, got a JSON array`,
		"\"ab\"\n": `standard input: line 1: want an object {"a": ..., "b": ...}, got a JSON string`,
		"null\n":   `standard input: line 1: want an object {"a": ..., "b": ...}, got null`,
	} {
		_, errOut, code := runFP(t, in, "compare", "--pairs", "-")
		wantUsageError(t, errOut, code, want)
		if strings.Contains(errOut, "Go value") || strings.Contains(errOut, "struct") {
			t.Errorf("%q: the message shows a Go type: %s", in, errOut)
		}
	}
	out, errOut, code := runFP(t, "\n"+`{"a": "x", "b": "x"}`+"\n  \n\r\n"+`{"a": "y", "b": "z"}`+"\n", "compare", "--pairs", "-")
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("blank lines: status %d, stderr %q, output %q", code, errOut, out)
	}
}

// TestCompareAtEscape checks that "@@" gives a text starting with '@', and
// that "@-" twice is refused rather than comparing standard input with
// nothing.
func TestCompareAtEscape(t *testing.T) {
	text := "@alice thanks for the quick brown fox story"
	want, _, _ := runFP(t, text, "fingerprint")
	want, _, _ = strings.Cut(want, "\t")
	out, errOut, code := runFP(t, "", "compare", "--json", "@"+text, "@-")
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil || code != 0 || c.A != want || c.B == want {
		t.Errorf("@@: status %d, stderr %q, A %s, want %s (%v)", code, errOut, c.A, want, err)
	}
	_, errOut, code = runFP(t, text, "compare", "@-", "@-")
	wantUsageError(t, errOut, code, `A and B are both "@-"`)
}

// TestCompareEmptyTexts checks that a pair where a text is empty once
// normalized (white space, a zero-width space, markup only with --html)
// is no duplicate, as cluster never groups such texts, and that compare
// says why: a note in the table, "empty" in JSON.
func TestCompareEmptyTexts(t *testing.T) {
	for _, args := range [][]string{
		{"compare", "   ", "\u200b"},
		{"compare", "--html", "<script>a</script>", "<style>b</style>"},
		{"compare", "", "\t\n"},
	} {
		out, errOut, code := runFP(t, "", args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out, "duplicate          false\n") || !strings.Contains(out, "note               A and B are empty once normalized") {
			t.Errorf("%q: %s; want no duplicate and a note saying why", args, out)
		}
		out, _, _ = runFP(t, "", append([]string{args[0], "--json"}, args[1:]...)...)
		var c map[string]any
		if err := json.Unmarshal([]byte(out), &c); err != nil || c["duplicate"] != false || c["empty"] != true {
			t.Errorf("%q --json: %s (%v); want duplicate false and empty true", args, out, err)
		}
	}
	out, _, _ := runFP(t, "", "compare", "--json", "the same text", "the same text")
	if strings.Contains(out, `"empty"`) || !strings.Contains(out, `"duplicate":true`) {
		t.Errorf("two equal texts: %s; want a duplicate and no empty field", out)
	}
	out, _, _ = runFP(t, `{"a": " ", "b": "\u200b"}`+"\n", "compare", "--pairs", "-")
	if !strings.Contains(out, `"duplicate":false,"empty":true`) {
		t.Errorf("--pairs: %s; want duplicate false and empty true", out)
	}
}

// TestComparePairsBOM checks that a byte order mark at the start of a
// --pairs file is ignored, as dedup and cluster ignore it.
func TestComparePairsBOM(t *testing.T) {
	out, errOut, code := runFP(t, "\ufeff"+`{"a": "x", "b": "x"}`+"\n"+`{"a": "y", "b": "y"}`+"\n", "compare", "--pairs", "-")
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("exit %d, stdout %q, stderr %q; want two lines", code, out, errOut)
	}
	_, errOut, code = runFP(t, `{"a": "x", "b": "x"}`+"\n\ufeff"+`{"a": "y", "b": "y"}`+"\n", "compare", "--pairs", "-")
	wantUsageError(t, errOut, code, "standard input: line 2: ")
}

// TestComparePairsBadID checks that an id that is not valid UTF-8, which
// would be copied into the output as it is and make it invalid JSON, is
// refused, naming the line and the field.
func TestComparePairsBadID(t *testing.T) {
	for _, in := range []string{"{\"id\": \"\xff\", \"a\": \"x\", \"b\": \"x\"}\n", "{\"id\": {\"k\": [\"\xc3\"]}, \"a\": \"x\", \"b\": \"x\"}\n"} {
		out, errOut, code := runFP(t, `{"a": "x", "b": "x"}`+"\n"+in, "compare", "--pairs", "-")
		wantUsageError(t, errOut, code, `standard input: line 2: field "id" is not valid UTF-8`)
		if !json.Valid([]byte(strings.TrimSpace(out))) {
			t.Errorf("output %q is not JSON", out)
		}
	}
}
