package weight

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
	old := c.slots
	n := max(64, 2*len(c.slots))
	c.slots = make([]slot, n)
	mask := uint32(n - 1)
	for i, o := range c.where {
		e := old[o]
		s := uint32(e.lo^e.hi>>32^e.hi) & mask
		for c.slots[s].t != 0 {
			s = (s + 1) & mask
		}
		c.slots[s] = e
		c.where[i] = s
	}
}

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
