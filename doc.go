// Package neardup finds near-duplicate texts.
//
// Texts are turned into fingerprints (Charikar SimHash at 64 or 128 bits, or
// nilsimsa digests at 256 bits) whose Hamming distance tracks how much two
// texts differ. A multi-table permuted index finds every stored fingerprint
// within k bits of a query, and candidates are confirmed with a real
// similarity measure before a text is called a duplicate.
package neardup
