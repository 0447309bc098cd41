package index

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Bits is the width of the fingerprints this package indexes.
const Bits = 64

// maxTables bounds the number of tables a design may ask for.
const maxTables = 1024

// ErrDesign is returned (wrapped) for a design that is malformed or cannot
// answer the distance it is asked for.
var ErrDesign = errors.New("index: bad design")

// Level is one pigeonhole split of a design: the bits still unkeyed are cut
// into Blocks nearly equal blocks, and each table keys on Key of them. With
// at most k differing bits, at least Blocks-k blocks agree exactly, so the
// level never loses a match when Key <= Blocks-k.
type Level struct {
	Blocks int // number of blocks the remaining bits are cut into
	Key    int // number of those blocks each table keys on
}

// Design says how the fingerprint bits are split into blocks and which blocks
// key each table (Manku, Jain and Das Sarma, WWW 2007). Levels apply in turn:
// the first cuts all 64 bits; each next level cuts the bits the previous
// levels left unkeyed. A table is one choice of Key blocks at every level, so
// a design has the product of C(Blocks, Key) over its levels tables.
//
// Examples: {{4,1}} is the 4 x 16-bit scheme (4 tables, 16-bit keys, k <= 3);
// {{6,3}} is Manku's 20-table design for k=3 (keys of 31 to 33 bits);
// {{4,1},{4,1}} is Manku's 16-table design for k=3 (28-bit keys).
// The zero Design means "choose one" wherever a Design is accepted.
type Design struct {
	Levels []Level
}

// Seed4x16 returns the 4 x 16-bit block design of the seed articles: four
// tables, each keyed by one 16-bit block; exact for k <= 3.
func Seed4x16() Design { return Design{Levels: []Level{{Blocks: 4, Key: 1}}} }

// Manku20 returns Manku's 20-table design for k=3: six blocks of 10 or 11 bits,
// each table keyed by three of them.
func Manku20() Design { return Design{Levels: []Level{{Blocks: 6, Key: 3}}} }

// Manku16 returns Manku's 16-table design for k=3: four 16-bit blocks, then
// the 48 remaining bits cut into four 12-bit blocks; each table keys on one
// block of each level (28 bits).
func Manku16() Design {
	return Design{Levels: []Level{{Blocks: 4, Key: 1}, {Blocks: 4, Key: 1}}}
}

// IsZero reports whether d is the zero Design (no levels).
func (d Design) IsZero() bool { return len(d.Levels) == 0 }

// MaxK returns the largest distance for which the design finds every match:
// the smallest Blocks-Key over its levels. It returns -1 for the zero Design.
func (d Design) MaxK() int {
	if len(d.Levels) == 0 {
		return -1
	}
	k := math.MaxInt
	for _, l := range d.Levels {
		k = min(k, l.Blocks-l.Key)
	}
	return k
}

// Tables returns the number of tables of the design.
func (d Design) Tables() int {
	t := 1
	for _, l := range d.Levels {
		t *= binomial(l.Blocks, l.Key)
	}
	return t
}

// Validate reports whether the design is well formed: at least one level,
// every level with 1 <= Key <= Blocks and at least one bit per block, bits
// left for every level after the first, and at most 1024 tables. A level
// with Key == Blocks keys on all the bits left, so it must be the last, and
// the design then answers only k = 0 (exact matches; ChooseDesign takes 1/1
// for that). Errors wrap ErrDesign.
func (d Design) Validate() error {
	if len(d.Levels) == 0 {
		return fmt.Errorf("%w: no levels", ErrDesign)
	}
	remaining := Bits
	t := 1
	for i, l := range d.Levels {
		if l.Blocks < 1 || l.Key < 1 || l.Key > l.Blocks {
			return fmt.Errorf("%w: level %d: need 1 <= key <= blocks, have blocks/key %d/%d", ErrDesign, i+1, l.Blocks, l.Key)
		}
		if l.Blocks > remaining {
			return fmt.Errorf("%w: level %d: %d blocks but only %d bits left", ErrDesign, i+1, l.Blocks, remaining)
		}
		t *= binomialUpTo(l.Blocks, l.Key, maxTables)
		if t > maxTables {
			return fmt.Errorf("%w: more than %d tables", ErrDesign, maxTables)
		}
		w := remaining / l.Blocks
		remaining -= l.Key * w
		if l.Key == l.Blocks {
			remaining = 0
		}
		if remaining == 0 && i+1 < len(d.Levels) {
			return fmt.Errorf("%w: level %d: no bits left for the next level", ErrDesign, i+2)
		}
	}
	return nil
}

