package neardup

import (
	"bytes"
	"sync"

	"github.com/neardup/neardup/similarity"
)

// sketchCache keeps the sketches of stored short texts that verification
// read recently. SimHash fingerprints of texts crowd, so the same stored
// texts come up as candidates of many queries: in `bench engine
// --text-bytes 380`, 40% of the reads for verification were of texts read
// five times or more. A hit saves the store read, the decompression and the
// normalization. A stored document's text never changes (a replaced or
// re-inserted id gets a new seq), so an entry never goes stale; one of a
// deleted document is never asked for again once the indexes drop it,
// and ages out.
//
// The cache is split into shards, each with its own lock, and each shard
// forgets its oldest entries when it would hold more than sketchShardCap
// sketches or sketchShardBytes (an upper bound of what a sketch holds once
// its shingles and vector are made, sketchBytes). Texts of one template,
// each near a large share of the store, verify different stored texts
// from query to query: 100,000 such lines took 31.3 s to dedup with a
// cache of 4,096 sketches and 23.9 s with this one (docs/PERFORMANCE.md,
// Engine, "Twenty-third pass").
type sketchCache struct {
	shards [sketchShards]sketchShard
}

const (
	sketchShards     = 16
	sketchShardCap   = 4096    // entries per shard: 65,536 sketches in all
	sketchShardBytes = 4 << 20 // 64 MiB in all
)

// sketchBytes is about the most memory s holds once its shingles and
// vector are made: 4 bytes a rune, 8 a shingle (one a rune at most), 16 a
// distinct token (one every two runes at most), and the struct and slice
// headers.
func sketchBytes(s *similarity.Sketch) int { return 256 + 20*len(s.Runes) }

type sketchShard struct {
	mu    sync.Mutex
	m     map[uint64]*similarity.Sketch
	ring  []uint64 // the shard's seqs in the order they came, from head, n of them
	head  int
	n     int
	bytes int // sketchBytes of the shard's sketches
}

// get returns the cached sketch of the document seq, or nil.
func (c *sketchCache) get(seq uint64) *similarity.Sketch {
	sh := &c.shards[seq%sketchShards]
	sh.mu.Lock()
	s := sh.m[seq]
	sh.mu.Unlock()
	return s
}

// put caches s as the sketch of the document seq, forgetting the shard's
// oldest sketches as needed.
func (c *sketchCache) put(seq uint64, s *similarity.Sketch) {
	sh := &c.shards[seq%sketchShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m == nil {
		sh.m = make(map[uint64]*similarity.Sketch)
		sh.ring = make([]uint64, sketchShardCap)
	}
	if _, ok := sh.m[seq]; ok {
		return
	}
	size := sketchBytes(s)
	for sh.n > 0 && (sh.n == sketchShardCap || sh.bytes+size > sketchShardBytes) {
		old := sh.ring[sh.head]
		sh.bytes -= sketchBytes(sh.m[old])
		delete(sh.m, old)
		sh.head = (sh.head + 1) % sketchShardCap
		sh.n--
	}
	sh.m[seq] = s
	sh.ring[(sh.head+sh.n)%sketchShardCap] = seq
	sh.n++
	sh.bytes += size
}

// candidateSketch returns the sketch of the stored text of the document
// seq, a candidate to verify, or nil when it has no text (deleted, or
// stored without one). Sketches of short texts are cached. When its sketch
// is not cached and mine is not nil, the stored text is first compared
// with mine: if they are the same bytes, candidateSketch reports so (same)
// instead of making a sketch, since every measure is then 1.
func (e *Engine) candidateSketch(seq uint64, mine []byte) (s *similarity.Sketch, same bool, err error) {
	if s := e.sketches.get(seq); s != nil {
		return s, false, nil
	}
	text, err := e.text(seq)
	if err != nil || text == nil {
		return nil, false, err
	}
	if mine != nil && bytes.Equal(text, mine) {
		return nil, true, nil
	}
	s = similarity.NewSketch(text)
	if len(s.Runes) < e.policy.ShortLength {
		e.sketches.put(seq, s)
	}
	return s, false, nil
}
