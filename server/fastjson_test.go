package server

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// jsonSeeds are bodies the fast decoder must accept, decline, or agree on.
var jsonSeeds = []string{
	`{"text":"a"}`,
	` {"id" : "x1", "text":"hello world"} `,
	`{"text":"tab\there \"quoted\" \\ \/ \u00e9\u4e2d \b\f\n\r"}`,
	`{"text":"é中文"}`,
	`{}`,
	`{"text":"a","text":"b"}`,
	`{"Text":"a"}`,
	`{"text":"a","meta":{"k":1}}`,
	`{"text":"a","time":"2026-01-02T03:04:05Z"}`,
	`{"text":null}`,
	`{"text":"a"} x`,
	`{"text":"a"`,
	`{"text":"\ud83d\ude00"}`,
	`{"text":"\ud800"}`,
	"{\"text\":\"\xff\xfe\"}",
	"{\"text\":\"a\x01b\"}",
	`{"text":"\u12"}`,
	`{"text":"\uzzzz"}`,
	`{"text":"\x"}`,
	`{"text":1}`,
	`{"id":"a",}`,
	`{,"text":"a"}`,
	`[{"text":"a"},{"id":"2","text":"b"}]`,
	`[{"text":"a"} , {"text":"b"}]  `,
	`[]`,
	`[{"text":"a"},]`,
	`[{"text":"a"}]]`,
	`[{"text":"a"}`,
	`[{"text":"a","x":1}]`,
}

