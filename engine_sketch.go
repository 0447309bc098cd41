package neardup

import (
	"bytes"
	"sync"

	"github.com/neardup/neardup/similarity"
)

// sketchCache keeps the normalized runes, and their EditRunes, of stored
// short texts that verification read recently, from which their sketches
// are made again at no cost. SimHash fingerprints of texts crowd, so the
// same stored texts come up as candidates of many queries: in `bench
// engine --text-bytes 380`, 40% of the reads for verification were of
// texts read five times or more. A hit saves the store read, the
// decompression and the normalization. A stored document's text never
// changes (a replaced or re-inserted id gets a new seq), so an entry never
// goes stale; one of a deleted document is never asked for again once the
// indexes drop it, and ages out.
//
// The edit runes are what the short rule's edit distance needs. The rest
// of a sketch (shingles, vector), made only for the other measures, is
// made afresh on the sketch of each use and not kept: so an entry's memory
// is known when it is put (cachedText.bytes), and the cache holds as many
// texts as fit. The cache is split into shards, each with its own lock,
// and each shard forgets its oldest entries when it would hold more than
// sketchShardCap texts or sketchShardBytes. Texts of one template, each
// near a large share of the store, verify different stored texts from
// query to query, so the more of the store the cache holds the better
// (docs/PERFORMANCE.md, Engine, "Twenty-fourth pass").
type sketchCache struct {
	shards [sketchShards]sketchShard
}

const (
	sketchShards     = 16
	sketchShardCap   = 16384   // entries per shard: 262,144 texts in all
	sketchShardBytes = 4 << 20 // 64 MiB in all
)

// cachedText is what the cache keeps of a text: its normalized runes and
// its EditRunes, which share the runes' array when the text has no
// punctuation or symbols to drop.
type cachedText struct {
	runes, edit []rune
}

// bytes is about the memory a cache entry of t holds: its arrays, its
// slice headers, and its places in the map and the ring.
func (t cachedText) bytes() int {
	n := 88 + 4*cap(t.runes)
	if len(t.edit) > 0 && len(t.runes) > 0 && &t.edit[0] != &t.runes[0] {
		n += 4 * cap(t.edit)
	}
	return n
}

type sketchShard struct {
	mu    sync.Mutex
	m     map[uint64]cachedText
	ring  []uint64 // the shard's seqs in the order they came, from head, n of them
	head  int
	n     int
	bytes int // cachedText.bytes of the shard's entries
}

// get returns the cached text of the document seq, and whether there is
// one.
func (c *sketchCache) get(seq uint64) (cachedText, bool) {
	sh := &c.shards[seq%sketchShards]
	sh.mu.Lock()
	t, ok := sh.m[seq]
	sh.mu.Unlock()
	return t, ok
}

// put caches t as the text of the document seq, forgetting the shard's
// oldest entries as needed. t's slices must not change afterwards.
func (c *sketchCache) put(seq uint64, t cachedText) {
	sh := &c.shards[seq%sketchShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m == nil {
		sh.m = make(map[uint64]cachedText)
		sh.ring = make([]uint64, sketchShardCap)
	}
	if _, ok := sh.m[seq]; ok {
		return
	}
	size := t.bytes()
	for sh.n > 0 && (sh.n == sketchShardCap || sh.bytes+size > sketchShardBytes) {
		old := sh.ring[sh.head]
		sh.bytes -= sh.m[old].bytes()
		delete(sh.m, old)
		sh.head = (sh.head + 1) % sketchShardCap
		sh.n--
	}
	sh.m[seq] = t
	sh.ring[(sh.head+sh.n)%sketchShardCap] = seq
	sh.n++
	sh.bytes += size
}

// candidateSketch returns the sketch of the stored text of the document
// seq, a candidate to verify, or nil when it has no text (deleted, or
// stored without one). The runes of short texts are cached, and a sketch
// of them made for each call. When they are not cached and mine is not
// nil, the stored text is first compared with mine: if they are the same
// bytes, candidateSketch reports so (same) instead of making a sketch,
// since every measure is then 1.
func (e *Engine) candidateSketch(seq uint64, mine []byte) (s *similarity.Sketch, same bool, err error) {
	if t, ok := e.sketches.get(seq); ok {
		return similarity.NewSketchRunes(t.runes, t.edit), false, nil
	}
	text, err := e.text(seq)
	if err != nil || text == nil {
		return nil, false, err
	}
	if mine != nil && bytes.Equal(text, mine) {
		return nil, true, nil
	}
	s = similarity.NewSketch(e.visible(text))
	if s.Len() < e.policy.ShortCap() {
		e.sketches.put(seq, cachedText{runes: s.Runes, edit: s.EditRunes()})
	}
	return s, false, nil
}
