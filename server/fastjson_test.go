package server

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
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

// slowOnly declines every object: parseItems and decodeFast given it
// read by encoding/json alone, as the routes did before their fast paths.
func slowOnly[T any](b []byte, i int) (v T, end int, ok bool) { return v, 0, false }

// counted returns object, counting in *n the objects it accepts.
func counted[T any](object objectParser[T], n *int) objectParser[T] {
	return func(b []byte, i int) (T, int, bool) {
		v, end, ok := object(b, i)
		if ok {
			*n++
		}
		return v, end, ok
	}
}

// checkFastOne fails t when decodeFast with object reads b otherwise than
// encoding/json alone does: another value, or another error. It reports
// whether object took the whole of b.
func checkFastOne[T any](t *testing.T, b []byte, object objectParser[T]) bool {
	t.Helper()
	var got, want T
	gotErr := decodeFast(b, &got, object)
	wantErr := decodeStrict(b, &want)
	if !reflect.DeepEqual(gotErr, wantErr) || gotErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: the fast path gives %+v, %v; encoding/json gives %+v, %v", b, got, gotErr, want, wantErr)
	}
	_, ok := fastOne(b, object)
	return ok
}

// checkFastItems is checkFastOne for a batch body, of the given content
// type, of at most most objects: parseItems must answer with object what
// it answers with encoding/json alone. It returns how many objects object
// accepted.
func checkFastItems[T any](t *testing.T, b []byte, contentType string, most int, noun batchNoun, object objectParser[T]) int {
	t.Helper()
	n := 0
	got, gotLines, gotErr := parseItems(b, contentType, most, noun, counted(object, &n))
	want, wantLines, wantErr := parseItems(b, contentType, most, noun, slowOnly[T])
	if !reflect.DeepEqual(gotErr, wantErr) || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotLines, wantLines) {
		t.Fatalf("%s %q: the fast path gives %+v (lines %v), %v; encoding/json gives %+v (lines %v), %v",
			contentType, b, got, gotLines, gotErr, want, wantLines, wantErr)
	}
	return n
}

// checkFastBatch checks b with checkFastItems both as a JSON body and as
// NDJSON.
func checkFastBatch[T any](t *testing.T, b []byte, most int, noun batchNoun, object objectParser[T]) int {
	t.Helper()
	return checkFastItems(t, b, "application/json", most, noun, object) +
		checkFastItems(t, b, "application/x-ndjson", most, noun, object)
}

func TestFastDocument(t *testing.T) {
	for _, seed := range jsonSeeds {
		checkFastOne(t, []byte(seed), fastDocument)
	}
	// The common forms must take the fast path, or it is dead code.
	for _, b := range []string{`{"text":"a"}`, ` {"id" : "x1", "text":"hello world"} `, `{"text":"é中文"}`,
		`{"text":"tab\there \"quoted\" \\ \/ \u00e9\u4e2d \b\f\n\r"}`} {
		if _, ok := fastOne([]byte(b), fastDocument); !ok {
			t.Errorf("fastDocument declined %s", b)
		}
	}
	if in, _ := fastOne([]byte(`{"id":"x","text":"a\u00e9\"b"}`), fastDocument); in.ID != "x" || in.Text != "a\u00e9\"b" {
		t.Errorf("fastDocument decoded %+v", in)
	}
	// Forms encoding/json treats its own way are left to it.
	for _, b := range []string{`{"Text":"a"}`, `{"text":"\ud83d\ude00"}`, "{\"text\":\"\xff\"}", `{"text":"a","meta":{}}`, `{"text":"a"} x`} {
		if _, ok := fastOne([]byte(b), fastDocument); ok {
			t.Errorf("fastDocument accepted %s", b)
		}
	}
}

func TestFastDocuments(t *testing.T) {
	for _, seed := range jsonSeeds {
		checkFastBatch(t, []byte(seed), 3, documentNoun, fastDocument)
	}
	if ins, ok := fastArray([]byte(`[{"text":"a"},{"id":"2","text":"b"}]`), 3, fastDocument); !ok || len(ins) != 2 || ins[1].ID != "2" || ins[1].Text != "b" {
		t.Errorf("fastArray = %+v, %v", ins, ok)
	}
	// Over the batch limit, the slow path answers 413.
	if _, ok := fastArray([]byte(`[{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"}]`), 3, fastDocument); ok {
		t.Error("fastArray accepted a batch over its limit")
	}
}

func FuzzFastDocument(f *testing.F) {
	for _, seed := range jsonSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFastOne(t, b, fastDocument)
		checkFastBatch(t, b, 4, documentNoun, fastDocument)
	})
}

