package compat

import (
	"bytes"

	"github.com/neardup/neardup/simhash"
)

// Mfonda64 returns Simhash(NewWordFeatureSet(text)) of
// github.com/mfonda/simhash:
//
//  1. the text is lower-cased with bytes.ToLower;
//  2. the words are the leftmost-first matches of the regular expression
//     [\w']+(?:\://[\w\./]+){0,1} with ASCII \w, so a URL such as
//     http://example.com/a is one word;
//  3. a word hashes to its FNV-1 64-bit hash (hash/fnv.New64, not FNV-1a),
//     with weight 1;
//  4. bit i is set when at least as many words have it set as clear.
//
// Text without words gives all ones (ffffffffffffffff).
func Mfonda64(text []byte) uint64 {
	var acc simhash.Acc64 // complemented: the tie rule of Classic64
	mfondaWords(bytes.ToLower(text), func(w []byte) { acc.Add(^fnv1(w)) })
	return ^acc.Sum()
}

// fnv1 is the 64-bit FNV-1 hash: multiply, then xor each byte.
func fnv1(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h *= 1099511628211
		h ^= uint64(c)
	}
	return h
}

// mfondaWords calls emit for every match of [\w']+(?:\://[\w\./]+){0,1}.
func mfondaWords(b []byte, emit func(w []byte)) {
	for i := 0; i < len(b); {
		if !isMfondaWord(b[i]) {
			i++
			continue
		}
		start := i
		for i < len(b) && isMfondaWord(b[i]) {
			i++
		}
		if i+3 < len(b) && b[i] == ':' && b[i+1] == '/' && b[i+2] == '/' && isMfondaURL(b[i+3]) {
			for i += 3; i < len(b) && isMfondaURL(b[i]); i++ {
			}
		}
		emit(b[start:i])
	}
}

func isMfondaWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '\''
}

func isMfondaURL(c byte) bool {
	return c != '\'' && isMfondaWord(c) || c == '.' || c == '/'
}
