package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// words returns a deterministic text of n words; different seeds give
// unrelated texts.
func words(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	syll := []string{"ka", "lo", "mi", "ren", "to", "sa", "vi", "de", "pul", "an", "so", "ter"}
	ws := make([]string, n)
	for i := range ws {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		ws[i] = b.String()
	}
	return strings.Join(ws, " ")
}

// editWord returns text with its word i replaced: a near-copy, not the
// same text normalized.
func editWord(text string, i int) string {
	ws := strings.Fields(text)
	ws[i] = "zzyzx"
	return strings.Join(ws, " ")
}

// ruleServer returns a server in front of an in-memory engine that
// computes only the rule's score when ruleOnly is set (serve --scores
// rule), with a short text (under 500 runes: the Levenshtein rule) and a
// long one (the Jaccard rule) stored as "short" and "long".
func ruleServer(t *testing.T, ruleOnly bool) (s *Server, short, long string) {
	t.Helper()
	opts := neardup.DefaultOptions()
	opts.InMemory = true
	opts.RuleScoreOnly = ruleOnly
	e, err := neardup.Open("", &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s, err = New(Options{RuleScoreOnly: ruleOnly})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(e)
	short, long = words(1, 12), words(2, 150)
	if len(short) >= 500 || len(long) < 500 {
		t.Fatalf("texts of %d and %d bytes", len(short), len(long))
	}
	for id, text := range map[string]string{"short": short, "long": long} {
		if code, v := call(t, s.Handler(), "POST", "/v1/documents", "", fmt.Sprintf(`{"id":%q,"text":%q}`, id, text)); code != 200 || v["inserted"] != true {
			t.Fatalf("storing %s: %d %v", id, code, v)
		}
	}
	return s, short, long
}

// checkScores checks the scores of a match of the stored document id:
// those named in computed are numbers, the one of the rule equal to the
// match's similarity, and the others are null.
func checkScores(t *testing.T, what string, match any, id string, computed ...string) {
	t.Helper()
	m, _ := match.(map[string]any)
	if m["id"] != id {
		t.Errorf("%s: match %v, want one of %s", what, match, id)
		return
	}
	scores, _ := m["scores"].(map[string]any)
	for _, k := range []string{"jaccard", "cosine", "levenshtein"} {
		v, ok := scores[k]
		switch {
		case !ok:
			t.Errorf("%s: scores %v lack %s", what, scores, k)
		case strings.Contains(strings.Join(computed, " "), k):
			if _, isNum := v.(float64); !isNum {
				t.Errorf("%s: %s is %v, want a number (scores %v)", what, k, v, scores)
			}
		case v != nil:
			t.Errorf("%s: %s is %v, want null, not computed (scores %v)", what, k, v, scores)
		}
	}
	if len(computed) == 1 && scores[computed[0]] != m["similarity"] {
		t.Errorf("%s: %s is %v, want the similarity %v the rule decided by", what, computed[0], scores[computed[0]], m["similarity"])
	}
}

// TestRuleScoresNull checks that a server whose engine computes only the
// rule's score (serve --scores rule) sends the other scores as null, not
// computed, on every route that answers matches, and sends its rule's
// score as the match's similarity: Levenshtein for short texts, Jaccard
// for long ones, nothing for a query by fingerprint alone. A server that
// computes every score sends them all as numbers.
func TestRuleScoresNull(t *testing.T) {
	s, short, long := ruleServer(t, true)
	h := s.Handler()
	nearShort, nearLong := editWord(short, 5), editWord(long, 70)
	first := func(v map[string]any) any {
		ms, _ := v["matches"].([]any)
		if len(ms) == 0 || v["duplicate"] != true {
			t.Fatalf("no duplicate: %v", v)
		}
		return ms[0]
	}
	code, v := call(t, h, "POST", "/v1/query", "", fmt.Sprintf(`{"text":%q}`, nearShort))
	if code != 200 {
		t.Fatalf("query: %d %v", code, v)
	}
	checkScores(t, "query of a short near-copy", first(v), "short", "levenshtein")
	code, v = call(t, h, "POST", "/v1/query", "", fmt.Sprintf(`{"text":%q}`, nearLong))
	if code != 200 {
		t.Fatalf("query: %d %v", code, v)
	}
	checkScores(t, "query of a long near-copy", first(v), "long", "jaccard")
	fp, _ := v["fingerprint"].(string)

	code, v = call(t, h, "POST", "/v1/documents", "", fmt.Sprintf(`{"id":"copy1","text":%q}`, nearShort))
	if code != 200 {
		t.Fatalf("post: %d %v", code, v)
	}
	checkScores(t, "post of a short near-copy", first(v), "short", "levenshtein")
	code, v = call(t, h, "POST", "/v1/documents/batch", "", fmt.Sprintf(`[{"id":"copy2","text":%q},{"id":"copy3","text":%q}]`, nearShort, nearLong))
	if code != 200 {
		t.Fatalf("batch: %d %v", code, v)
	}
	rs, _ := v["results"].([]any)
	if len(rs) != 2 {
		t.Fatalf("batch: %v", v)
	}
	checkScores(t, "batch, short near-copy", first(rs[0].(map[string]any)), "short", "levenshtein")
	checkScores(t, "batch, long near-copy", first(rs[1].(map[string]any)), "long", "jaccard")
	code, v = call(t, h, "POST", "/v1/query/batch", "", fmt.Sprintf(`[{"text":%q},{"fingerprint":%q}]`, nearShort, fp))
	if code != 200 {
		t.Fatalf("query batch: %d %v", code, v)
	}
	rs, _ = v["results"].([]any)
	if len(rs) != 2 {
		t.Fatalf("query batch: %v", v)
	}
	checkScores(t, "query batch, short near-copy", first(rs[0].(map[string]any)), "short", "levenshtein")
	checkScores(t, "query batch, by fingerprint", first(rs[1].(map[string]any)), "long")

	// With every score computed (the default, serve --scores all), no
	// score is null: the answers stay what clients read before.
	s, short, long = ruleServer(t, false)
	h = s.Handler()
	for _, text := range []string{editWord(short, 5), editWord(long, 70)} {
		code, v := call(t, h, "POST", "/v1/query/batch", "", fmt.Sprintf(`[{"text":%q}]`, text))
		rs, _ := v["results"].([]any)
		if code != 200 || len(rs) != 1 {
			t.Fatalf("query batch: %d %v", code, v)
		}
		r := rs[0].(map[string]any)
		ms, _ := r["matches"].([]any)
		if len(ms) == 0 {
			t.Fatalf("no match: %v", r)
		}
		id := "short"
		if text != editWord(short, 5) {
			id = "long"
		}
		checkScores(t, "query of a near-copy of "+id, ms[0], id, "jaccard", "cosine", "levenshtein")
		fp, _ := r["fingerprint"].(string)
		code, v = call(t, h, "POST", "/v1/query", "", fmt.Sprintf(`{"fingerprint":%q,"k":64}`, fp))
		ms, _ = v["matches"].([]any)
		if code != 200 || len(ms) == 0 {
			t.Fatalf("query by fingerprint: %d %v", code, v)
		}
		// No text: nothing computed, whatever --scores says.
		checkScores(t, "query by the fingerprint of a near-copy of "+id, ms[0], ms[0].(map[string]any)["id"].(string))
	}
}

// TestScoringMeasure checks which scores are taken as computed under
// RuleScoreOnly, from the match alone.
func TestScoringMeasure(t *testing.T) {
	def := newScoring(true, neardup.DefaultPolicy())
	same := neardup.DefaultPolicy()
	same.Short.Measure = neardup.Cosine
	same.Long.Measure = neardup.Cosine
	cos := newScoring(true, same)
	// A tiny rule with a measure of its own: its score is taken too.
	tinyCos := neardup.DefaultPolicy()
	tinyCos.Tiny.Measure = neardup.Cosine
	tiny := newScoring(true, tinyCos)
	for _, tt := range []struct {
		sc   scoring
		m    neardup.Match
		fp   bool
		none uint8
	}{
		{def, neardup.Match{Similarity: 0.9, Scores: neardup.Scores{Levenshtein: 0.9}}, false, noJaccard | noCosine},
		{def, neardup.Match{Similarity: 0.6, Scores: neardup.Scores{Jaccard: 0.6}}, false, noCosine | noLevenshtein},
		{def, neardup.Match{Similarity: 1, Scores: neardup.Scores{Jaccard: 1}}, false, noCosine | noLevenshtein},
		// No texts kept: decided by distance, nothing computed.
		{def, neardup.Match{Similarity: 1 - 3.0/64}, false, noScores},
		// A rule that takes 0: the two rules' measures cannot be told apart.
		{def, neardup.Match{}, false, noCosine},
		{def, neardup.Match{Similarity: 0.9, Scores: neardup.Scores{Levenshtein: 0.9}}, true, noScores},
		{cos, neardup.Match{Similarity: 0.7, Scores: neardup.Scores{Cosine: 0.7}}, false, noJaccard | noLevenshtein},
		{tiny, neardup.Match{Similarity: 0.85, Scores: neardup.Scores{Cosine: 0.85}}, false, noJaccard | noLevenshtein},
		{tiny, neardup.Match{Similarity: 0.9, Scores: neardup.Scores{Levenshtein: 0.9}}, false, noJaccard | noCosine},
		{def, neardup.Match{Similarity: 0.85, Scores: neardup.Scores{Cosine: 0.85}}, false, noScores},
		// Every score asked for: a fingerprint's match has none, a long
		// text's no Levenshtein ratio.
		{newScoring(false, neardup.DefaultPolicy()), neardup.Match{Similarity: 0.9, Scores: neardup.Scores{Levenshtein: 0.9}}, true, noScores},
		{newScoring(false, neardup.DefaultPolicy()), neardup.Match{Similarity: 0.9, Scores: neardup.Scores{Jaccard: 0.9, Cosine: 0.95, LevenshteinSkipped: true}}, false, noLevenshtein},
		{newScoring(false, neardup.DefaultPolicy()), neardup.Match{Similarity: 0.9, Scores: neardup.Scores{Jaccard: 0.9, Cosine: 0.95, Levenshtein: 0.93}}, false, 0},
	} {
		if got := tt.sc.scores(tt.m, tt.fp).none; got != tt.none {
			t.Errorf("%+v, by fingerprint %v: not computed %03b, want %03b", tt.m, tt.fp, got, tt.none)
		}
	}
}

// TestLongEditRatioNull checks that the Levenshtein ratio of a long
// duplicate, which the engine leaves out (texts over 2,000 characters
// judged by Jaccard), is sent as null, not computed, with every score
// asked for: a 0 read as "nothing alike", where the page showed "Edit
// 0.0%" beside a Jaccard of 98%.
func TestLongEditRatioNull(t *testing.T) {
	s, _, _ := ruleServer(t, false) // every score asked for
	h := s.Handler()
	long := words(3, 500)
	if len(long) <= 2000 {
		t.Fatalf("a text of %d bytes; the test needs more than 2,000 characters", len(long))
	}
	if code, v := call(t, h, "POST", "/v1/documents", "", fmt.Sprintf(`{"id":"long1","text":%q}`, long)); code != 200 {
		t.Fatalf("post: %d %v", code, v)
	}
	code, v := call(t, h, "POST", "/v1/query", "", fmt.Sprintf(`{"text":%q}`, editWord(long, 70)))
	ms, _ := v["matches"].([]any)
	if code != 200 || len(ms) == 0 {
		t.Fatalf("query: %d %v", code, v)
	}
	sc, _ := ms[0].(map[string]any)["scores"].(map[string]any)
	if j, _ := sc["jaccard"].(float64); j < 0.9 || sc["levenshtein"] != nil {
		t.Errorf("scores of a long near-copy %v: want a Jaccard over 0.9 and the Levenshtein ratio null", sc)
	}
	// A short one gets all three.
	if code, v := call(t, h, "POST", "/v1/documents", "", `{"id":"s1","text":"a short text of a few words about rivers and stones"}`); code != 200 {
		t.Fatalf("post: %d %v", code, v)
	}
	_, v = call(t, h, "POST", "/v1/query", "", `{"text":"a short text of a few words about rivers and stones!"}`)
	ms, _ = v["matches"].([]any)
	if len(ms) == 0 {
		t.Fatalf("short query: %v", v)
	}
	if sc, _ := ms[0].(map[string]any)["scores"].(map[string]any); sc["levenshtein"] == nil || sc["jaccard"] == nil {
		t.Errorf("scores of a short near-copy %v: want every measure", sc)
	}
}