// querySeeds are query bodies the fast decoder must accept, decline, or
// agree on: one of each shape and edge.
var querySeeds = []string{
	`{"text":"a"}`,
	`{"text":"a","k":3}`,
	` { "k" : 0 , "text" : "a b" } `,
	`{"fingerprint":"0123456789abcdef"}`,
	`{"fingerprint":"0123456789abcdef","k":64}`,
	`{"text":"a","fingerprint":"0123456789abcdef"}`,
	`{"text":""}`,
	`{"k":2}`,
	`{}`,
	`{"text":"tab\there \"quoted\" \\ \/ \u00e9\u4e2d \b\f\n\r"}`,
	`{"text":"\ud83d\ude00"}`,
	`{"text":"\ud800"}`,
	`{"text":"\uDFFF x"}`,
	"{\"text\":\"\xff\xfe\"}",
	"{\"text\":\"a\x01b\"}",
	`{"text":"a","k":-1}`,
	`{"text":"a","k":-0}`,
	`{"text":"a","k":1.0}`,
	`{"text":"a","k":1e2}`,
	`{"text":"a","k":1E2}`,
	`{"text":"a","k":01}`,
	`{"text":"a","k":"3"}`,
	`{"text":"a","k":null}`,
	`{"text":"a","k":true}`,
	`{"text":"a","k":[3]}`,
	`{"text":"a","k":{}}`,
	`{"text":"a","k":-}`,
	`{"text":"a","k":+3}`,
	`{"text":"a","k":99999999999999999999}`,
	`{"text":"a","k":9223372036854775807}`,
	`{"text":"a","k":9223372036854775808}`,
	`{"text":"a","k":-9223372036854775808}`,
	`{"text":"a","k":1,"k":2}`,
	`{"text":"a","text":"b"}`,
	`{"k":3,"k":null}`,
	`{"Text":"a"}`,
	`{"K":3,"text":"a"}`,
	`{"t\u0065xt":"a"}`,
	`{"text":"a","x":1}`,
	`{"text":"a","meta":{"k":1}}`,
	`{"text":{"a":"b"}}`,
	`{"text":null}`,
	`{"fingerprint":1}`,
	`{"text":"a"} x`,
	`{"text":"a"}{"text":"b"}`,
	`{"text":"a"`,
	`{"text":"a",}`,
	`null`,
	`"text"`,
	`[{"text":"a"},{"fingerprint":"00","k":2}]`,
	`[{"text":"a"} , {"text":"b","k":1}]  `,
	`[{"text":"a"},null]`,
	`[]`,
	`[{"text":"a"},]`,
	`[{"text":"a"}]]`,
	`[{"text":"a"}`,
	`[{"text":"a","k":1.5}]`,
	`[{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"}]`,
	"{\"text\":\"a\"}\n\n{\"text\":\"b\",\"k\":1}\n",
	"{\"text\":\"a\"}\r\n \t\r\n{\"text\":\"b\"}",
	"{\"text\":\"a\"}\nnull\n",
	"{\"text\":\"a\"}\n{\"text\":\"b\"} x\n",
	"\n\n",
	"",
}

