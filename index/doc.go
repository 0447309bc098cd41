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
// bits (all of them, in 8 bytes, with Options.Wide) and a 4-byte slot
// number, in two arrays sorted by permuted fingerprint; the bucket
// directory holds offsets. Ids, fingerprints,
// times and tags (Entry.Tag, a column only once some entry has one) live
// once, in slot columns. The 32 stored bits filter candidates
// before the full fingerprint is read, so a query touches, per table, one
// directory cell and one contiguous run of 4-byte words. Candidates that
// pass the filter are checked in batches of 32, so that the reads of their
// slots and fingerprints overlap: on correlated fingerprints most of them
// fail on the bits not stored. Options.WideIfFits stores all the bits
// whenever the design still fits the memory budget so, which spares those
// reads.
//
// QueryBatch searches each table for all its queries in the order of
// their keys, so queries that share a bucket read it once; on SimHash
// fingerprints of text, whose keys crowd, a batch of 512 reads a fifth to
// a third of the bucket entries its queries would one by one.
//
// On Linux, arrays of 4 MB or more (table runs, slot columns, the id map)
// are allocated with a request for transparent huge pages (madvise), which
// the kernel may ignore. A query's probes land at random places across
// hundreds of megabytes, so with 4 KB pages nearly each one also misses
// the TLB and waits for a page walk.
//
// Keys longer than the directory (a directory resolves about log2(n)-2
// bits) are kept sorted within each bucket, and a query narrows a big
// bucket by binary search on the remaining key bits, so a bucket that many
// skewed fingerprints share does not become a scan. A design whose key is
// no longer than the directory (4 x 16 bits) has no such bits left: its
// buckets are as skewed as the data, which is why a longer-key design pays
// off on heavily skewed fingerprints (measured in docs/PERFORMANCE.md: on
// SimHash of generated text, 5/2 cuts the p99 of 4/1 by 2.4x at twice the
// memory).
//
// # Changes
//
// Entries added one at a time first wait in pending arrays of 256 that
// queries scan without taking the lock: Add writes an entry and then
// publishes the new count. Every 256 adds (or before any other change) they
// move, under the lock, into slots and a buffer of 512 (4096 with
// AVX-512) scanned linearly; from there they go into tiers of sorted runs
// that grow eightfold (a log-structured merge), and all are
// folded into the main level once a merge would make a tier of more than
// a quarter of the index, so that the main level is rebuilt once per
// quarter of growth. Removed and expired entries are marked dead in place, skipped
// by queries, and dropped at the next rebuild of the main level (forced
// once they pass an eighth of the index). Rebuilds sort outside the lock;
// readers wait only for the swap of the new tables or for one chunk (2048
// entries) of a bulk change.
//
// # Concurrency
//
// Queries take a read lock and never block each other; changes are
// serialized by a writer lock and take the read-write lock only briefly,
// and a single Add usually not at all. An Add that fills the buffer builds
// the new tier without the writer lock, so other writers go on meanwhile
// (one flush at a time).
// Keys depends on the design alone and takes no lock (the read lock, for
// an adaptive index, whose design may change).
//
// # Designs
//
// Options.Design fixes the design; otherwise ChooseDesign picks, among one-
// and two-level designs that are exact for K, the one with the lowest
// predicted latency within Options.MaxBytesPerEntry (default 60), or the
// leanest if none fits. Each table costs 8 bytes per entry plus its
// directory; the slot columns, id map and live bits cost about 26. Measured
// with `neardup bench index -n 1000000 --design D --adds 0 --baseline=false`
// (random fingerprints, 2 cores shared with other jobs at a load average
// near 16, so latencies are pessimistic; compare rows with each other):
//
//	k  design         tables  key bits  bytes/fp  p50 ns  p99 ns
//	0  1/1 (auto)          1        64      37.6     667    1584
//	1  2/1 (auto)          2        32      46.7     868    5364
//	2  3/1 (auto)          3     21-22      55.7     778    1827
//	3  4/1 seed, auto      4        16      61.7    1472    3415
//	3  5/2                10     25-26     119.2    2665   12588
//	3  4/1,4/1 Manku16    16        28     173.6    5697   28061
//	3  6/3 Manku20        20     31-33     209.9    4720   20968
//	4  5/1 (auto)          5     12-13      68.8    3644   19256
//	5  6/1 (auto)          6     10-11      76.7    7420   44701
//	7  8/1 (auto)          8         8      92.6   55209  5996194
//
// At a million entries the 16-bit keys of the seed design leave about 15
// candidates per table, fewer than the probes more tables would cost; at a
// billion, longer keys win, and ChooseDesign moves to them when the budget
// allows. For k >= 4 within 60 bytes only k+1 blocks keyed by one fit, and
// their short keys make queries slow: raise MaxBytesPerEntry for those.
//
// With Options.Adaptive the index chooses its design again, for twice the
// entries it holds, at every rebuild of all its tables (which it does as
// it grows by about a quarter, and after many removals), so an index that
// grows from empty uses the design its size calls for, at no cost beyond
// the rebuilds it makes anyway; ExpectedN then only picks the first one.
// Options.MaxBytes bounds its memory as a whole: a full rebuild holds the
// old tables and the new until it swaps them, so each chooses within
// MaxBytes / (2.5 n) bytes an entry for n entries, and an index that keeps
// growing moves to fewer tables. Where the bound leaves only k+1 or more
// blocks keyed by one (7/1 for k 6, whose 9-bit keys make buckets of
// thousands at millions of entries), it takes a design of fewer, longer
// keys that answers K by probing (below) when the cost models predict it
// cheaper: 3/1 or 4/1 for k 6, leaner as well.
//
// # Beyond the design's k
//
// A query for a k beyond the design's is still answered exactly. With a
// design of one level of single-block keys (4/1, 5/1, ...), whose blocks
// cut all 64 bits, the tables can still be used: two fingerprints within k
// differ in at most r_i bits of some block i whenever the radii r_i add up
// to k-m+1 for m blocks, so table i is probed with every key within r_i
// bits of the query's (multi-index hashing, Norouzi, Punjani and Fleet,
// CVPR 2012). With Options.Wide each table keeps the whole fingerprint
// next to the slot, so a probed bucket is tested at once without loading
// fingerprints. With other designs, or when a cost model
// predicts that probing costs more, as it does for small indexes, the
// query is a linear scan of the fingerprints.
//
// Probes go in rounds: every table's keys at 0 bits from the query's,
// then at 1 bit, and so on, each match reported by the table where it has
// the fewest differences. After round f every entry within the sum over
// the tables of min(f, r_i)+1, less one, has been found, so QueryNearest
// and QueryBatchNearest stop once the n nearest found lie within that:
// for fingerprints that crowd (texts of one template), usually after the
// first or second round of the three that a query at 10 bits has.
//
// # Scans
//
// The linear scan tests the fingerprints 64 at a time (one word of live
// bits); the buffer, the pending entries and buckets of 10 entries or more
// (32 in wide tables) are tested the same way. On processors with AVX-512
// (F, BW, VBMI, VPOPCNTDQ) and BMI2 the test of 64 fingerprints is a few
// vector instructions (about 0.15-0.3 ns a fingerprint against 1-1.5 ns in plain Go); on those with AVX2 and not
// AVX-512 it counts bits by table lookups, four fingerprints or eight
// 32-bit keys per instruction (about 0.2-0.45 ns); elsewhere it is
// portable Go.
//
// # Fingerprint width
//
// Entries hold 64-bit fingerprints. Designs, permutations and the table
// layout are written in terms of Bits and bit positions, so a 128-bit
// index needs wider slot columns and segments over two words, not a new
// structure.
package index
