// Package compat reproduces, bit for bit, the SimHash fingerprints of
// widely used implementations, so that fingerprints stored by them can be
// compared with fingerprints neardup computes:
//
//   - Classic: the Charikar simhash printed in countless articles (the
//     Python class by Holub's description, and its Java port): whitespace
//     tokens, a variable-width version of Python 2's string hash, 64 or 128
//     bits.
//   - PySimhash: Simhash(text) of the Python package simhash 2.x
//     (github.com/1e0ng/simhash) with its defaults, 64 or 128 bits.
//   - Mfonda: Simhash(NewWordFeatureSet(text)) of github.com/mfonda/simhash,
//     64 bits.
//
// All functions accept any bytes. Text is read as UTF-8; each byte that is
// not part of a valid UTF-8 sequence is read as U+FFFD (Go's rule, one
// replacement character per bad byte), which is what the originals see when
// given text decoded with replacement, except that Python replaces a
// truncated multi-byte sequence with a single U+FFFD. Mfonda works on bytes
// like the original and needs no such rule.
//
// Each profile fixes what empty text (or text without features) gives; the
// function docs say.
package compat