// randomQueryBody returns a body of one object, a JSON array or NDJSON,
// built from the members, values and white space a query or document may
// hold and many it may not, and now and then broken by a byte.
func randomQueryBody(rng *rand.Rand) string {
	keys := []string{`"text"`, `"text"`, `"fingerprint"`, `"k"`, `"k"`, `"id"`, `"Text"`, `"K"`, `"t\u0065xt"`, `"x"`, `"meta"`, `""`, `"te\"xt"`}
	strs := []string{"a b", "", `\"`, `\\`, `\/`, `\b\f\n\r\t`, `\u00e9`, `\u4E2D`, `\u0000`, `\ud83d\ude00`, `\ud800`, `\udfff`,
		`\u12`, `\x`, "é中", "\xff", "\xe4\xb8", "\x01", "\u2028", "<&>", "0123456789abcdef", "00"}
	nums := []string{"0", "3", "64", "-1", "-0", "1.0", "1e2", "1E+2", "2e-1", "01", "1.", ".5", "-", "+3",
		"99999999999999999999", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1_0"}
	others := []string{"null", "true", "false", "{}", "[]", `{"a":1}`, "[1,2]", "nul"}
	ws := []string{"", "", "", " ", "\n", "\t ", "\r\n"}
	space := func() string { return ws[rng.IntN(len(ws))] }
	value := func() string {
		switch rng.IntN(4) {
		case 0, 1:
			var sb strings.Builder
			sb.WriteByte('"')
			for range rng.IntN(4) {
				sb.WriteString(strs[rng.IntN(len(strs))])
			}
			sb.WriteByte('"')
			return sb.String()
		case 2:
			return nums[rng.IntN(len(nums))]
		}
		return others[rng.IntN(len(others))]
	}
	object := func() string {
		if rng.IntN(20) == 0 {
			return others[rng.IntN(len(others))]
		}
		var sb strings.Builder
		sb.WriteString("{" + space())
		for i := range rng.IntN(4) {
			if i > 0 {
				sb.WriteString(space() + "," + space())
			}
			sb.WriteString(keys[rng.IntN(len(keys))] + space() + ":" + space() + value())
		}
		sb.WriteString(space() + "}")
		return sb.String()
	}
	var body string
	switch rng.IntN(3) {
	case 0:
		body = space() + object() + space()
	case 1:
		objs := make([]string, 1+rng.IntN(4))
		for i := range objs {
			objs[i] = object()
		}
		body = space() + "[" + space() + strings.Join(objs, space()+","+space()) + space() + "]" + space()
	default:
		var sb strings.Builder
		for range 1 + rng.IntN(4) {
			sb.WriteString([]string{"", "\n", " \t\r\n"}[rng.IntN(3)] + object() + "\n")
		}
		body = sb.String()
	}
	if rng.IntN(8) == 0 && len(body) > 0 { // a byte lost, added or changed
		i := rng.IntN(len(body))
		const marks = `{}[]",:\ x0e.-`
		c := marks[rng.IntN(len(marks))]
		switch rng.IntN(3) {
		case 0:
			body = body[:i] + body[i+1:]
		case 1:
			body = body[:i] + string(c) + body[i:]
		default:
			body = body[:i] + string(c) + body[i+1:]
		}
	}
	return body
}

// TestFastQueryDiffers compares the fast path of the query routes with
// encoding/json on every seed and on random bodies of each shape: a query
// alone, a batch as an array and as NDJSON. The documents' fast path is
// compared on the same bodies.
func TestFastQueryDiffers(t *testing.T) {
	bodies := querySeeds
	rng := rand.New(rand.NewPCG(3, 4))
	for range 30000 {
		bodies = append(bodies, randomQueryBody(rng))
	}
	ones, items := 0, 0
	for _, b := range bodies {
		if checkFastOne(t, []byte(b), fastQuery) {
			ones++
		}
		items += checkFastBatch(t, []byte(b), 3, queryNoun, fastQuery)
		checkFastOne(t, []byte(b), fastDocument)
		checkFastBatch(t, []byte(b), 3, documentNoun, fastDocument)
	}
	// Most random bodies are refused, but enough must take the fast path
	// for the comparison to mean something.
	if ones < 1000 || items < 5000 {
		t.Errorf("the fast path took %d of %d bodies alone and %d objects in batches", ones, len(bodies), items)
	}
}

// TestFastQuery checks what fastQuery reads from the common forms, and
// that it leaves to encoding/json the forms encoding/json treats its own
// way.
func TestFastQuery(t *testing.T) {
	k := func(n int) *jsonInt { v := jsonInt(n); return &v }
	for _, c := range []struct {
		body string
		want queryIn
	}{
		{`{"text":"a"}`, queryIn{Text: "a"}},
		{` { "k" : 0 , "text" : "a b" } `, queryIn{Text: "a b", K: k(0)}},
		{`{"fingerprint":"0123456789abcdef","k":64}`, queryIn{Fingerprint: "0123456789abcdef", K: k(64)}},
		{`{"text":"a","k":-1}`, queryIn{Text: "a", K: k(-1)}}, // refused later, by readQuery
		{`{"text":"\u00e9\n","k":1,"k":2}`, queryIn{Text: "é\n", K: k(2)}},
		{`{}`, queryIn{}},
	} {
		if got, ok := fastOne([]byte(c.body), fastQuery); !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("fastQuery(%s) = %+v, %v; want %+v", c.body, got, ok, c.want)
		}
	}
	// Forms encoding/json treats its own way are left to it.
	for _, b := range []string{`{"K":3}`, `{"text":"a","k":1.0}`, `{"text":"a","k":1e2}`, `{"text":"a","k":"3"}`, `{"text":"a","k":null}`,
		`{"text":"a","k":01}`, `{"text":"a","k":99999999999999999999}`, `{"text":"a","x":1}`, `{"text":"\ud800"}`, `{"t\u0065xt":"a"}`} {
		if _, ok := fastOne([]byte(b), fastQuery); ok {
			t.Errorf("fastQuery accepted %s", b)
		}
	}
	if qs, ok := fastArray([]byte(`[{"text":"a"},{"fingerprint":"00","k":2}]`), 2, fastQuery); !ok || len(qs) != 2 || qs[1].Fingerprint != "00" || *qs[1].K != 2 {
		t.Errorf("fastArray = %+v, %v", qs, ok)
	}
}

