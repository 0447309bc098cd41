package compat

import (
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/simhash"
)

// classicMul is the multiplier of Python 2's string hash, which the classic
// code stretches to any width.
const classicMul = 1000003

// Classic64 returns the 64-bit classic simhash of text: the Python code
// printed in many SimHash articles (class simhash, _string_hash) with
// hashbits=64, and its Java port.
//
// Tokens are the runs of non-whitespace, as Python 3's str.split() finds
// them (Unicode White_Space plus U+001C..U+001F). A token of runes
// c0..cn-1 hashes to x = c0<<7; x = (x*1000003 ^ ci) mod 2^64 for every
// rune ci (c0 included); x ^= n. (The original's last step, turning -1
// into -2, never applies: x is never negative.) Every token has weight 1,
// and bit i is set when at least as many tokens have it set as clear: text
// without tokens gives all ones (ffffffffffffffff).
//
// Runes are Unicode code points, as in Python 3; the Java port hashes UTF-16
// code units instead and splits only on " \t\n\r\f", so the two differ for
// text outside the Basic Multilingual Plane or with other whitespace.
func Classic64(text []byte) uint64 {
	// The classic rule sets a bit on a tie; simhash.Acc64 clears it. Adding
	// complemented hashes and complementing the sum turns one into the other.
	var acc simhash.Acc64
	classicTokens(text, func(tok []byte) {
		r, _ := utf8.DecodeRune(tok)
		x, n := uint64(r)<<7, uint64(0)
		forRunes(tok, func(c rune) {
			x = x*classicMul ^ uint64(c)
			n++
		})
		acc.Add(^(x ^ n))
	})
	return ^acc.Sum()
}

// Classic128 is Classic64 at hashbits=128: the token hash runs in 128-bit
// arithmetic (mod 2^128). It returns the high and low 64-bit halves. Text
// without tokens gives all ones.
func Classic128(text []byte) (hi, lo uint64) {
	var acc simhash.Acc128 // complemented, as in Classic64
	classicTokens(text, func(tok []byte) {
		r, _ := utf8.DecodeRune(tok)
		xh, xl, n := uint64(0), uint64(r)<<7, uint64(0)
		forRunes(tok, func(c rune) {
			carry, l := bits.Mul64(xl, classicMul)
			xh, xl = xh*classicMul+carry, l^uint64(c)
			n++
		})
		acc.Add(^xh, ^(xl ^ n))
	})
	hi, lo = acc.Sum()
	return ^hi, ^lo
}

// forRunes calls f with every rune of b, an invalid byte as U+FFFD.
func forRunes(b []byte, f func(r rune)) {
	for len(b) > 0 {
		r, size := rune(b[0]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b)
		}
		f(r)
		b = b[size:]
	}
}

// classicTokens calls emit for every run of non-whitespace in text.
func classicTokens(text []byte, emit func(tok []byte)) {
	start := -1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		if isPySpace(r) {
			if start >= 0 {
				emit(text[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		emit(text[start:])
	}
}

// isPySpace reports whether Python 3's str.isspace holds for r: Unicode
// White_Space, plus the information separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || 0x1c <= r && r <= 0x1f
}
