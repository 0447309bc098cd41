package index

import "math"

// timeCol stores entry times. Times within 2^32-1 seconds of the first one
// stored take 4 bytes each; the column widens to 8 bytes per entry the first
// time a time falls outside that window.
type timeCol struct {
	base   int64
	narrow []uint32
	wide   []int64 // non-nil once widened
}

func (c *timeCol) fits(t int64) bool {
	return t >= c.base && t-c.base < math.MaxUint32
}

func (c *timeCol) get(s uint32) int64 {
	if c.wide != nil {
		return c.wide[s]
	}
	return c.base + int64(c.narrow[s])
}

func (c *timeCol) widen() {
	c.wide = make([]int64, len(c.narrow), cap(c.narrow))
	for i, v := range c.narrow {
		c.wide[i] = c.base + int64(v)
	}
	c.narrow = nil
}

// set stores t for slot s; s must be below len.
func (c *timeCol) set(s uint32, t int64) {
	if c.wide == nil && !c.fits(t) {
		c.widen()
	}
	if c.wide != nil {
		c.wide[s] = t
		return
	}
	c.narrow[s] = uint32(t - c.base)
}

// push appends t. The first time stored sets the base of the narrow form.
func (c *timeCol) push(t int64) {
	if c.wide == nil && len(c.narrow) == 0 {
		c.base = t
	}
	if c.wide == nil && !c.fits(t) {
		c.widen()
	}
	if c.wide != nil {
		c.wide = append(c.wide, t)
		return
	}
	c.narrow = append(c.narrow, uint32(t-c.base))
}

func (c *timeCol) len() int {
	if c.wide != nil {
		return len(c.wide)
	}
	return len(c.narrow)
}

// reserve makes room for n more times without reallocating.
func (c *timeCol) reserve(n int) {
	if c.wide != nil {
		c.wide = growExact(c.wide, n)
		return
	}
	c.narrow = growExact(c.narrow, n)
}

// growExact returns s with capacity for at least n more elements, growing
// by exactly what is missing (bulk loads know their size; doubling would
// waste up to half the memory).
func growExact[T word](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	out := makeHuge[T](len(s) + n)[:len(s)]
	copy(out, s)
	return out
}

// word is the element type of the index's flat columns: plain integers,
// which hold no pointers.
type word interface {
	~uint16 | ~uint32 | ~uint64 | ~int64
}
