package compat

import (
	"crypto/md5"
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/simhash"
)

// PySimhash64 returns Simhash(text).value of the Python package simhash 2.x
// with its defaults (f=64, reg=r'[\w\u4e00-\u9fcc]+', MD5 feature hash):
//
//  1. the text is lower-cased as by Python's str.lower (full mapping, with
//     the final-sigma rule);
//  2. only the characters of Python's Unicode \w (letters, numbers, '_')
//     and U+4E00..U+9FCC are kept, joined with nothing between;
//  3. the features are every window of 4 consecutive characters, or the
//     whole kept text as one feature when it is shorter than 4 (the empty
//     string when nothing is kept);
//  4. a feature hashes to the last 8 bytes of the MD5 of its UTF-8 bytes,
//     read big-endian; each window counts once (weight = count);
//  5. bit i is set when more than half of the windows have it set.
//
// Empty text (or text without word characters) is the single feature ""
// and gives e9800998ecf8427e, the low half of MD5("").
//
// Character classes come from Go's Unicode tables (Unicode 15.0, as in
// Python 3.12); Python versions with older tables differ only on characters
// added since.
func PySimhash64(text []byte) uint64 {
	var acc simhash.Acc64 // its rule is the package's: more than half
	pyWindows(text, func(w []byte) {
		sum := md5.Sum(w)
		acc.Add(binary.BigEndian.Uint64(sum[8:]))
	})
	return acc.Sum()
}

// PySimhash128 is PySimhash64 with f=128: the feature hash is the whole MD5
// digest, read big-endian. It returns the high and low 64-bit halves. Empty
// text gives d41d8cd98f00b204e9800998ecf8427e, MD5("").
func PySimhash128(text []byte) (hi, lo uint64) {
	var acc simhash.Acc128
	pyWindows(text, func(w []byte) {
		sum := md5.Sum(w)
		acc.Add(binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:]))
	})
	return acc.Sum()
}

// Feature is a feature string with a weight, as the Python package takes
// them in Simhash([(text, weight), ...]) or Simhash({text: weight}).
type Feature struct {
	Text   string
	Weight float64
}

// PyFeatures64 returns Simhash(features).value of the Python package simhash
// 2.x with f=64: bit i is set when the total weight of the features whose
// hash has bit i set is more than half the total weight of all features.
// Weights should not be negative (the original treats negative integer
// weights inconsistently). No features give 0.
func PyFeatures64(features []Feature) uint64 {
	_, lo := pyFeatures(features, 64)
	return lo
}

// PyFeatures128 is PyFeatures64 with f=128. It returns the high and low
// 64-bit halves.
func PyFeatures128(features []Feature) (hi, lo uint64) { return pyFeatures(features, 128) }

func pyFeatures(features []Feature, width int) (hi, lo uint64) {
	var sums [128]float64
	total := 0.0
	for _, f := range features {
		sum := md5.Sum([]byte(f.Text))
		h := [2]uint64{binary.BigEndian.Uint64(sum[8:]), binary.BigEndian.Uint64(sum[:8])}
		for i := range width {
			if h[i/64]>>(i%64)&1 == 1 {
				sums[i] += f.Weight
			}
		}
		total += f.Weight
	}
	for i := range width {
		if sums[i] > total/2 {
			if i < 64 {
				lo |= 1 << i
			} else {
				hi |= 1 << (i - 64)
			}
		}
	}
	return hi, lo
}

// pyWindows calls emit with the UTF-8 bytes of every feature of text as
// steps 1 to 3 of PySimhash64 describe.
func pyWindows(text []byte, emit func(w []byte)) {
	runes := make([]rune, 0, len(text))
	for _, r := range string(text) {
		runes = append(runes, r)
	}
	// kept holds the UTF-8 of the kept characters; starts[i] is where the
	// i-th kept character begins, with a final entry at len(kept).
	kept := make([]byte, 0, len(text))
	starts := make([]int, 0, len(runes)+1)
	for i, r := range runes {
		if r == 'Σ' {
			r = lowerSigma(runes, i)
		} else {
			r = unicode.ToLower(r) // İ's full lowering adds U+0307, which is not \w
		}
		if isPyWord(r) {
			starts = append(starts, len(kept))
			kept = utf8.AppendRune(kept, r)
		}
	}
	starts = append(starts, len(kept))
	const width = 4
	n := len(starts) - 1
	if n < width {
		emit(kept)
		return
	}
	for i := 0; i+width <= n; i++ {
		emit(kept[starts[i]:starts[i+width]])
	}
}

// isPyWord reports whether r matches [\w\u4e00-\u9fcc] in Python 3's re
// module on str: '_', or a character for which str.isalnum holds (the
// letter and number categories), or CJK U+4E00..U+9FCC.
func isPyWord(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || 0x4e00 <= r && r <= 0x9fcc
}

// lowerSigma lowers the capital sigma at runes[i] as Python's str.lower
// does: to final sigma ς when a cased letter precedes it and none follows
// (skipping case-ignorable characters both ways), to σ otherwise.
func lowerSigma(runes []rune, i int) rune {
	j := i - 1
	for j >= 0 && caseIgnorable(runes[j]) {
		j--
	}
	if j < 0 || !cased(runes[j]) {
		return 'σ'
	}
	j = i + 1
	for j < len(runes) && caseIgnorable(runes[j]) {
		j++
	}
	if j < len(runes) && cased(runes[j]) {
		return 'σ'
	}
	return 'ς'
}

// cased is Unicode's Cased property.
func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's Case_Ignorable property: the categories Mn,
// Me, Cf, Lm and Sk, and the word-break classes MidLetter, MidNumLet and
// Single_Quote.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
