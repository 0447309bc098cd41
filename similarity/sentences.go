package similarity

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
)

// The Levenshtein ratio of texts whose sentences come in another order.
//
// LevenshteinRatio compares two texts as they run, so a copy with its
// sentences moved scores as if each moved sentence had been deleted and
// written again elsewhere: "今天下雨了，我们没有出门。明天会晴吗？" and
// "明天会晴吗？今天下雨了，我们没有出门。" score 0.375, though a reader sees
// the same text. EditRatio, the ratio Scores.Levenshtein holds, also puts
// the sentences of each text in the order in which they are found in the
// other, and keeps the highest ratio. Pairs of texts of one sentence each,
// most short ones, score as LevenshteinRatio scores them.

// EditRatio returns the Levenshtein ratio of the texts of a and b that
// Scores.Levenshtein holds: LevenshteinRatio of their EditRunes or the
// ratio of one, of two sentences or more, with its sentences in the order
// in which they are found in the other, where that is higher (each way is
// tried). A sentence ends at a full stop, question or exclamation mark
// followed by white space or the end of the text, or at one after a CJK
// character or that is 。.
func EditRatio(a, b *Sketch) float64 {
	r := LevenshteinRatio(a.EditRunes(), b.EditRunes())
	if r < 1 {
		r = max(r, reorderedRatio(a, b, r))
	}
	return r
}

// EditRatioAtLeast tells whether EditRatio(a, b) is at least min, with
// less work: it returns the in-order ratio (LevenshteinRatio of the
// EditRunes) when that is at least min, without trying the sentences in
// another order (so it can be under EditRatio, never under min); else
// the ratio in another order when that is at least min; else some value
// under min, the edit distances stopping once they exceed the most that
// min allows.
func EditRatioAtLeast(a, b *Sketch, min float64) float64 {
	r := boundedRatio(a.EditRunes(), b.EditRunes(), min)
	if r < min {
		r = max(r, reorderedRatio(a, b, min))
	}
	return r
}

// boundedRatio is LevenshteinRatio(a, b) when that is at least min;
// otherwise it is some value below min, at least the ratio: the edit
// distance stops once it exceeds the most that min allows.
func boundedRatio(a, b []rune, min float64) float64 {
	n := max(len(a), len(b))
	if n == 0 {
		return 1
	}
	return 1 - float64(Levenshtein(a, b, MaxEdits(n, min)))/float64(n)
}

// MaxEdits returns the most edits a Levenshtein ratio of min allows
// between texts whose longer one has n runes; the slack absorbs rounding
// in n*(1-min) when that is a whole number. A min of 0 or less allows n.
func MaxEdits(n int, min float64) int {
	if min <= 0 {
		return n
	}
	return int(math.Floor(float64(n)*(1-min) + 1e-9))
}

// reorderedRatio returns the higher Levenshtein ratio of each text with
// its sentences in the order in which they are found in the other (see
// orderIn), when that is above min, and otherwise some value not above it
// (0 when neither text has two sentences or more, or neither order
// differs from the text's own).
func reorderedRatio(a, b *Sketch, min float64) float64 {
	best := 0.0
	for _, p := range [2]struct{ moved, fixed *Sketch }{{a, b}, {b, a}} {
		joints := p.moved.sentenceMarks()
		if joints == 0 {
			continue
		}
		// Moving sentences keeps the trigrams within them: only those
		// across the joints (three at most at each, a mark being one
		// joint at most) change, and a joint may gain or lose a space.
		// Texts too far apart by their trigrams as they are
		// (farByTrigrams) are as far in any order, given those edits of
		// slack: most unrelated texts stop here, before their sentences
		// are split and looked for.
		fixed, moved := p.fixed.EditRunes(), p.moved.EditRunes()
		most := MaxEdits(max(len(fixed), len(moved))+joints, min) + joints
		if most < len(fixed) && farByTrigrams(fixed, moved, most) {
			continue
		}
		s := p.moved.sentences()
		if order := s.orderIn(p.fixed); order != nil {
			best = max(best, boundedRatio(s.join(nil, order), fixed, min))
		}
	}
	return best
}

// findHalf returns where the sentence p (as runes, rs) starts in t, by
// its first half or else its second (counted back from the half), or -1.
func findHalf(t string, w *windowSet, p string, rs []rune) int {
	first := string(rs[:len(rs)/2])
	if w.mayHold(first) {
		if k := strings.Index(t, first); k >= 0 {
			return k
		}
	}
	if second := p[len(first):]; w.mayHold(second) {
		if k := strings.Index(t, second); k >= 0 {
			return max(0, k-len(first))
		}
	}
	return -1
}

// windowSet holds a bit for the hash of each run of eight bytes of a
// string: a string holds another only if the other's first and last
// eight bytes have their bits set, which lets orderIn pass over most
// sentences another text does not hold without looking for them.
type windowSet [64]uint64

// newWindowSet returns the windowSet of t.
func newWindowSet(t string) *windowSet {
	w := new(windowSet)
	for k := 0; k+8 <= len(t); k++ {
		h := windowHash(t[k:])
		w[h/64] |= 1 << (h % 64)
	}
	return w
}

// windowHash hashes the first eight bytes of s to a bit of a windowSet.
func windowHash(s string) uint64 {
	_ = s[7]
	v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	return v * 0x9e3779b97f4a7c15 >> (64 - 12)
}

