package similarity

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
	"github.com/zeebo/xxh3"
)

// Words appends to dst the hashes of the words of s, in text order: the
// runs of EditRunes between spaces, with each CJK rune (analysis.IsCJK) a
// word of its own. It stops once dst has grown by more than most words
// (most < 0: no limit), so that a caller that wants only the texts of a
// few words never hashes a long one.
func (s *Sketch) Words(dst []uint64, most int) []uint64 {
	start := len(dst)
	rs := s.EditRunes()
	var buf [64]byte
	word := buf[:0]
	flush := func() {
		if len(word) > 0 {
			dst = append(dst, xxh3.Hash(word))
			word = word[:0]
		}
	}
	for _, r := range rs {
		if most >= 0 && len(dst)-start > most {
			return dst
		}
		switch {
		case r == ' ':
			flush()
		case r >= 0x1100 && analysis.IsCJK(r):
			flush()
			word = utf8.AppendRune(word, r)
			flush()
		default:
			word = utf8.AppendRune(word, r)
		}
	}
	flush()
	return dst
}

// OneWordApart reports whether the word sequences a and b (Words) are the
// same but for at most one word replaced, inserted or deleted.
func OneWordApart(a, b []uint64) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	switch len(a) - len(b) {
	case 0:
		diff := 0
		for i := range a {
			if a[i] != b[i] {
				diff++
			}
		}
		return diff <= 1
	case 1:
		i := 0 // the common prefix; a's word at i is the one b lacks
		for i < len(b) && a[i] == b[i] {
			i++
		}
		return slices.Equal(a[i+1:], b[i:])
	}
	return false
}

// DeletionKeys appends to dst the deletion keys of the word sequence w:
// the hash of w itself, and of w with each of its words left out, one
// key each (len(w)+1 in all, repeats included). Two sequences that are
// OneWordApart share a key: a word replaced at i leaves both the same
// sequence without their i-th word, and a word inserted into one leaves
// the other's whole sequence once it is left out. Sequences that share a
// key are mostly one word apart; a key of 64 bits says nothing for
// certain, so a caller checks with OneWordApart.
func DeletionKeys(w []uint64, dst []uint64) []uint64 {
	dst = append(dst, seqKey(w, -1))
	for i := range w {
		dst = append(dst, seqKey(w, i))
	}
	return dst
}

// seqKey returns the hash of the words of w but the one at skip (-1:
// none), in order.
func seqKey(w []uint64, skip int) uint64 {
	h := uint64(0x9ae16a3b2f90404f)
	for i, x := range w {
		if i == skip {
			continue
		}
		h = (h ^ x) * 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	h ^= h >> 29
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>32
}

// SameNumbers reports whether the texts a and b (normalized runes, as
// Sketch.Runes) hold the same numbers in the same order: their runs of
// decimal digits, each ended by any other rune ("3.14" holds 3 and 14).
func SameNumbers(a, b []rune) bool {
	i, j := 0, 0
	for {
		i, j = nextDigit(a, i), nextDigit(b, j)
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		for i < len(a) && j < len(b) && isDigit(a[i]) && isDigit(b[j]) {
			if a[i] != b[j] {
				return false
			}
			i, j = i+1, j+1
		}
		if (i < len(a) && isDigit(a[i])) || (j < len(b) && isDigit(b[j])) {
			return false // one run goes on where the other ended
		}
	}
}

// nextDigit returns the index of the first decimal digit of rs from i on,
// or len(rs).
func nextDigit(rs []rune, i int) int {
	for i < len(rs) && !isDigit(rs[i]) {
		i++
	}
	return i
}

// isDigit reports whether r is a decimal digit (NFKC has made full-width
// ones ASCII already; others, such as Arabic-Indic digits, count too).
func isDigit(r rune) bool {
	return r >= '0' && r <= '9' || r > utf8.RuneSelf && unicode.IsDigit(r)
}

// SameNegation reports whether the texts a and b (normalized runes, as
// Sketch.Runes) hold as many words of negation each (negation): "The
// patient is allergic to penicillin." and "The patient is not allergic to
// penicillin." do not. The words are English (not, no, never, nothing,
// nobody, none, neither, nor, nowhere, cannot and every word ending in
// n't), Chinese (不 没 沒 无 無 非 未 别 別 勿 莫 否, each a token), and a
// few German, French and Spanish ones (nicht, kein, keine, keinen,
// keinem, keiner, keines, nie, niemals, pas, jamais, nunca).
func SameNegation(a, b []rune) bool {
	return negations(a) == negations(b)
}

// negations counts the words of negation in rs (see SameNegation).
func negations(rs []rune) int {
	n := 0
	analysis.Tokenize([]byte(string(rs)), func(tok []byte) {
		if negation(tok) {
			n++
		}
	})
	return n
}

// negation reports whether tok, a normalized token, is a word of
// negation (see SameNegation).
func negation(tok []byte) bool {
	switch string(tok) {
	case "not", "no", "never", "nothing", "nobody", "none", "neither", "nor", "nowhere", "cannot",
		"不", "没", "沒", "无", "無", "非", "未", "别", "別", "勿", "莫", "否",
		"nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
		"pas", "jamais", "nunca":
		return true
	}
	return len(tok) > 3 && string(tok[len(tok)-3:]) == "n't"
}
