package weight

import "slices"

// Counter counts the occurrences of features as they stream in, with an
// open-addressing hash table keyed by feature hash, so a document's terms
// are counted in linear time without sorting. A Counter is reused from
// document to document: Reset costs the number of distinct features of the
// last document, not the size of the table. The zero value is ready to use.
// A Counter is not safe for concurrent use.
type Counter struct {
	// slots hold the hash and the running count of each feature, so that
	// counting a repeat touches one slot and not its Term; Terms copies the
	// counts into the terms.
	slots []slot
	where []uint32 // slot of each term, in order, to clear them on Reset
	terms []Term
}

// slot is one entry of a Counter's table; t == 0 marks an empty slot.
type slot struct {
	hi, lo uint64
	t      uint32 // index into terms + 1
	n      int32  // occurrences
}

// Reset forgets every feature.
func (c *Counter) Reset() {
	for _, s := range c.where {
		c.slots[s].t = 0
	}
	c.where = c.where[:0]
	c.terms = c.terms[:0]
}

// Add counts one occurrence of the feature with hash (hi, lo) and IDF key.
func (c *Counter) Add(hi, lo, key uint64) {
	if 2*(len(c.terms)+1) > len(c.slots) {
		c.grow()
	}
	mask := uint32(len(c.slots) - 1)
	// lo is already a good hash; mix in hi for 128-bit features.
	s := uint32(lo^hi>>32^hi) & mask
	for {
		e := &c.slots[s]
		if e.t == 0 {
			c.terms = append(c.terms, Term{Hi: hi, Lo: lo, Key: key, Count: 1})
			*e = slot{hi: hi, lo: lo, t: uint32(len(c.terms)), n: 1}
			c.where = append(c.where, s)
			return
		}
		if e.lo == lo && e.hi == hi {
			e.n++
			return
		}
		s = (s + 1) & mask
	}
}

// grow doubles the table (at least 64 slots) and re-inserts the terms.
func (c *Counter) grow() {
	c.slots = rehash(c.slots, c.where,
		func(e *slot) uint32 { return uint32(e.lo ^ e.hi>>32 ^ e.hi) },
		func(e *slot) bool { return e.t != 0 })
}

// rehash returns a table twice the size of old (at least 64 slots) with the
// entries of the slots listed in order, re-inserted by linear probing from
// their hash, and rewrites order to their new slots.
func rehash[S any](old []S, order []uint32, hash func(*S) uint32, full func(*S) bool) []S {
	n := max(64, 2*len(old))
	slots := make([]S, n)
	mask := uint32(n - 1)
	for i, o := range order {
		e := &old[o]
		s := hash(e) & mask
		for full(&slots[s]) {
			s = (s + 1) & mask
		}
		slots[s] = *e
		order[i] = s
	}
	return slots
}

// Len returns the number of distinct features counted since the last
// Reset.
func (c *Counter) Len() int { return len(c.where) }

// Terms returns the distinct features counted since the last Reset, in
// order of first occurrence. The slice is the Counter's own: it is valid
// until the next Add or Reset, and the caller may reorder it or change its
// weights.
func (c *Counter) Terms() []Term {
	for i, s := range c.where {
		c.terms[i].Count = c.slots[s].n
	}
	return c.terms
}

// Counter64 counts the occurrences of 64-bit feature hashes, as Counter
// does for (hi, lo, key) features, with less work per occurrence: its
// open-addressing table holds only the hash and the count of each feature
// (16 bytes a slot), kept at most a quarter full so that most lookups take
// one probe, and the order of first occurrence is a list of slot numbers,
// which also clears the table on Reset. The zero value is ready to use. A
// Counter64 is not safe for concurrent use.
type Counter64 struct {
	slots []Count64
	order []uint32 // slot of each feature, in order of first occurrence
}

// Count64 is a 64-bit feature hash and the number of its occurrences.
type Count64 struct {
	Hash uint64
	N    uint32 // 0 marks an empty slot of a Counter64
}

// Reset forgets every feature.
func (c *Counter64) Reset() {
	for _, s := range c.order {
		c.slots[s].N = 0
	}
	c.order = c.order[:0]
}

// Add counts one occurrence of the feature with hash h.
func (c *Counter64) Add(h uint64) {
	hs := [1]uint64{h}
	c.AddAll(hs[:])
}

// AddAll counts one occurrence of each feature of hs, in order: the same
// as calling Add for each, in one loop. A new feature and a repeat take
// the same path, without a branch between them (which prose would make the
// processor mispredict about every third word): the slot is written
// either way, and the slot number appended to the order only counts for a
// new feature.
func (c *Counter64) AddAll(hs []uint64) {
	if len(hs) == 0 {
		return
	}
	n := len(c.order)
	order := slices.Grow(c.order, len(hs)+1)[:n+len(hs)+1]
	slots := c.slots
	mask := uint32(len(slots) - 1)
	for _, h := range hs {
		if 4*(n+1) > len(slots) {
			c.order = order[:n]
			c.grow()
			slots = c.slots
			mask = uint32(len(slots) - 1)
		}
		s := uint32(h) & mask
		for probeOn(slots[s], h) {
			s = (s + 1) & mask
		}
		e := &slots[s]
		order[n] = s
		if e.N == 0 {
			n++
		}
		e.Hash = h
		e.N++
	}
	c.order = order[:n]
}

// probeOn reports whether the slot e is taken by a feature other than h,
// with one branch rather than two: x | -x has its top bit set when x != 0.
func probeOn(e Count64, h uint64) bool {
	m, n := e.Hash^h, uint64(e.N)
	return (m|-m)&(n|-n)>>63 != 0
}

// grow doubles the table (at least 64 slots) and re-inserts the features.
func (c *Counter64) grow() {
	c.slots = rehash(c.slots, c.order,
		func(e *Count64) uint32 { return uint32(e.Hash) },
		func(e *Count64) bool { return e.N != 0 })
}

// Len returns the number of distinct features counted since the last Reset.
func (c *Counter64) Len() int { return len(c.order) }

// At returns the i-th distinct feature, in order of first occurrence, and
// its count; 0 <= i < Len().
func (c *Counter64) At(i int) Count64 { return c.slots[c.order[i]] }