// mayHold reports whether the string of w may hold p: false only when it
// cannot (p has eight bytes or more, and its first or last eight are
// nowhere in it). A nil w may hold anything.
func (w *windowSet) mayHold(p string) bool {
	if w == nil || len(p) < 8 {
		return true
	}
	for _, h := range [2]uint64{windowHash(p), windowHash(p[len(p)-8:])} {
		if w[h/64]&(1<<(h%64)) == 0 {
			return false
		}
	}
	return true
}

// sentences holds the EditRunes of each sentence of a text.
type sentences struct {
	parts [][]rune
	strs  []string // parts as strings
	// spaced says that white space parted the text's sentences (in a
	// Latin text, not in a Chinese one), so that joined again they get
	// one space between them, as EditRunes gives them.
	spaced bool
}

// sentenceEnd reports whether r can end a sentence (the normalized text
// has the full-width marks as ASCII ones).
func sentenceEnd(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '。' }

// splitSentences returns the sentences (see EditRatio) of the normalized
// runes rs, whose EditRunes are edit, as edit and str (edit as a string)
// hold them, leaving out those of punctuation and symbols only: it finds
// where in rs the sentences end, then walks rs as EditRunes does
// (editWalk) to cut edit there.
func splitSentences(rs, edit []rune, str string) sentences {
	var s sentences
	var ends []int // the index in rs after each sentence
	for i := 0; i < len(rs); {
		if !sentenceEnd(rs[i]) {
			i++
			continue
		}
		cjk := i > 0 && analysis.IsCJK(rs[i-1]) // "下雨了." is one
		j := i
		for ; j < len(rs) && sentenceEnd(rs[j]); j++ {
			cjk = cjk || rs[j] == '。'
		}
		if j < len(rs) && (rs[j] == ' ' || cjk) {
			ends = append(ends, j)
			s.spaced = s.spaced || rs[j] == ' '
		}
		i = j
	}
	n, b := 0, 0 // the runes and bytes of edit so far
	from, fromB := 0, 0
	cut := func() {
		p, pb := from, fromB
		if p < n && edit[p] == ' ' { // the space before the sentence
			p, pb = p+1, pb+1
		}
		if p < n {
			s.parts = append(s.parts, edit[p:n])
			s.strs = append(s.strs, str[pb:b])
		}
		from, fromB = n, b
	}
	walked := editWalk(rs, func(i int, r rune) {
		for len(ends) > 0 && i >= ends[0] {
			cut()
			ends = ends[1:]
		}
		n, b = n+1, b+utf8.RuneLen(r)
	})
	if walked == 0 || walked != len(edit) {
		// Punctuation and symbols alone, which EditRunes keeps whole.
		return sentences{}
	}
	cut()
	return s
}

// join appends the sentences to dst in the given order of their indexes
// (nil: their own), with a space between two when the text had them.
func (s sentences) join(dst []rune, order []int) []rune {
	for k := range s.parts {
		i := k
		if order != nil {
			i = order[k]
		}
		if k > 0 && s.spaced {
			dst = append(dst, ' ')
		}
		dst = append(dst, s.parts[i]...)
	}
	return dst
}

// orderIn returns the indexes of the sentences of s in the order in
// which they are found in the EditRunes of t, or nil when that is their
// own. A sentence of two runes or more (a source line: "--《论语》") is
// found where it first is, as it is or (one of eight runes or more)
// by its first or its second half, so that one edit in it leaves it
// found; one not found, or shorter, stays after the sentence before it.
// With none found, the texts share no sentence and nil is returned.
func (s sentences) orderIn(t *Sketch) []int {
	ts, w := t.editString(), t.windows()
	starts := make([]int, len(s.parts))
	whole := make([]bool, len(s.parts))
	found := false
	for i, p := range s.strs {
		if len(s.parts[i]) >= 2 && w.mayHold(p) {
			if k := strings.Index(ts, p); k >= 0 {
				starts[i], whole[i], found = k, true, true
			}
		}
	}
	if !found {
		return nil
	}
	for i, p := range s.strs {
		if !whole[i] {
			starts[i] = -1
			if len(s.parts[i]) >= 8 {
				starts[i] = findHalf(ts, w, p, s.parts[i])
			}
			if starts[i] < 0 && i > 0 {
				starts[i] = starts[i-1]
			}
			starts[i] = max(starts[i], 0)
		}
	}
	if slices.IsSorted(starts) {
		return nil
	}
	order := make([]int, len(starts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(p, q int) int { return cmp.Compare(starts[p], starts[q]) })
	return order
}

// sentenceMarks returns how many marks that can end a sentence the text
// of s holds: a text of two sentences or more has one at least.
func (s *Sketch) sentenceMarks() int {
	s.marksOnce.Do(func() {
		for _, r := range s.Runes {
			if sentenceEnd(r) {
				s.marks++
			}
		}
	})
	return s.marks
}

// editString returns EditRunes as a string, made once.
func (s *Sketch) editString() string {
	s.editStrOnce.Do(func() { s.editStr = string(s.EditRunes()) })
	return s.editStr
}

// windows returns the windowSet of editString, made once, or nil for a
// string under windowsFrom bytes, where looking for a sentence costs
// less than making the set.
func (s *Sketch) windows() *windowSet {
	s.editWinOnce.Do(func() {
		if t := s.editString(); len(t) >= windowsFrom {
			s.editWin = newWindowSet(t)
		}
	})
	return s.editWin
}

// windowsFrom is the length of the shortest string that gets a
// windowSet.
const windowsFrom = 256