// String formats the design as its levels, "blocks/key" joined by commas:
// "4/1", "6/3", "4/1,4/1". ParseDesign reads it back.
func (d Design) String() string {
	parts := make([]string, len(d.Levels))
	for i, l := range d.Levels {
		parts[i] = strconv.Itoa(l.Blocks) + "/" + strconv.Itoa(l.Key)
	}
	return strings.Join(parts, ",")
}

// ParseDesign parses a design written as by String ("4/1", "6/3",
// "4/1,4/1") or one of the names "seed" (Seed4x16), "manku20", "manku16".
// The empty string and "auto" give the zero Design. The result is validated.
func ParseDesign(s string) (Design, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Design{}, nil
	case "seed", "4x16":
		return Seed4x16(), nil
	case "manku20":
		return Manku20(), nil
	case "manku16":
		return Manku16(), nil
	}
	var d Design
	for _, p := range strings.Split(s, ",") {
		b, k, ok := strings.Cut(strings.TrimSpace(p), "/")
		nb, err1 := strconv.Atoi(b)
		nk, err2 := strconv.Atoi(k)
		if !ok || err1 != nil || err2 != nil {
			return Design{}, fmt.Errorf("%w: %q: want levels like 4/1 or 4/1,4/1", ErrDesign, s)
		}
		d.Levels = append(d.Levels, Level{Blocks: nb, Key: nk})
	}
	if err := d.Validate(); err != nil {
		return Design{}, err
	}
	return d, nil
}

// Estimate is the cost model ChooseDesign uses for one design.
type Estimate struct {
	Design        Design
	Tables        int
	KeyBits       int     // the smallest key width over the tables
	BytesPerEntry float64 // predicted heap bytes per stored entry
	Candidates    float64 // expected entries scanned per query on random fingerprints
	QueryNs       float64 // predicted query latency in nanoseconds
}

// perEntryFixed is the heap cost per entry outside the tables: fingerprint
// (8), id (8), time (4), the id map (about 6) and the live bit.
const perEntryFixed = 26.2

// EstimateDesign predicts memory and query cost of d for n random entries:
// each table costs 8 bytes per entry (32 key-adjacent bits and a slot
// number) plus its bucket directory, and a query pays two dependent memory
// accesses per table and about 0.3 ns per scanned candidate. d must be
// valid (Validate); EstimateDesign panics, with an error wrapping ErrDesign
// that names d, otherwise.
func EstimateDesign(d Design, n int) Estimate {
	if err := d.Validate(); err != nil {
		panic(fmt.Errorf("index: EstimateDesign(%s): %w", d, err))
	}
	n = max(n, 1)
	keys := keyWidths(d)
	e := Estimate{Design: d, Tables: len(keys), KeyBits: Bits}
	mem := perEntryFixed
	for _, kb := range keys {
		e.KeyBits = min(e.KeyBits, kb)
		db := dirBits(kb, n)
		mem += 8 + 4*float64(uint64(1)<<db)/float64(n)
		e.Candidates += float64(n) / math.Exp2(float64(kb))
	}
	e.BytesPerEntry = mem
	e.QueryNs = 60 + float64(len(keys))*120 + e.Candidates*0.3
	return e
}

// keyWidths returns the key width of every table of the valid design d,
// in table order, without building the permutations.
func keyWidths(d Design) []int {
	var out []int
	var rec func(level, key, rest int)
	rec = func(level, key, rest int) {
		if level == len(d.Levels) {
			out = append(out, key)
			return
		}
		l := d.Levels[level]
		w, extra := rest/l.Blocks, rest%l.Blocks
		forCombinations(l.Blocks, l.Key, func(chosen []int) {
			kb := 0
			for _, c := range chosen {
				kb += w
				if c < extra {
					kb++
				}
			}
			rec(level+1, key+kb, rest-kb)
		})
	}
	rec(0, 0, Bits)
	return out
}

