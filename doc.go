// Package neardup finds near-duplicate texts: pages a crawler fetched twice,
// reposted news, spam templates, copied answers, repeated documents in a
// training corpus, in Chinese and English, short and long.
//
// # Fingerprints
//
// A Fingerprinter turns a text into a Fingerprint whose Hamming distance to
// another tracks how much the two texts differ. NewFingerprinter builds one
// from a Config naming a profile:
//
//   - "default": neardup's own SimHash pipeline (Pipeline): NFKC and case
//     folding, UAX #29 words (cut at full stops between letters) with
//     Han, Kana and Hangul characters as single tokens, log-tf weights, 64
//     or 128 bits. Its settings were chosen by measurement on real corpora
//     (docs/EVALUATION.md).
//   - "classic", "py-simhash", "go-mfonda": bit-for-bit reproductions of
//     widely used SimHash implementations, so stored fingerprints can be
//     migrated (package simhash/compat).
//   - "nilsimsa": 256-bit nilsimsa digests compatible with the reference
//     implementation (package nilsimsa).
//
// The zero Config is the default profile at 64 bits:
//
//	fp, _ := neardup.NewFingerprinter(neardup.Config{})
//	d, _ := neardup.Distance(fp.Fingerprint(a), fp.Fingerprint(b))
//
// # The engine
//
// Open returns an Engine: fingerprints in a multi-table Hamming index
// (package index) over a durable embedded store (package store, pebble),
// with a retention window. CheckAndInsert answers "have I seen this text
// before?": candidates within the Policy's distance are confirmed by a real
// similarity (Jaccard, cosine or edit distance, package similarity), since
// SimHash alone is unreliable on short texts. Near-duplicates submitted at
// the same moment are decided in order: exactly one is kept and the others
// name it. An acknowledged insert survives a crash.
//
//	eng, _ := neardup.Open("./neardup-data", nil)
//	defer eng.Close()
//	res, _ := eng.CheckAndInsert(ctx, neardup.Document{ID: "a", Text: text})
//
// # The data path
//
// Each stage is one folder of the repository:
//
//	analysis/    normalize, tokenize, shingle
//	weight/      tf, log-tf, tf-idf tables, top-N
//	simhash/     SimHash accumulators, feature hash (simhash/compat: other tools' profiles)
//	nilsimsa/    nilsimsa digests
//	index/       Manku multi-table index, all-pairs
//	similarity/  Jaccard, cosine, Levenshtein for verification
//	(root)       Pipeline, Policy, Engine
//	store/       durable storage by time bucket
//	cluster/     union-find grouping of near-duplicates
//	server/      HTTP API and web page; client/ is its Go client
//	eval/        detection-quality measurement
//	cmd/neardup  the command-line tool
//
// # Caveats
//
// Exact search costs grow steeply with the distance searched: the index
// answers in microseconds at k = 3 among tens of millions, in tens of
// microseconds at k = 6, and approaches a linear scan beyond k = 10, which is
// what short texts need (docs/PERFORMANCE.md). Paraphrases that share few
// words are not near-duplicates and are not found.
package neardup