// checkFastDocument fails t when the fast decoder accepts b as one
// document but encoding/json does not, or decodes it differently.
func checkFastDocument(t *testing.T, b []byte) {
	got, ok := fastDocument(b)
	if !ok {
		return
	}
	var want documentIn
	if err := decodeStrict(b, &want); err != nil {
		t.Fatalf("fastDocument accepted %q, encoding/json refused it: %v", b, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fastDocument(%q) = %+v, encoding/json gives %+v", b, got, want)
	}
}

// checkFastDocuments is checkFastDocument for batches sent as arrays.
func checkFastDocuments(t *testing.T, s *Server, b []byte) {
	got, ok := fastDocuments(b, s.opts.MaxBatch)
	if !ok {
		return
	}
	want, err := parseArray[documentIn](b, s.opts.MaxBatch, documentNoun)
	if err != nil {
		t.Fatalf("fastDocuments accepted %q, encoding/json refused it: %v", b, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fastDocuments(%q) = %+v, encoding/json gives %+v", b, got, want)
	}
}

func TestFastDocument(t *testing.T) {
	accepted := 0
	for _, seed := range jsonSeeds {
		checkFastDocument(t, []byte(seed))
		if _, ok := fastDocument([]byte(seed)); ok {
			accepted++
		}
	}
	// The common forms must take the fast path, or it is dead code.
	for _, b := range []string{`{"text":"a"}`, ` {"id" : "x1", "text":"hello world"} `, `{"text":"é中文"}`,
		`{"text":"tab\there \"quoted\" \\ \/ \u00e9\u4e2d \b\f\n\r"}`} {
		if _, ok := fastDocument([]byte(b)); !ok {
			t.Errorf("fastDocument declined %s", b)
		}
	}
	if in, _ := fastDocument([]byte(`{"id":"x","text":"a\u00e9\"b"}`)); in.ID != "x" || in.Text != "a\u00e9\"b" {
		t.Errorf("fastDocument decoded %+v", in)
	}
	// Forms encoding/json treats its own way are left to it.
	for _, b := range []string{`{"Text":"a"}`, `{"text":"\ud83d\ude00"}`, "{\"text\":\"\xff\"}", `{"text":"a","meta":{}}`, `{"text":"a"} x`} {
		if _, ok := fastDocument([]byte(b)); ok {
			t.Errorf("fastDocument accepted %s", b)
		}
	}
}

func TestFastDocuments(t *testing.T) {
	s, err := New(Options{MaxBatch: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range jsonSeeds {
		checkFastDocuments(t, s, []byte(seed))
	}
	if ins, ok := fastDocuments([]byte(`[{"text":"a"},{"id":"2","text":"b"}]`), 3); !ok || len(ins) != 2 || ins[1].ID != "2" || ins[1].Text != "b" {
		t.Errorf("fastDocuments = %+v, %v", ins, ok)
	}
	// Over the batch limit, the slow path answers 413.
	if _, ok := fastDocuments([]byte(`[{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"}]`), 3); ok {
		t.Error("fastDocuments accepted a batch over its limit")
	}
}

func FuzzFastDocument(f *testing.F) {
	for _, seed := range jsonSeeds {
		f.Add([]byte(seed))
	}
	s, err := New(Options{MaxBatch: 4})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFastDocument(t, b)
		checkFastDocuments(t, s, b)
	})
}

// randomJSONString returns strings that exercise every escape rule.
func randomJSONString(rng *rand.Rand) string {
	parts := []string{"a", "Zz 09", "\"", "\\", "/", "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"é", "中文", "\u2028", "\u2029", "\xff", "\xe4\xb8", "😀", "\ufffd"}
	var sb strings.Builder
	for range rng.IntN(8) {
		sb.WriteString(parts[rng.IntN(len(parts))])
	}
	return sb.String()
}

func randomFloat(rng *rand.Rand) float64 {
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return rng.Float64()
	case 2:
		return math.Copysign(math.Pow(10, float64(rng.IntN(60)-30)), rng.Float64()-0.5)
	case 3:
		return 1e-6 * (1 - rng.Float64()*1e-3)
	case 4:
		return 1e21 * (1 + rng.Float64())
	}
	return math.Float64frombits(rng.Uint64() &^ (0x7ff << 52)) // subnormal
}

func randomResult(rng *rand.Rand) resultOut {
	r := resultOut{ID: randomJSONString(rng), Duplicate: rng.IntN(2) == 0, Distance: rng.IntN(64) - 1,
		Similarity: randomFloat(rng), Fingerprint: randomJSONString(rng), Inserted: rng.IntN(2) == 0}
	if rng.IntN(2) == 0 {
		s := randomJSONString(rng)
		r.DuplicateOf = &s
	}
	if rng.IntN(4) > 0 {
		r.Matches = []matchOut{}
	}
	for range rng.IntN(3) {
		m := matchOut{ID: randomJSONString(rng), Distance: rng.IntN(64), Similarity: randomFloat(rng), Duplicate: rng.IntN(2) == 0}
		m.Scores.Jaccard, m.Scores.Cosine, m.Scores.Levenshtein = randomFloat(rng), randomFloat(rng), randomFloat(rng)
		if rng.IntN(2) == 0 {
			m.Scores.none = uint8(rng.IntN(8)) // not computed: null
		}
		r.Matches = append(r.Matches, m)
	}
	if rng.IntN(4) == 0 {
		r.Error = &errorDetail{Code: randomJSONString(rng), Message: randomJSONString(rng)}
	}
	return r
}

// encodeSlow is what writeJSON wrote before the fast path.
func encodeSlow(t *testing.T, v any) []byte {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestAppendResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		r := randomResult(rng)
		var buf bytes.Buffer
		if !appendFast(&buf, r) {
			t.Fatalf("appendFast declined %+v", r)
		}
		if want := encodeSlow(t, r); !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("appendFast wrote\n%s\nencoding/json writes\n%s", buf.Bytes(), want)
		}
		batch := batchOut{Results: []resultOut{r, randomResult(rng)}}
		buf.Reset()
		if !appendFast(&buf, batch) {
			t.Fatalf("appendFast declined a batch")
		}
		if want := encodeSlow(t, batch); !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("appendFast wrote\n%s\nencoding/json writes\n%s", buf.Bytes(), want)
		}
	}
	// What JSON cannot hold is left to encoding/json, which reports it.
	var buf bytes.Buffer
	if appendFast(&buf, resultOut{Similarity: math.NaN()}) || appendFast(&buf, resultOut{Matches: []matchOut{{Similarity: math.Inf(1)}}}) ||
		appendFast(&buf, resultOut{Matches: []matchOut{{Scores: scoresOut{Scores: neardup.Scores{Cosine: math.NaN()}}}}}) {
		t.Error("appendFast accepted a NaN or an infinity")
	}
	if appendFast(&buf, map[string]string{"a": "b"}) {
		t.Error("appendFast accepted a type it does not know")
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a<b>&c", "\u2028\xff\"\\\x00", "中文😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json gives %s", s, got, want)
		}
	})
}
