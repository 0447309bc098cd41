package index

// idMap maps entry ids to slot numbers: open addressing with linear probing
// over cells holding slot+1 (0 is empty). The id of a cell is read from the
// slot's id column, so a cell costs 4 bytes.
type idMap struct {
	cells []uint32
	n     int
	shift uint // 64 - log2(len(cells))
}

func hashID(id uint64) uint64 {
	id ^= id >> 33
	id *= 0xff51afd7ed558ccd
	id ^= id >> 33
	return id
}

func newIDMap(capacity int) idMap {
	m := idMap{}
	m.resize(capacity)
	return m
}

// resize makes room for at least capacity ids at a load of at most 3/4.
func (m *idMap) resize(capacity int) {
	size := 16
	for size*3/4 < capacity {
		size *= 2
	}
	m.cells = makeHuge[uint32](size)
	m.shift = uint(64 - log2(size))
}

func log2(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

// get returns the slot of id.
func (m *idMap) get(id uint64, ids []uint64) (uint32, bool) {
	mask := uint64(len(m.cells) - 1)
	for i := hashID(id) >> m.shift; ; i = (i + 1) & mask {
		c := m.cells[i]
		if c == 0 {
			return 0, false
		}
		if ids[c-1] == id {
			return c - 1, true
		}
	}
}

// touch loads the first cell of every entry's id, and the id that cell
// names, and returns a sum of them for the caller to keep alive. The loads
// of different entries do not depend on each other, so the processor
// overlaps their cache misses; the lookups that follow find the lines in
// cache. Loading ids[0] for an empty cell avoids a branch that would be
// mispredicted about as often as cells are full (ids must then not be
// empty: an empty map has nothing to load).
func (m *idMap) touch(es []Entry, ids []uint64) uint64 {
	var sum uint64
	if len(ids) == 0 {
		return 0
	}
	for _, e := range es {
		c := m.cells[hashID(e.ID)>>m.shift]
		sum += uint64(c) + ids[max(c, 1)-1]
	}
	return sum
}

// put records that id lives in slot; id must not be present. ids[slot]
// must already hold id. It grows the map when needed.
func (m *idMap) put(id uint64, slot uint32, ids []uint64) {
	if (m.n+1)*4 > len(m.cells)*3 {
		m.grow(ids, m.n+1)
	}
	mask := uint64(len(m.cells) - 1)
	i := hashID(id) >> m.shift
	for m.cells[i] != 0 {
		i = (i + 1) & mask
	}
	m.cells[i] = slot + 1
	m.n++
}

// grow rehashes into a table for at least want ids (doubling at least).
func (m *idMap) grow(ids []uint64, want int) {
	old := m.cells
	m.resize(max(want, len(old)*3/4+1))
	mask := uint64(len(m.cells) - 1)
	for _, c := range old {
		if c == 0 {
			continue
		}
		i := hashID(ids[c-1]) >> m.shift
		for m.cells[i] != 0 {
			i = (i + 1) & mask
		}
		m.cells[i] = c
	}
}

// del removes id, keeping every probe chain unbroken (backward shift).
func (m *idMap) del(id uint64, ids []uint64) bool {
	mask := uint64(len(m.cells) - 1)
	i := hashID(id) >> m.shift
	for {
		c := m.cells[i]
		if c == 0 {
			return false
		}
		if ids[c-1] == id {
			break
		}
		i = (i + 1) & mask
	}
	m.n--
	for {
		m.cells[i] = 0
		j := i
		for {
			j = (j + 1) & mask
			c := m.cells[j]
			if c == 0 {
				return true
			}
			home := hashID(ids[c-1]) >> m.shift
			// move c into the hole at i unless its home lies cyclically in (i, j].
			if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
				m.cells[i] = c
				i = j
				break
			}
		}
	}
}
