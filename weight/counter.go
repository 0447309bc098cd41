package weight

// Counter counts the occurrences of features as they stream in, with an
// open-addressing hash table keyed by feature hash, so a document's terms
// are counted in linear time without sorting. A Counter is reused from
// document to document: Reset costs the number of distinct features of the
// last document, not the size of the table. The zero value is ready to use.
// A Counter is not safe for concurrent use.
type Counter struct {
	slots []uint32 // index into terms + 1; 0 is empty
	where []uint32 // slot of each term, to clear them on Reset
	terms []Term
}

// Reset forgets every feature.
func (c *Counter) Reset() {
	for _, s := range c.where {
		c.slots[s] = 0
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
		t := c.slots[s]
		if t == 0 {
			c.terms = append(c.terms, Term{Hi: hi, Lo: lo, Key: key, Count: 1})
			c.slots[s] = uint32(len(c.terms))
			c.where = append(c.where, s)
			return
		}
		if term := &c.terms[t-1]; term.Lo == lo && term.Hi == hi {
			term.Count++
			return
		}
		s = (s + 1) & mask
	}
}

// grow doubles the table (at least 64 slots) and re-inserts the terms.
func (c *Counter) grow() {
	n := max(64, 2*len(c.slots))
	c.slots = make([]uint32, n)
	c.where = c.where[:0]
	mask := uint32(n - 1)
	for i, t := range c.terms {
		s := uint32(t.Lo^t.Hi>>32^t.Hi) & mask
		for c.slots[s] != 0 {
			s = (s + 1) & mask
		}
		c.slots[s] = uint32(i + 1)
		c.where = append(c.where, s)
	}
}

// Terms returns the distinct features counted since the last Reset, in
// order of first occurrence. The slice is the Counter's own: it is valid
// until the next Add or Reset, and the caller may reorder it or change its
// weights.
func (c *Counter) Terms() []Term { return c.terms }
