// Package index finds every stored 64-bit fingerprint within a small Hamming
// distance of a query, exactly and in about a microsecond, among tens of
// millions of entries: the multi-table permuted index of Manku, Jain and Das
// Sarma ("Detecting near-duplicates for web crawling", WWW 2007).
//
//	ix, _ := index.New(index.Options{K: 3, ExpectedN: 10_000_000})
//	ix.AddBatch(entries)
//	matches := ix.Query(fp, 3, nil)
//
// # How it works
//
// The 64 bits are cut into blocks. Two fingerprints within distance k differ
// in at most k blocks, so (pigeonhole) they agree exactly on the others. A
// Design says how to cut and which blocks key each table; every table stores
// all entries, ordered by their bits permuted so that the table's key comes
// first. A query permutes itself per table, jumps through a bucket
// directory to the entries sharing its key prefix, and checks their
// distance. Each match is reported by the first table whose key it shares,
// so it is reported once without a seen-set.
//
// # Layout
//
// Each table keeps, per entry, only the 32 bits that follow its directory
// bits and a 4-byte slot number, in two arrays sorted by permuted
// fingerprint; the bucket directory holds offsets. Ids, fingerprints and
// times live once, in slot columns. The 32 stored bits filter candidates
// before the full fingerprint is read, so a query touches, per table, one
// directory cell and one contiguous run of 4-byte words.
//
// # Changes
//
// New entries go to a small buffer scanned linearly, then to a small sorted
// level, which is folded into the main level once it grows past an eighth
// of the index. Removed entries are marked dead in place and dropped at the
// next rebuild. Rebuilds sort outside the lock; readers wait only for the
// swap of the new tables or for one chunk of a bulk change.
package index