// FuzzFastQuery compares the query routes' fast path with encoding/json
// on arbitrary bodies, alone and as batches (checkFastOne, checkFastBatch).
func FuzzFastQuery(f *testing.F) {
	for _, seed := range querySeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFastOne(t, b, fastQuery)
		checkFastBatch(t, b, 4, queryNoun, fastQuery)
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
	r.Matches, r.Error = randomMatches(rng), randomError(rng)
	return r
}

// randomMatches returns nil, no matches or a few.
func randomMatches(rng *rand.Rand) []matchOut {
	var ms []matchOut
	if rng.IntN(4) > 0 {
		ms = []matchOut{}
	}
	for range rng.IntN(3) {
		m := matchOut{ID: randomJSONString(rng), Distance: rng.IntN(64), Similarity: randomFloat(rng), Duplicate: rng.IntN(2) == 0}
		m.Scores.Jaccard, m.Scores.Cosine, m.Scores.Levenshtein = randomFloat(rng), randomFloat(rng), randomFloat(rng)
		if rng.IntN(2) == 0 {
			m.Scores.none = uint8(rng.IntN(8)) // not computed: null
		}
		ms = append(ms, m)
	}
	return ms
}

// randomError returns a refused result's error one time in four, else nil.
func randomError(rng *rand.Rand) *errorDetail {
	if rng.IntN(4) > 0 {
		return nil
	}
	return &errorDetail{Code: randomJSONString(rng), Message: randomJSONString(rng)}
}

// randomQueryOut returns a query's answer, or now and then its error.
func randomQueryOut(rng *rand.Rand) queryOut {
	q := queryOut{Fingerprint: randomJSONString(rng), Duplicate: rng.IntN(2) == 0, Matches: randomMatches(rng), Error: randomError(rng)}
	if rng.IntN(2) == 0 {
		s := randomJSONString(rng)
		q.DuplicateOf = &s
	}
	return q
}

// encodeSlow is what writeJSON wrote before the fast path.
func encodeSlow(t *testing.T, v any) []byte {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAppendFast compares appendFast with encoding/json on random
// results and query answers, alone and in batches.
func TestAppendFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		r, q := randomResult(rng), randomQueryOut(rng)
		checkAppendFast(t, r)
		checkAppendFast(t, batchOut{Results: []resultOut{r, randomResult(rng)}})
		checkAppendFast(t, q)
		checkAppendFast(t, queryBatchOut{Results: []queryOut{q, randomQueryOut(rng)}})
	}
	checkAppendFast(t, queryBatchOut{Results: []queryOut{}})
	// What JSON cannot hold is left to encoding/json, which reports it.
	var buf bytes.Buffer
	for _, v := range []any{
		resultOut{Similarity: math.NaN()},
		resultOut{Matches: []matchOut{{Similarity: math.Inf(1)}}},
		resultOut{Matches: []matchOut{{Scores: scoresOut{Scores: neardup.Scores{Cosine: math.NaN()}}}}},
		queryOut{Matches: []matchOut{{Similarity: math.NaN()}}},
		queryBatchOut{Results: []queryOut{{}, {Matches: []matchOut{{Scores: scoresOut{Scores: neardup.Scores{Jaccard: math.Inf(-1)}}}}}}},
	} {
		if appendFast(&buf, v) {
			t.Errorf("appendFast accepted a NaN or an infinity: %+v", v)
		}
	}
	// So are nil results, which it writes as null, and other types.
	for _, v := range []any{batchOut{}, queryBatchOut{}, map[string]string{"a": "b"}} {
		if appendFast(&buf, v) {
			t.Errorf("appendFast accepted %#v", v)
		}
	}
}

// checkAppendFast fails t when appendFast declines v or writes it
// otherwise than encoding/json does.
func checkAppendFast(t *testing.T, v any) {
	t.Helper()
	var buf bytes.Buffer
	if !appendFast(&buf, v) {
		t.Fatalf("appendFast declined %+v", v)
	}
	if want := encodeSlow(t, v); !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("appendFast wrote\n%s\nencoding/json writes\n%s", buf.Bytes(), want)
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

// String shows a k in a failure's message, where %v would show its
// address.
func (n *jsonInt) String() string {
	if n == nil {
		return "<nil>"
	}
	return strconv.Itoa(int(*n))
}
