package similarity

import (
	"slices"
	"sync"
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
	// Levenshtein is the edit ratio of the two texts (EditRatio):
	// LevenshteinRatio of their EditRunes, the normalized texts without
	// their punctuation and symbols, or of the texts with the sentences
	// of one in the other's order, where that is higher.
	Levenshtein float64 `json:"levenshtein"`
	// LevenshteinSkipped says that Levenshtein was not computed, and its 0
	// means nothing: a verifier that decides by another measure leaves the
	// edit distance of long texts out, as it costs their lengths'
	// product (neardup.Policy.Verify).
	LevenshteinSkipped bool `json:"-"`
}

// A Sketch is the part of a text that the measures need, prepared once so
// that one text can be compared with many:
//
//   - the text normalized by analysis.Normalize (NFKC, case and width
//     folding, whitespace folded; invalid UTF-8 read as U+FFFD), as runes;
//   - EditRunes: those runes without punctuation and symbols, which the
//     Levenshtein ratio compares (see EditRunes);
//   - Shingles: the set of character n-grams of the normalized text (spaces
//     included): 3 runes starting at a non-CJK rune, 2 runes starting at a
//     Han, Kana or Hangul one (analysis.IsCJK); a text too short for any
//     gram is a single shingle, an empty text has none. Each gram is one
//     64-bit key: its runes packed side by side (21 bits each, so two
//     grams have equal keys only when they are equal), then mixed by a
//     bijection so that keys spread evenly for sorting;
//   - Vector: the term-frequency vector of the word tokens of
//     analysis.Tokenize (every Han, Kana and Hangul character its own
//     token, hashed with XXH3), or tf-idf with NewSketchIDF.
//
// Character grams were chosen over word 2-shingles, word unigrams and
// fixed-width character grams by how well their Jaccard similarity tells
// close pairs from loose ones on short texts, where verification matters
// most (ROC AUC, pairs of the STS benchmark scored >= 4.6 against <= 3,
// MRPC, Chinese STS-B 5 against <= 3, BQ): 0.903, 0.764, 0.836, 0.732,
// against 0.795, 0.699, 0.829, 0.731 for word 2-shingles. They keep local
// word order, and one edited word changes only the few grams around it.
//
// NewSketch computes the shingles and the vector each when first asked
// for, so a sketch used only for the Levenshtein ratio never pays for them
// (they took about half the CPU of verifying short texts), and one used
// for Jaccard only never pays for the vector. A Sketch is immutable once
// made, apart from that, and safe to share between goroutines.
type Sketch struct {
	// Runes is the normalized text.
	Runes []rune

	editOnce     sync.Once
	edit         []rune // EditRunes(Runes), or given by NewSketchRunes
	lenOnce      sync.Once
	len          int // len(EditRunes()), counted without making them
	shinglesOnce sync.Once
	shingles     []uint64
	marksOnce    sync.Once
	marks        int // sentenceMarks
	sentOnce     sync.Once
	sents        sentences
	editStrOnce  sync.Once
	editStr      string
	editWinOnce  sync.Once
	editWin      *windowSet
	vectorOnce   sync.Once // computes vector and norm
	vector       Vector
	norm         float64
}

// NewSketch returns the Sketch of text with term-frequency weights. It
// accepts any bytes.
func NewSketch(text []byte) *Sketch {
	norm := analysis.Normalize(make([]byte, 0, len(text)), text)
	return &Sketch{Runes: runes(norm)}
}

// NewSketchIDF is NewSketch with tf-idf weights: each token's count times
// idf(token). A nil idf means weight 1 for every token (plain tf). tok is
// only valid during the call, and idf is not called after NewSketchIDF
// returns. Weights are taken in [0, 1e100], so that scores stay in [0, 1]:
// a NaN or negative idf counts as 0, a larger one (+Inf too) as 1e100.
func NewSketchIDF(text []byte, idf func(tok []byte) float64) *Sketch {
	if idf == nil {
		return NewSketch(text)
	}
	norm := analysis.Normalize(make([]byte, 0, len(text)), text)
	s := &Sketch{Runes: runes(norm)}
	s.vectorOnce.Do(func() { s.vector, s.norm = vector(norm, idf) })
	return s
}

// NewSketchRunes returns the Sketch of a text whose normalized runes are
// runes and whose EditRunes are edit, as a Sketch of the text would give
// them: for a caller that keeps both, so that a sketch made again skips
// the normalization. A nil edit is computed from runes when first needed.
// The slices must not change afterwards.
func NewSketchRunes(runes, edit []rune) *Sketch {
	s := &Sketch{Runes: runes, edit: edit}
	if edit != nil {
		s.lenOnce.Do(func() { s.len = len(edit) })
	}
	return s
}

// EditRunes returns the runes the Levenshtein ratio compares: Runes
// without punctuation and symbols (see EditRunes). It shares Runes when
// they hold none.
func (s *Sketch) EditRunes() []rune {
	s.editOnce.Do(func() {
		if s.edit == nil {
			s.edit = EditRunes(s.Runes)
		}
	})
	return s.edit
}

// runes returns the runes of the normalized text norm.
func runes(norm []byte) []rune {
	rs := make([]rune, 0, utf8.RuneCount(norm))
	for _, r := range string(norm) {
		rs = append(rs, r)
	}
	return rs
}

// sentences returns the sentences of the text (splitSentences), made
// once.
func (s *Sketch) sentences() sentences {
	s.sentOnce.Do(func() { s.sents = splitSentences(s.Runes, s.EditRunes(), s.editString()) })
	return s.sents
}

// Shingles returns the sorted set of shingle keys, without repeats.
func (s *Sketch) Shingles() []uint64 {
	s.shinglesOnce.Do(func() { s.shingles = shingles(s.Runes) })
	return s.shingles
}