// Candidates lists the designs ChooseDesign considers for distance k: one
// or two levels, each with Blocks-Key >= k, at most 256 tables.
func Candidates(k int) []Design {
	var singles []Level
	for b := k + 1; b <= min(Bits, k+8); b++ {
		for key := 1; key <= b-k; key++ {
			if key == b && k > 0 {
				continue
			}
			if binomial(b, key) <= 256 {
				singles = append(singles, Level{Blocks: b, Key: key})
			}
		}
	}
	var out []Design
	for _, l := range singles {
		d := Design{Levels: []Level{l}}
		if d.Validate() == nil {
			out = append(out, d)
		}
		if l.Key == l.Blocks {
			continue
		}
		for _, m := range singles {
			if m.Key == m.Blocks || binomial(l.Blocks, l.Key)*binomial(m.Blocks, m.Key) > 256 {
				continue
			}
			d2 := Design{Levels: []Level{l, m}}
			if d2.Validate() == nil {
				out = append(out, d2)
			}
		}
	}
	return out
}

// ChooseDesign picks the design with the lowest predicted query latency for
// distance k and n entries among those whose predicted memory is within
// maxBytesPerEntry (if none fits, the one using least memory), following
// Manku's analysis: more tables mean longer keys and fewer candidates, at a
// memory and probe cost per table.
func ChooseDesign(k, n int, maxBytesPerEntry float64) Design {
	if k <= 0 {
		return Design{Levels: []Level{{Blocks: 1, Key: 1}}}
	}
	var best, leanest Estimate
	found := false
	for i, d := range Candidates(k) {
		e := EstimateDesign(d, n)
		if i == 0 || e.BytesPerEntry < leanest.BytesPerEntry {
			leanest = e
		}
		if e.BytesPerEntry <= maxBytesPerEntry && (!found || e.QueryNs < best.QueryNs) {
			best, found = e, true
		}
	}
	if !found {
		return leanest.Design
	}
	return best.Design
}

// dirBits is the number of leading key bits a table's bucket directory
// resolves for n entries: about one bucket per two entries, never more than
// the key, at most 2^28 buckets.
func dirBits(keyBits, n int) int {
	b := bits.Len(uint(n)) - 2
	return max(1, min(b, keyBits, maxDirBits))
}

// maxDirBits is the widest directory a run has.
const maxDirBits = 28

func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// binomialUpTo returns C(n, k) for 0 <= k <= n, or limit+1 if that is
// larger, without overflowing where C(n, k) would.
func binomialUpTo(n, k, limit int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i // C(n-k+i, i), which grows with i
		if r > limit {
			return limit + 1
		}
	}
	return r
}

// table is one permuted table: the fingerprint bits reordered so that the
// table's key bits come first (most significant), then the other bits in
// their original order.
type table struct {
	keyMask uint64 // the key bits, in unpermuted positions
	keyBits int
	segs    []segment
	// pext is set when the key bits keep their order (every table of a
	// one-level design) and usePEXT: the segments' result is then two
	// PEXTs (pextPermute), whatever the number of runs.
	pext bool
	// top holds the positions of the first groupBits bits of the
	// permuted fingerprint when they keep their order, 0 otherwise:
	// tables with the same top share the first pass of their sort
	// (buildLevel).
	top uint64
	// sharedHi[db] holds, for a run with a directory of db bits, the key
	// masks of the earlier tables that lie wholly within the bits the run
	// stores, in the coordinates of its hi words (run.go); sharedRest[db]
	// holds every earlier table's key mask in the coordinates of a wide
	// run's rest words. A candidate whose stored bits agree with the
	// query's on one of them is reported through that earlier table, so
	// the query need not read its fingerprint (seenEarlier). Masks that
	// contain another are left out.
	sharedHi   [maxDirBits + 1][]uint32
	sharedRest [maxDirBits + 1][]uint64
}

