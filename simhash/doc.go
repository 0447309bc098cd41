// Package simhash computes Charikar SimHash fingerprints (64 and 128 bits)
// of weighted features, with a fixed feature hash and fast accumulators.
//
// # Bit rule
//
// Every feature has a hash (64 or 128 bits) and a weight w > 0. Bit i of the
// fingerprint is set when the total weight of the features whose hash has
// bit i set is greater than the total weight of those whose hash has it
// clear. On a tie the bit is 0, so the fingerprint of no features (empty
// text) is 0. Weights that are not whole numbers (log-tf, tf-idf) are
// summed in floating point: two totals equal in exact arithmetic (1+ln 8
// and 1+ln 2 against twice 1+ln 4) can differ by a rounding error, and
// the bit follows the sums as computed, the same on every run.
//
// # Feature hash
//
// A token (a word, a CJK character or word, a character n-gram) is hashed
// with XXH3 (github.com/zeebo/xxh3, seed 0) of its UTF-8 bytes: Hash64 uses
// XXH3-64, Hash128 XXH3-128 (high half: fingerprint bits 64..127). A
// shingle of several tokens combines the tokens' hashes with Shingle64 and
// Shingle128, whose arithmetic is fixed and documented there. These hashes
// are part of the fingerprint format: they never change within a major
// version, and golden tests hold them fixed. Fingerprints are numbers, so
// byte order only matters when they are stored: neardup.Fingerprint writes
// them big-endian.
//
// # Accumulators
//
// Acc64 and Acc128 count unit-weight features with packed byte-lane
// counters (eight 8-bit counters in each uint64, flushed before they
// overflow), several times faster than a loop over 64 counters. Since
// term-frequency weighting is linear, adding a feature once per occurrence
// gives the same fingerprint as adding it once with weight = count, so the
// default pipeline streams features into an Acc64 without counting them
// first. Weighted64 and Weighted128 take real weights.
package simhash
