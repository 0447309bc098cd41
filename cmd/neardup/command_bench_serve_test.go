package main

import (
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