// setShared fills t's sharedHi and sharedRest from the tables before it.
func (t *table) setShared(earlier []table) {
	for db := range uint(maxDirBits + 1) {
		var hi []uint32
		var rest []uint64
		for u := range earlier {
			pm := t.permute(earlier[u].keyMask)
			rest = appendMinimal(rest, pm<<db)
			if pm<<(db+32) == 0 {
				hi32 := uint32(pm << db >> 32)
				hi = appendMinimal(hi, hi32)
			}
		}
		t.sharedHi[db], t.sharedRest[db] = hi, rest
	}
}

// appendMinimal adds mask m to the set ms unless a mask of ms is contained
// in m, and drops the masks of ms that contain m: a value that is zero on a
// mask is zero on every mask inside it, so only the minimal masks are
// worth testing.
func appendMinimal[T uint32 | uint64](ms []T, m T) []T {
	out := ms[:0]
	for _, x := range ms {
		if x&m == x {
			return ms // x is inside m
		}
		if x&m != m {
			out = append(out, x) // x does not contain m
		}
	}
	return append(out, m)
}

// segment moves one run of contiguous bits: out |= (fp & mask) << shift
// (a right shift when shift < 0).
type segment struct {
	mask  uint64
	shift int
}

// permute returns fp with the table's bits reordered, key first.
func (t *table) permute(fp uint64) uint64 {
	if t.pext {
		return pextPermute(fp, t.keyMask, uint(Bits-t.keyBits))
	}
	var out uint64
	for _, s := range t.segs {
		if s.shift >= 0 {
			out |= (fp & s.mask) << uint(s.shift)
		} else {
			out |= (fp & s.mask) >> uint(-s.shift)
		}
	}
	return out
}

// buildTables enumerates the tables of a valid design. Bit positions are
// counted from the most significant bit (position 0).
func buildTables(d Design) []table {
	all := make([]int, Bits)
	for i := range all {
		all[i] = i
	}
	var out []table
	var rec func(level int, key, rest []int)
	rec = func(level int, key, rest []int) {
		if level == len(d.Levels) {
			out = append(out, makeTable(key, rest))
			return
		}
		l := d.Levels[level]
		blocks := splitBlocks(rest, l.Blocks)
		forCombinations(l.Blocks, l.Key, func(chosen []int) {
			k2 := append([]int(nil), key...)
			var r2 []int
			in := make([]bool, l.Blocks)
			for _, c := range chosen {
				in[c] = true
				k2 = append(k2, blocks[c]...)
			}
			for b := range blocks {
				if !in[b] {
					r2 = append(r2, blocks[b]...)
				}
			}
			rec(level+1, k2, r2)
		})
	}
	rec(0, nil, all)
	for t := range out {
		out[t].setShared(out[:t])
	}
	return out
}

// splitBlocks cuts pos into n contiguous blocks whose sizes differ by at
// most one, larger blocks first.
func splitBlocks(pos []int, n int) [][]int {
	out := make([][]int, n)
	w, extra := len(pos)/n, len(pos)%n
	at := 0
	for i := range out {
		sz := w
		if i < extra {
			sz++
		}
		out[i] = pos[at : at+sz]
		at += sz
	}
	return out
}

// forCombinations calls f with every k-subset of 0..n-1 in lexicographic
// order.
func forCombinations(n, k int, f func([]int)) {
	c := make([]int, k)
	for i := range c {
		c[i] = i
	}
	for {
		f(c)
		i := k - 1
		for i >= 0 && c[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		c[i]++
		for j := i + 1; j < k; j++ {
			c[j] = c[j-1] + 1
		}
	}
}

// makeTable builds the permutation that puts key positions first.
func makeTable(key, rest []int) table {
	order := append(append([]int(nil), key...), rest...)
	t := table{keyBits: len(key), pext: usePEXT && slices.IsSorted(key)}
	if slices.IsSorted(order[:groupBits]) {
		for _, p := range order[:groupBits] {
			t.top |= 1 << uint(Bits-1-p)
		}
	}
	for _, p := range key {
		t.keyMask |= 1 << uint(Bits-1-p)
	}
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j] == order[j-1]+1 {
			j++
		}
		var mask uint64
		for _, p := range order[i:j] {
			mask |= 1 << uint(Bits-1-p)
		}
		// source position order[i] goes to output position i.
		t.segs = append(t.segs, segment{mask: mask, shift: order[i] - i})
		i = j
	}
	return t
}