// Vector returns the token vector, sorted by token hash. A text without
// words (punctuation, symbols, emoji) has its characters other than spaces
// for tokens, as the default pipeline fingerprints it.
func (s *Sketch) Vector() Vector {
	// The normalized text is valid UTF-8, so its runes give it back.
	s.vectorOnce.Do(func() { s.vector, s.norm = vector([]byte(string(s.Runes)), nil) })
	return s.vector
}

// vector returns the term vector of the normalized text norm, with idf
// weights if idf is not nil, and its norm.
func vector(norm []byte, idf func(tok []byte) float64) (Vector, float64) {
	// keys holds the token hashes in text order, then sorted. With idf,
	// idfs remembers each distinct token's weight (a function of the token,
	// so of its hash).
	keys := make([]uint64, 0, len(norm)/4+1)
	var idfs map[uint64]float64
	if idf != nil {
		idfs = make(map[uint64]float64)
	}
	add := func(tok []byte) {
		k := xxh3.Hash(tok)
		keys = append(keys, k)
		if idfs != nil {
			if _, ok := idfs[k]; !ok {
				idfs[k] = clampIDF(idf(tok))
			}
		}
	}
	analysis.Tokenize(norm, add)
	if len(keys) == 0 {
		analysis.Chars(norm, add) // no words
	}
	sortHashes(keys)
	var v Vector
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		w := float64(j - i)
		if idfs != nil {
			w *= idfs[keys[i]]
		}
		v = append(v, Term{Key: keys[i], Weight: w})
		i = j
	}
	return v, v.Norm()
}

// maxIDF is the largest idf weight taken: with counts of up to 2^40, the
// squares and products of weights and norms stay far from overflowing.
const maxIDF = 1e100

// clampIDF returns w in [0, maxIDF], with NaN as 0.
func clampIDF(w float64) float64 {
	if !(w > 0) {
		return 0
	}
	return min(w, maxIDF)
}

// shingles returns the sorted set of the keys (gramKey) of the character
// grams of the normalized text rs: at each rune, the gram of 2 runes when
// the rune is CJK (analysis.IsCJK) and of 3 runes otherwise, where that many
// runes remain. A text too short for any gram is one shingle; an empty text
// has none.
func shingles(rs []rune) []uint64 {
	if len(rs) == 0 {
		return nil
	}
	set := appendGrams(make([]uint64, 0, len(rs)), rs)
	sortHashes(set)
	return slices.Compact(set)
}

// appendGrams appends to dst the keys of the grams of rs, in text order
// and with repeats: the multiset whose set shingles returns.
func appendGrams(dst []uint64, rs []rune) []uint64 {
	n, start := len(rs), len(dst)
	for i, r := range rs {
		if r >= 0x1100 && analysis.IsCJK(r) { // no CJK below U+1100
			if i+2 <= n {
				dst = append(dst, gramKey(r, rs[i+1], -1))
			}
		} else if i+3 <= n {
			dst = append(dst, gramKey(r, rs[i+1], rs[i+2]))
		}
	}
	switch {
	case len(dst) > start || n == 0:
	case n == 1:
		// At most two runes, and no CJK gram: the text is the shingle.
		dst = append(dst, gramKey(rs[0], -1, -1))
	default:
		dst = append(dst, gramKey(rs[0], rs[1], -1))
	}
	return dst
}

// gramKey returns the key of the gram of the runes x, y, z, where y and z
// are -1 for a gram of one or two runes. The runes (at most 21 bits each,
// U+10FFFF) are packed into 63 bits, with the top bits telling the three
// lengths apart, so that distinct grams have distinct packings; the mixing
// that follows is a bijection (splitmix64's finalizer), so they keep
// distinct keys, spread evenly over the top bits that sortHashes splits on.
func gramKey(x, y, z rune) uint64 {
	const m = 1<<21 - 1
	var k uint64
	switch {
	case z >= 0:
		k = uint64(x)&m<<42 | uint64(y)&m<<21 | uint64(z)&m
	case y >= 0:
		k = 2<<62 | uint64(x)&m<<21 | uint64(y)&m
	default:
		k = 3<<62 | uint64(x)&m
	}
	k ^= k >> 30
	k *= 0xbf58476d1ce4e5b9
	k ^= k >> 27
	k *= 0x94d049bb133111eb
	k ^= k >> 31
	return k
}

// Len returns the length of the text as the Levenshtein ratio counts it,
// len(EditRunes()): the length that length-dependent thresholds should
// use. It counts them without making them, so that a long text, which
// only the other measures compare, is not copied.
func (s *Sketch) Len() int {
	// Not read from edit, which EditRunes may be writing meanwhile.
	s.lenOnce.Do(func() { s.len = editCount(s.Runes) })
	return s.len
}

// Cosine returns the cosine similarity of the term vectors of s and o, as
// Cosine(s.Vector(), o.Vector()) but with the norms the sketches keep.
func (s *Sketch) Cosine(o *Sketch) float64 {
	a, b := s.Vector(), o.Vector() // computes the norms too
	return cosine(a, b, s.norm, o.norm)
}

// Compare returns the similarity of a and b by every measure. Jaccard and
// cosine cost O(size of the sketches); the Levenshtein ratio is exact and
// costs O(len(a) * len(b) / 64) after common prefixes and suffixes are
// skipped (about a millisecond for two different 5,000-rune texts).
func Compare(a, b *Sketch) Scores {
	return Scores{
		Jaccard:     Jaccard(a.Shingles(), b.Shingles()),
		Cosine:      a.Cosine(b),
		Levenshtein: EditRatio(a, b),
	}
}
