package similarity

import (
	"slices"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
	"github.com/zeebo/xxh3"
)

// Scores holds the similarity of two texts by each measure, every one a
// ratio from 0 (nothing shared) to 1 (identical after normalization).
type Scores struct {
	// Jaccard is the Jaccard similarity of the two shingle sets.
	Jaccard float64 `json:"jaccard"`
	// Cosine is the cosine similarity of the two term vectors.
	Cosine float64 `json:"cosine"`
	// Levenshtein is LevenshteinRatio of the two normalized texts.
	Levenshtein float64 `json:"levenshtein"`
}

// A Sketch is the part of a text that the measures need, prepared once so
// that one text can be compared with many:
//
//   - the text normalized by analysis.Normalize (NFKC, case and width
//     folding, whitespace folded; invalid UTF-8 read as U+FFFD), as runes;
//   - the word tokens of analysis.Tokenize (every Han, Kana and Hangul
//     character its own token), each hashed to 64 bits with XXH3;
//   - Shingles: the set of word 2-shingles (each pair of adjacent tokens),
//     so for Chinese the character bigrams; a text of a single token has
//     that token as its only shingle, and a text without tokens none;
//   - Vector: the term-frequency vector of the tokens, or tf-idf with
//     NewSketchIDF.
//
// Word 2-shingles keep word order (unlike a bag of words) while one edited
// word changes only two shingles, which suits the short texts that need
// verification most. A Sketch is immutable once made and safe to share
// between goroutines.
type Sketch struct {
	// Runes is the normalized text.
	Runes []rune
	// Shingles is the sorted set of shingle hashes, without repeats.
	Shingles []uint64
	// Vector is the token vector, sorted by token hash.
	Vector Vector
	norm   float64
}

// NewSketch returns the Sketch of text with term-frequency weights. It
// accepts any bytes.
func NewSketch(text []byte) *Sketch { return NewSketchIDF(text, nil) }

// NewSketchIDF is NewSketch with tf-idf weights: each token's count times
// idf(token). A nil idf means weight 1 for every token (plain tf). tok is
// only valid during the call.
func NewSketchIDF(text []byte, idf func(tok []byte) float64) *Sketch {
	norm := analysis.Normalize(make([]byte, 0, len(text)), text)
	s := &Sketch{Runes: make([]rune, 0, utf8.RuneCount(norm))}
	for _, r := range string(norm) {
		s.Runes = append(s.Runes, r)
	}
	// keys holds the token hashes in text order, then sorted. With idf,
	// idfs remembers each distinct token's weight (a function of the token,
	// so of its hash).
	keys := make([]uint64, 0, len(norm)/4+1)
	var idfs map[uint64]float64
	if idf != nil {
		idfs = make(map[uint64]float64)
	}
	analysis.Tokenize(norm, func(tok []byte) {
		k := xxh3.Hash(tok)
		keys = append(keys, k)
		if idfs != nil {
			if _, ok := idfs[k]; !ok {
				idfs[k] = idf(tok)
			}
		}
	})
	switch len(keys) {
	case 0:
	case 1:
		s.Shingles = []uint64{keys[0]}
	default:
		s.Shingles = make([]uint64, len(keys)-1)
		for i := range s.Shingles {
			s.Shingles[i] = shingleKey(keys[i], keys[i+1])
		}
		slices.Sort(s.Shingles)
		s.Shingles = slices.Compact(s.Shingles)
	}
	slices.Sort(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		w := float64(j - i)
		if idfs != nil {
			w *= idfs[keys[i]]
		}
		s.Vector = append(s.Vector, Term{Key: keys[i], Weight: w})
		i = j
	}
	s.norm = s.Vector.Norm()
	return s
}

// shingleKey combines the hashes of two adjacent tokens into the hash of the
// ordered pair (a 64-bit mix, so "a b" and "b a" differ).
func shingleKey(a, b uint64) uint64 {
	x := a*0x9e3779b97f4a7c15 ^ b
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return x
}

// Len returns the length of the normalized text in runes, the length that
// length-dependent thresholds should use.
func (s *Sketch) Len() int { return len(s.Runes) }

// Compare returns the similarity of a and b by every measure. Jaccard and
// cosine cost O(size of the sketches); the Levenshtein ratio is exact and
// costs O(len(a) * len(b) / 64) after common prefixes and suffixes are
// skipped (about a millisecond for two different 5,000-rune texts).
func Compare(a, b *Sketch) Scores {
	return Scores{
		Jaccard:     Jaccard(a.Shingles, b.Shingles),
		Cosine:      cosine(a.Vector, b.Vector, a.norm, b.norm),
		Levenshtein: LevenshteinRatio(a.Runes, b.Runes),
	}
}
