package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestDocGenBody checks bench serve's generator against its definition,
// a syllable at a time: each document is the tag, its number and words of
// 2 to 4 syllables that one random draw each picks, so that runs of the
// same seed send the same documents; every body is valid JSON, and no two
// documents repeat.
func TestDocGenBody(t *testing.T) {
	syll := strings.Fields(benchSyllables)
	if len(syll) != benchSyllableCount {
		t.Fatalf("%d syllables, benchSyllableCount %d", len(syll), benchSyllableCount)
	}
	const words = 30
	g := newDocGen(7, 3, words)
	ref := rand.New(rand.NewPCG(7, 3))
	seen := map[string]bool{}
	num := 0
	for _, n := range []int{1, 5, 500} {
		body := g.body(nil, n)
		var docs []struct{ Text string }
		if n == 1 {
			docs = make([]struct{ Text string }, 1)
			if err := json.Unmarshal(body, &docs[0]); err != nil {
				t.Fatalf("body of 1: %v: %s", err, body)
			}
		} else if err := json.Unmarshal(body, &docs); err != nil || len(docs) != n {
			t.Fatalf("body of %d: %d documents, %v", n, len(docs), err)
		}
		for _, d := range docs {
			num++
			var want strings.Builder
			want.WriteString(fmt.Sprintf("r%x-w%d-", 7, 3) + strconv.Itoa(num))
			for range words {
				r := ref.Uint64()
				want.WriteByte(' ')
				for j := range 2 + int(r&0xff)%3 {
					f := (r >> (8 + 12*j)) & 0xfff
					want.WriteString(syll[int(f)*len(syll)>>12])
				}
			}
			if d.Text != want.String() {
				t.Fatalf("document %d:\n got %q\nwant %q", num, d.Text, want.String())
			}
			if seen[d.Text] {
				t.Fatalf("document %d repeats an earlier one", num)
			}
			seen[d.Text] = true
		}
	}
}

// TestBenchServeFlagErrors checks that each out-of-range value exits 2
// with one line naming its own flag and value, not a pair of flags that
// leaves the user to guess which was wrong, before any server starts.
func TestBenchServeFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--conns", "0"}, "--conns 0: want 1 to 1024"},
		{[]string{"--batch-conns", "2000"}, "--batch-conns 2000: want 1 to 1024"},
		{[]string{"--duration", "0s"}, "--duration 0s: want more than 0"},
		{[]string{"--warmup", "-1s"}, "--warmup -1s: want 0 to 10m0s"},
		{[]string{"--batch", "0"}, "--batch 0: want 1 to 10000"},
		{[]string{"--words", "0"}, "--words 0: want 1 to 100000"},
		{[]string{"--rate", "-1"}, "--rate -1: want 0"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "serve"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
		msg := stderr.String()
		if code != 2 || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 || strings.Contains(msg, " and --") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tt.args, code, msg, tt.want)
		}
	}
}
