package index

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/par"
)

// Entry is one stored fingerprint.
type Entry struct {
	ID   uint64 // caller's identifier; unique within an index
	FP   uint64 // 64-bit fingerprint
	Time int64  // unix seconds, used by ExpireBefore
	// Tag is a small value of the caller's, kept with the entry and
	// returned in its matches (the engine keeps a text's length there).
	// An index whose entries all have Tag 0 spends no memory on tags.
	Tag uint16
}

// Match is one query result.
type Match struct {
	ID       uint64
	FP       uint64
	Distance int    // Hamming distance between the query and FP
	Tag      uint16 // the entry's Entry.Tag
}

// Default option values.
const (
	DefaultExpectedN        = 1 << 20
	DefaultMaxBytesPerEntry = 60
	// MaxK is the largest K an index may be configured for.
	MaxK = 32
)

// ErrOptions is returned (wrapped) by Options.Validate and New for options
// out of range.
var ErrOptions = errors.New("index: bad options")

// Options configures an Index. The zero value is valid: an index for exact
// duplicates (K=0) sized for about a million entries.
type Options struct {
	// K is the largest distance queries answer through the tables, 0..32.
	// It has no default: zero means exact duplicates only. Queries for a
	// larger k still answer exactly, by probing several keys per table
	// or by a linear scan (see Wide).
	K int
	// ExpectedN is the number of entries the index is expected to hold; it
	// only guides the choice of design. Default DefaultExpectedN.
	ExpectedN int
	// MaxBytesPerEntry is the memory budget, in heap bytes per entry, within
	// which the design is chosen. Default DefaultMaxBytesPerEntry (60).
	MaxBytesPerEntry float64
	// Design, if not zero, is used instead of a chosen one; its MaxK must be
	// at least K.
	Design Design
	// Adaptive makes the index choose its design again, for twice the
	// entries it then holds, whenever it rebuilds all its tables (which it
	// does as it grows by about a quarter, and after many removals): a
	// growing index starts with few tables and gains tables as it needs
	// them, at no cost beyond the rebuilds it makes anyway. ExpectedN (or
	// Design) then only gives the first design. Keys change with the
	// design, so an adaptive index's Keys must not be used to order
	// operations. Default false: the design never changes.
	Adaptive bool
	// Sizes, if set, gives the design by the index's size, in place of
	// Adaptive's choice: whenever the index rebuilds all its tables (as it
	// grows by about a quarter, and after many removals), it takes the
	// first design whose UpTo is at least the entries it then holds, or the
	// last one. Design, or else the one for ExpectedN, is the first. Each
	// design's MaxK must be at least K. As with Adaptive, Keys change with
	// the design.
	Sizes []SizedDesign
	// Wide keeps all 64 bits of every entry in each table, 4 bytes more
	// per entry and table. It speeds up queries beyond K with designs of
	// one level of single-block keys (4/1, 5/1, ...), which probe several
	// keys per table (see Query): candidates are then checked against
	// their whole fingerprint without loading it. Default false.
	Wide bool
	// WideIfFits makes the tables wide, as Wide does, whenever the design
	// fits MaxBytesPerEntry with them wide (by EstimateDesign, for the
	// entries the design is chosen for, and 4 bytes more per entry and
	// table); an adaptive index decides again each time it chooses its
	// design. It pays on correlated fingerprints at distances of 5 and
	// more, whose keys are short and crowded: there most entries that pass
	// a table's 32 stored bits fail on the others, and each costs two
	// reads that a wide table does without (SimHash of generated text,
	// 200,000 entries, k=6, design 7/1: about 80 such candidates a query,
	// and a query 20-25% cheaper wide; docs/PERFORMANCE.md). Default
	// false.
	WideIfFits bool
	// MaxBytes, if positive, bounds the memory of an Adaptive index, the
	// copy of its tables that a full rebuild holds until it is swapped in
	// included: each full rebuild chooses its design, and whether it is
	// wide, within the lesser of MaxBytesPerEntry and MaxBytes / (2.5 n)
	// bytes an entry for the n entries it then holds (two copies, and a
	// quarter of growth until the next full rebuild), the leanest design
	// when none fits. As the index grows it thus moves to fewer tables.
	// Where that leaves only designs of one level keyed on one block each
	// (7/1 for K 6: keys of 9 bits, whose buckets grow with the index),
	// it takes instead a design of a few tables with longer keys that
	// answers K by probing (see Query), when that is predicted to cost
	// less: 3/1 or 4/1 for K 6. Default 0: no bound.
	MaxBytes int64
}

// SizedDesign is a design for an index of at most UpTo entries (see
// Options.Sizes).
type SizedDesign struct {
	UpTo   int
	Design Design
}

// rebuildDesign returns the design a full rebuild of an index of n
// entries takes (Sizes, or Adaptive's choice) and the entries it is chosen
// for; ok is false when the design never changes.
func (o *Options) rebuildDesign(n int) (d Design, forN int, ok bool) {
	switch {
	case len(o.Sizes) > 0:
		return sizedDesign(o.Sizes, n), n, true
	case o.Adaptive:
		forN = max(2*n, 1)
		budget := o.budget(n)
		d = ChooseDesign(o.K, forN, budget)
		if budget < o.MaxBytesPerEntry { // MaxBytes binds
			d = probeDesign(o.K, forN, budget, d)
		}
		return d, forN, true
	}
	return Design{}, 0, false
}

// budget returns the bytes an entry that the design of an index of n
// entries may take: MaxBytesPerEntry, or less under MaxBytes.
func (o *Options) budget(n int) float64 {
	if o.MaxBytes <= 0 {
		return o.MaxBytesPerEntry
	}
	return min(o.MaxBytesPerEntry, float64(o.MaxBytes)/(2.5*float64(max(n, 1))))
}

// sizedDesign returns the design of sizes for an index of n entries.
func sizedDesign(sizes []SizedDesign, n int) Design {
	for _, s := range sizes {
		if n <= s.UpTo {
			return s.Design
		}
	}
	return sizes[len(sizes)-1].Design
}

// wideFor reports whether the tables of design d, chosen for forN entries
// when the index holds n, are wide (Wide, WideIfFits).
func (o *Options) wideFor(d Design, forN, n int) bool {
	if o.Wide || !o.WideIfFits {
		return o.Wide
	}
	return fitsWide(EstimateDesign(d, forN), o.budget(n))
}

// fitsWide reports whether a design of estimate e fits budget bytes an
// entry with its tables wide: 4 bytes more an entry and table.
func fitsWide(e Estimate, budget float64) bool {
	return e.BytesPerEntry+4*float64(e.Tables) <= budget
}

// Validate reports whether the options are in range. Errors wrap ErrOptions
// (or ErrDesign for a bad Design).
func (o Options) Validate() error {
	if o.K < 0 || o.K > MaxK {
		return fmt.Errorf("%w: k %d out of range 0..%d", ErrOptions, o.K, MaxK)
	}
	if o.ExpectedN < 0 {
		return fmt.Errorf("%w: negative expected n %d", ErrOptions, o.ExpectedN)
	}
	if o.MaxBytes < 0 {
		return fmt.Errorf("%w: negative memory bound %d", ErrOptions, o.MaxBytes)
	}
	if o.MaxBytesPerEntry < 0 || math.IsNaN(o.MaxBytesPerEntry) {
		return fmt.Errorf("%w: bad memory budget %v", ErrOptions, o.MaxBytesPerEntry)
	}
	if !o.Design.IsZero() {
		if err := o.Design.Validate(); err != nil {
			return err
		}
		if o.Design.MaxK() < o.K && !(o.Adaptive && probeRadii(o.Design, o.K) != nil) {
			return fmt.Errorf("%w: design %s answers k <= %d, not %d", ErrDesign, o.Design, o.Design.MaxK(), o.K)
		}
	}
	for i, sd := range o.Sizes {
		if err := sd.Design.Validate(); err != nil {
			return fmt.Errorf("%w (sizes[%d])", err, i)
		}
		if sd.Design.MaxK() < o.K {
			return fmt.Errorf("%w: sizes[%d]: design %s answers k <= %d, not %d", ErrDesign, i, sd.Design, sd.Design.MaxK(), o.K)
		}
		if sd.UpTo < 0 || i > 0 && sd.UpTo <= o.Sizes[i-1].UpTo {
			return fmt.Errorf("%w: sizes[%d]: up to %d entries, after %d", ErrOptions, i, sd.UpTo, o.Sizes[max(i-1, 0)].UpTo)
		}
	}
	return nil
}

// withDefaults fills in defaults and the design.
func (o Options) withDefaults() Options {
	if o.ExpectedN == 0 {
		o.ExpectedN = DefaultExpectedN
	}
	if o.MaxBytesPerEntry == 0 {
		o.MaxBytesPerEntry = DefaultMaxBytesPerEntry
	}
	switch {
	case !o.Design.IsZero():
	case len(o.Sizes) > 0:
		o.Design = sizedDesign(o.Sizes, o.ExpectedN)
	default:
		o.Design = ChooseDesign(o.K, o.ExpectedN, o.MaxBytesPerEntry)
	}
	return o
}

// Sizes of the write buffers: new entries are scanned linearly until
// bufCap() of them accumulate, then sorted into tiers of sorted runs, tier
// j holding at most bufCap()*8^(j+1) entries (a log-structured merge); the
// tiers are folded into the main level once a merge would make a tier of
// more than max(mainMin, Len()/4) entries.
const (
	pendCap   = 256
	mainMin   = 1 << 15
	lockChunk = 2048 // entries changed per write-lock hold in bulk operations

	probeGroup = 16 // tables whose buckets a query locates before scanning
	touchGroup = 16 // entries of AddBatch whose id map cells are loaded before any is added
	candBatch  = 32 // candidates whose full fingerprints a query loads together
)

// bufCap returns the size of the buffer of recent entries that every query
// scans linearly. A bigger buffer means fewer, larger tiers, so each entry
// is sorted into the tables fewer times, at the cost of a longer scan: with
// AVX-512 the scan is about five times cheaper, and 4096 entries (about
// 0.8 µs a query) saved 10% of the CPU of `neardup bench engine --docs
// 1000000` against 512.
func bufCap() int {
	if useAVX512 {
		return 4096
	}
	return 512
}

// Index is a mutable multi-table Hamming index of 64-bit fingerprints.
// Make one with New or ReadIndex: the zero Index is not usable, and its
// methods may panic.
//
// Any number of goroutines may query (Query, First, Nearest, Keys, Len,
// WriteTo) while others change the index (Add, AddBatch, Remove,
// ExpireBefore); changes are serialized among themselves. A query sees each
// change either entirely or not at all, except that a bulk change (AddBatch,
// ExpireBefore) becomes visible in chunks. Readers are never blocked for
// longer than one chunk of a bulk change or one swap of rebuilt tables.
type Index struct {
	fmu sync.Mutex   // serializes flushes; taken before wmu, or tried while holding it
	wmu sync.Mutex   // serializes writers
	mu  sync.RWMutex // readers hold it shared; writers exclusively while changing what readers see

	opts Options
	tabs []table
	wide bool // the tables keep all 64 bits (Options.Wide, WideIfFits)

	// Slot columns: entry i of the index lives in slot i.
	fps   []uint64
	ids   []uint64
	tags  []uint16 // nil until an entry has a tag
	times timeCol
	live  []uint64 // bitset of slots holding a live entry
	n     int      // live entries
	byID  idMap
	free  []uint32 // slots referenced by no run, ready for reuse
	dead  []uint32 // removed slots still referenced by a run or buf

	// levels[0] is the main level; levels[j+1] is tier j (nil when empty).
	levels []level
	// tierFP[j] holds the fingerprints of level j (a tier, j >= 1) in the
	// order of its first table's slots, so that a query probing the main
	// level can scan a small tier instead (see probePlan); nil for the
	// main level and empty tiers.
	tierFP [][]uint64
	buf    []uint32 // newest slots, scanned linearly (may hold dead slots)
	bufFP  []uint64 // their fingerprints

	// Entries added one at a time go first to the pending arrays, which
	// readers scan without waiting for writers: Add writes element npend
	// and then publishes the new count, so a reader that loads the count
	// sees complete entries. Only moving them into slots (materialize,
	// every pendCap adds and before any other change) takes mu exclusively,
	// so a stream of single adds does not stall queries at every add.
	pendFP, pendID []uint64
	pendTime       []int64
	pendTag        []uint16
	npend          atomic.Int32

	bufCap, mainMin int    // flush thresholds (tests lower them)
	probe           int    // tests: 1 probes beyond K where the design allows it in at most 4096 probes, 2 the same but scanning every tier, -1 never, 0 by cost
	whileBuilding   func() // tests: called while a tier Add started is built in the background
}

// New returns an empty index. It returns an error wrapping ErrOptions or
// ErrDesign when opts is invalid.
func New(opts Options) (*Index, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	ix := &Index{opts: opts, tabs: buildTables(opts.Design), byID: newIDMap(0), bufCap: bufCap(), mainMin: mainMin,
		pendFP: make([]uint64, pendCap), pendID: make([]uint64, pendCap), pendTime: make([]int64, pendCap), pendTag: make([]uint16, pendCap)}
	ix.wide = opts.wideFor(opts.Design, opts.ExpectedN, 0)
	ix.levels = []level{buildLevel(ix.tabs, nil, nil, ix.wide)}
	return ix, nil
}

// MaxBytes returns Options.MaxBytes, as set by New or SetMaxBytes.
func (ix *Index) MaxBytes() int64 {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	return ix.opts.MaxBytes
}

// SetMaxBytes sets Options.MaxBytes (negative counts as 0), which a
// snapshot does not keep: an index read from one gets it this way. It
// applies from the next full rebuild.
func (ix *Index) SetMaxBytes(n int64) {
	ix.wmu.Lock() // flushes read the options holding wmu
	ix.opts.MaxBytes = max(n, 0)
	ix.wmu.Unlock()
}

// K returns the distance the index is made for (Options.K): the largest
// its tables answer by their keys, unless a memory bound made an adaptive
// index take a design that answers it by probing (see Options.MaxBytes).
func (ix *Index) K() int { return ix.opts.K }

// tableK returns the largest distance the current design's tables answer
// by their keys: K, or less for a design that answers K by probing. The
// caller holds mu.
func (ix *Index) tableK() int { return min(ix.opts.K, ix.opts.Design.MaxK()) }

// Design returns (a copy of) the current design of the index.
func (ix *Index) Design() Design {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return Design{Levels: slices.Clone(ix.opts.Design.Levels)}
}

// Adaptive reports whether the index chooses its design again as it
// grows and shrinks (Options.Adaptive).
func (ix *Index) Adaptive() bool { return ix.opts.Adaptive }

// Sizes returns (a copy of) the designs the index takes by its size
// (Options.Sizes).
func (ix *Index) Sizes() []SizedDesign {
	out := make([]SizedDesign, len(ix.opts.Sizes))
	for i, sd := range ix.opts.Sizes {
		out[i] = SizedDesign{UpTo: sd.UpTo, Design: Design{Levels: slices.Clone(sd.Design.Levels)}}
	}
	return out
}

// WideIfFits reports whether the index makes its tables wide when its
// design allows (Options.WideIfFits).
func (ix *Index) WideIfFits() bool { return ix.opts.WideIfFits }

// Wide reports whether the tables keep all 64 bits of every entry now
// (Options.Wide, or WideIfFits and a design that fits).
func (ix *Index) Wide() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.wide
}

// Tables returns the current number of tables.
func (ix *Index) Tables() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.tabs)
}

// Len returns the number of entries.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.n + int(ix.npend.Load())
}

// Bytes returns the memory the index holds in its arrays (their
// capacities): fingerprints, ids, times and tags, the tables of every
// level, the id map and the buffers. A tier being built in the background
// is not counted until it is installed, nor is what the Go runtime holds
// besides.
func (ix *Index) Bytes() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	b := 8*(cap(ix.fps)+cap(ix.ids)+cap(ix.live)+cap(ix.bufFP)+cap(ix.pendFP)+cap(ix.pendID)+cap(ix.pendTime)) +
		4*(cap(ix.times.narrow)+cap(ix.byID.cells)+cap(ix.free)+cap(ix.dead)+cap(ix.buf)) +
		8*cap(ix.times.wide) + 2*(cap(ix.tags)+cap(ix.pendTag))
	for _, l := range ix.levels {
		for _, r := range l {
			b += 4*(cap(r.dir)+cap(r.hi)+cap(r.slot)) + 8*cap(r.rest)
		}
	}
	for _, fps := range ix.tierFP {
		b += 8 * cap(fps)
	}
	return int64(b)
}

func (ix *Index) isLive(s uint32) bool { return ix.live[s>>6]&(1<<(s&63)) != 0 }

// Add inserts e; an entry with the same ID is replaced. Queries running
// meanwhile are not held up unless a batch of recent adds is being moved
// into the tables. When its buffer of recent entries is full, Add starts
// sorting it into a tier in the background and returns: no caller waits
// for a tier or a rebuild of the main level, which can take seconds in a
// large index.
func (ix *Index) Add(e Entry) {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	n := int(ix.npend.Load())
	if _, ok := ix.byID.get(e.ID, ix.ids); ok || slices.Contains(ix.pendID[:n], e.ID) {
		ix.mu.Lock()
		ix.materializeLocked()
		ix.addLocked(e)
		ix.mu.Unlock()
	} else {
		ix.pendFP[n], ix.pendID[n], ix.pendTime[n], ix.pendTag[n] = e.FP, e.ID, e.Time, e.Tag
		ix.npend.Store(int32(n + 1))
		if n+1 < len(ix.pendFP) {
			return
		}
		ix.materialize()
	}
	// The buffer is full: sort it into a tier in the background, unless
	// another flush is already under way (the buffer then grows until a
	// later Add finds none). The builder holds fmu until it has installed
	// the tier; writers go on meanwhile.
	if len(ix.buf) >= ix.bufCap && ix.fmu.TryLock() {
		p := ix.planFlush(false)
		fps := ix.fps
		go func() {
			if ix.whileBuilding != nil {
				ix.whileBuilding()
			}
			l := buildLevel(p.tabs, p.slots, fps, p.wide)
			lfp := tierFingerprints(p, l, fps)
			ix.wmu.Lock()
			ix.installFlush(p, l, lfp)
			ix.wmu.Unlock()
			ix.fmu.Unlock()
		}()
	}
}

// materialize moves the pending entries into slots and the buffer. The
// caller holds wmu.
func (ix *Index) materialize() {
	if ix.npend.Load() == 0 {
		return
	}
	ix.mu.Lock()
	ix.materializeLocked()
	ix.mu.Unlock()
}

// materializeLocked is materialize for a caller holding wmu and mu.
func (ix *Index) materializeLocked() {
	n := int(ix.npend.Load())
	for i := range n {
		ix.addLocked(Entry{ID: ix.pendID[i], FP: ix.pendFP[i], Time: ix.pendTime[i], Tag: ix.pendTag[i]})
	}
	ix.npend.Store(0)
}

// addLocked replaces or inserts e into the buffer.
func (ix *Index) addLocked(e Entry) {
	ix.removeLocked(e.ID)
	s := ix.allocLocked(e)
	ix.buf = append(ix.buf, s)
	ix.bufFP = append(ix.bufFP, e.FP)
}

// AddBatch inserts every entry of es, as Add would one after the other
// (a later entry replaces an earlier one with the same ID), but sorts them
// into the tables in bulk. Entries become visible to queries in chunks; all
// are visible when AddBatch returns. Until the batch is sorted in, queries
// also scan it linearly, so they slow down during a large batch.
func (ix *Index) AddBatch(es []Entry) {
	ix.fmu.Lock()
	defer ix.fmu.Unlock()
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if ix.tabs == nil {
		panic("index: AddBatch on an Index not made by New or ReadIndex")
	}
	ix.materialize()
	need := len(es) - len(ix.free)
	if need > 0 {
		ix.mu.Lock()
		ix.fps = growExact(ix.fps, need)
		ix.ids = growExact(ix.ids, need)
		if ix.tags != nil {
			ix.tags = growExact(ix.tags, need)
		}
		ix.times.reserve(need)
		ix.live = growExact(ix.live, (len(ix.fps)+need+63)/64-len(ix.live))
		ix.buf = growExact(ix.buf, len(es))
		ix.bufFP = growExact(ix.bufFP, len(es))
		if ix.byID.n+len(es) > len(ix.byID.cells)*3/4 {
			ix.byID.grow(ix.ids, ix.byID.n+len(es))
		}
		ix.mu.Unlock()
	}
	for len(es) > 0 {
		chunk := es[:min(len(es), lockChunk)]
		es = es[len(chunk):]
		ix.mu.Lock()
		for i := 0; i < len(chunk); i += touchGroup {
			g := chunk[i:min(len(chunk), i+touchGroup)]
			runtime.KeepAlive(ix.byID.touch(g, ix.ids))
			for _, e := range g {
				ix.addLocked(e)
			}
		}
		ix.mu.Unlock()
	}
	if len(ix.buf) >= ix.bufCap {
		ix.flush(false)
	}
}

// allocLocked stores e in a free slot and returns it.
func (ix *Index) allocLocked(e Entry) uint32 {
	if e.Tag != 0 && ix.tags == nil {
		ix.tags = make([]uint16, len(ix.fps), cap(ix.fps))
	}
	var s uint32
	if n := len(ix.free); n > 0 {
		s = ix.free[n-1]
		ix.free = ix.free[:n-1]
		ix.fps[s], ix.ids[s] = e.FP, e.ID
		if ix.tags != nil {
			ix.tags[s] = e.Tag
		}
		ix.times.set(s, e.Time)
	} else {
		s = uint32(len(ix.fps))
		ix.fps = append(ix.fps, e.FP)
		ix.ids = append(ix.ids, e.ID)
		if ix.tags != nil {
			ix.tags = append(ix.tags, e.Tag)
		}
		ix.times.push(e.Time)
		if int(s>>6) >= len(ix.live) {
			ix.live = append(ix.live, 0)
		}
	}
	ix.live[s>>6] |= 1 << (s & 63)
	ix.byID.put(e.ID, s, ix.ids)
	ix.n++
	return s
}

// Remove deletes the entry with the given id and reports whether there was one.
func (ix *Index) Remove(id uint64) bool {
	ix.fmu.Lock()
	defer ix.fmu.Unlock()
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.mu.Lock()
	ix.materializeLocked()
	ok := ix.removeLocked(id)
	ix.mu.Unlock()
	ix.maybeCompact()
	return ok
}

func (ix *Index) removeLocked(id uint64) bool {
	s, ok := ix.byID.get(id, ix.ids)
	if !ok {
		return false
	}
	ix.killLocked(s)
	ix.byID.del(id, ix.ids)
	return true
}

// killLocked marks slot s dead: what readers see of a removal. The id map
// is the writers' alone (readers never use it), so callers may update it
// after releasing the lock.
func (ix *Index) killLocked(s uint32) {
	ix.live[s>>6] &^= 1 << (s & 63)
	ix.n--
	ix.dead = append(ix.dead, s)
}

// ExpireBefore removes every entry whose Time is before t and returns how
// many it removed. Queries keep running meanwhile: removals are applied in
// chunks, and rebuilt tables are swapped in at the end.
func (ix *Index) ExpireBefore(t int64) int {
	ix.fmu.Lock()
	defer ix.fmu.Unlock()
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.materialize()
	var victims []uint32
	for w, word := range ix.live {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			s := uint32(w*64 + b)
			if ix.times.get(s) < t {
				victims = append(victims, s)
			}
		}
	}
	removed := len(victims)
	for len(victims) > 0 {
		chunk := victims[:min(len(victims), lockChunk)]
		victims = victims[len(chunk):]
		ix.mu.Lock()
		for _, s := range chunk {
			ix.killLocked(s)
		}
		ix.mu.Unlock()
		for _, s := range chunk {
			ix.byID.del(ix.ids[s], ix.ids)
		}
	}
	ix.maybeCompact()
	return removed
}

// maybeCompact rebuilds the tables when dead entries take more than an
// eighth of them.
func (ix *Index) maybeCompact() {
	if len(ix.dead) > ix.bufCap && len(ix.dead) > ix.n/8 {
		ix.flush(true)
	}
}

// flush merges the buffer into the first tier that can hold it together
// with the smaller tiers, or, when the tiers have outgrown their share (or
// full is set), rebuilds the main level from every live entry, which also
// drops dead entries for good. Building happens outside the read-write
// lock; only the swap holds it. The caller holds fmu and wmu.
func (ix *Index) flush(full bool) {
	p := ix.planFlush(full)
	l := buildLevel(p.tabs, p.slots, ix.fps, p.wide)
	ix.installFlush(p, l, tierFingerprints(p, l, ix.fps))
}

// tierFingerprints returns the fingerprints of l, the level built for p,
// in the order of its first table's slots when it is a tier, else nil.
func tierFingerprints(p flushPlan, l level, fps []uint64) []uint64 {
	if p.tier == 0 || len(l) == 0 {
		return nil
	}
	out := make([]uint64, len(l[0].slot))
	for i, s := range l[0].slot {
		out[i] = fps[s]
	}
	return out
}

// flushPlan is what a flush builds and replaces.
type flushPlan struct {
	slots []uint32 // the slots of the new level
	tier  int      // the level it replaces: 0 the main level (a full rebuild), j+1 tier j
	nbuf  int      // entries at the head of the buffer it takes in
	ndead int      // dead slots it frees (full rebuilds)
	tabs  []table  // the tables it is built for
	wide  bool     // whether they are wide
	// design is the new design when a full rebuild changes it (Adaptive),
	// zero otherwise.
	design Design
}

// planFlush chooses what flush(full) rebuilds. The caller holds fmu and
// wmu; while it builds the level it may release wmu, since only flushes
// change the levels and only whole plans free slots.
func (ix *Index) planFlush(full bool) flushPlan {
	p := flushPlan{nbuf: len(ix.buf), tabs: ix.tabs, wide: ix.wide}
	p.slots = ix.appendLiveSlots(nil, ix.buf)
	for j := 0; ; j++ {
		if j+1 < len(ix.levels) {
			p.slots = ix.appendLive(p.slots, ix.levels[j+1])
		}
		// Fold everything into the main level once the tiers would hold
		// more than a quarter of the index: a full rebuild then comes
		// every quarter of growth, whatever the tiers' capacities.
		if full || len(p.slots) > max(ix.mainMin, ix.n/4) {
			break
		}
		if len(p.slots) <= ix.bufCap<<(3*(j+1)) {
			p.tier = j + 1
			return p
		}
	}
	// Every live entry is in the main level, a tier or the buffer: walk the
	// live bits, so fingerprints are read in slot order.
	p.slots = ix.appendLiveBits(make([]uint32, 0, ix.n))
	p.ndead = len(ix.dead)
	if d, n, ok := ix.opts.rebuildDesign(len(p.slots)); ok {
		if !slices.Equal(d.Levels, ix.opts.Design.Levels) {
			p.design, p.tabs = d, buildTables(d)
		}
		p.wide = ix.opts.wideFor(d, n, len(p.slots))
	}
	return p
}

// installFlush swaps in the level built for p, with lfp its fingerprints
// when it is a tier. Entries added to the buffer and slots killed since p
// was planned stay where they are. The caller holds fmu and wmu.
func (ix *Index) installFlush(p flushPlan, l level, lfp []uint64) {
	ix.mu.Lock()
	if p.tier == 0 {
		ix.levels = []level{l}
		ix.tierFP = nil
		ix.wide = p.wide
		if !p.design.IsZero() {
			ix.opts.Design, ix.tabs = p.design, p.tabs
		}
	} else {
		for len(ix.levels) < p.tier+1 {
			ix.levels = append(ix.levels, nil)
		}
		for len(ix.tierFP) < len(ix.levels) {
			ix.tierFP = append(ix.tierFP, nil)
		}
		clear(ix.levels[1:p.tier])
		clear(ix.tierFP[1:p.tier])
		ix.levels[p.tier] = l
		ix.tierFP[p.tier] = lfp
	}
	ix.dropBufHeadLocked(p.nbuf)
	ix.mu.Unlock()
	if p.tier == 0 {
		// The free and dead lists are the writers' alone. Slots killed
		// while the level was built are still in it.
		ix.free = append(ix.free, ix.dead[:p.ndead]...)
		ix.dead = append(ix.dead[:0], ix.dead[p.ndead:]...)
	}
}

// appendLiveBits appends every live slot in ascending order.
func (ix *Index) appendLiveBits(dst []uint32) []uint32 {
	for w, word := range ix.live {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			dst = append(dst, uint32(w*64+b))
		}
	}
	return dst
}

// dropBufHeadLocked removes the first n entries of the buffer, releasing
// the memory a bulk load made it grow to.
func (ix *Index) dropBufHeadLocked(n int) {
	rest, restFP := ix.buf[n:], ix.bufFP[n:]
	if cap(ix.buf) > 4*ix.bufCap && len(rest) <= ix.bufCap {
		ix.buf = append(make([]uint32, 0, ix.bufCap), rest...)
		ix.bufFP = append(make([]uint64, 0, ix.bufCap), restFP...)
		return
	}
	ix.buf = ix.buf[:copy(ix.buf, rest)]
	ix.bufFP = ix.bufFP[:copy(ix.bufFP, restFP)]
}

func (ix *Index) appendLive(dst []uint32, l level) []uint32 {
	if len(l) == 0 {
		return dst
	}
	return ix.appendLiveSlots(dst, l[0].slot)
}

func (ix *Index) appendLiveSlots(dst, slots []uint32) []uint32 {
	for _, s := range slots {
		if ix.isLive(s) {
			dst = append(dst, s)
		}
	}
	return dst
}

// visitor receives each match (id, fingerprint, distance); it returns the
// distance bound to continue with and false to stop.
type visitor func(id, fp uint64, tag uint16, d int) (int, bool)

// tag returns the tag of slot s. The caller holds mu.
func (ix *Index) tag(s uint32) uint16 {
	if ix.tags == nil {
		return 0
	}
	return ix.tags[s]
}

// search calls visit once for every live entry within k of q. The caller
// holds mu shared.
func (ix *Index) search(q uint64, k int, visit visitor) {
	if k < 0 {
		return
	}
	if k > ix.tableK() {
		radii := probeRadii(ix.opts.Design, k)
		if scan, ok := ix.probePlan(radii, &singleCost); ok {
			if ix.searchProbe(q, k, radii, scan, visit) && ix.scanTiers(q, k, scan, visit) {
				ix.scanRecent(q, k, visit)
			}
			return
		}
		ix.scanAll(q, k, visit)
		return
	}
	for t0 := 0; t0 < len(ix.tabs); t0 += probeGroup {
		tabs := ix.tabs[t0:min(len(ix.tabs), t0+probeGroup)]
		var pq [probeGroup]uint64
		for i := range tabs {
			pq[i] = tabs[i].permute(q)
		}
		for _, l := range ix.levels {
			if len(l) == 0 {
				continue
			}
			// Find every table's bucket first, then scan them: the
			// directory and bucket loads of different tables are
			// independent, so the processor overlaps their misses. The
			// directory cells are loaded in a loop of their own first:
			// bucket, a call that may search, kept those misses apart.
			// In BenchmarkQuery at 1M entries, 7 rounds, a query took
			// 14-15% less time on average on 5/2, 4/1,4/1 and 6/3 (less
			// in every round); 4/1 moved within the noise.
			var lo, hi [probeGroup]int
			var cells uint32
			for i := range tabs {
				cells += l[t0+i].dirCell(pq[i])
			}
			runtime.KeepAlive(cells)
			for i := range tabs {
				r := &l[t0+i]
				xbits := extraKeyBits(uint(tabs[i].keyBits), r.dbits)
				lo[i], hi[i] = r.bucket(pq[i], xbits)
			}
			// Touch the cache lines of every bucket (the first touchMax
			// entries) before scanning any: the loads are independent,
			// so their misses overlap instead of arriving one line at a
			// time during the scans.
			var touch uint64
			for i := range tabs {
				touch += l[t0+i].touch(lo[i], min(hi[i], lo[i]+touchMax))
			}
			runtime.KeepAlive(touch)
			for i := range tabs {
				var more bool
				if k, more = ix.scanTable(t0+i, &l[t0+i], lo[i], hi[i], q, pq[i], k, visit); !more {
					return
				}
			}
		}
	}
	ix.scanRecent(q, k, visit)
}

// scanTable visits the entries of bucket lo..hi of r, the run of table t
// of a level, within k of q (pq: q permuted for t) that table t reports:
// those whose first table sharing their key is t. It returns the bound to
// go on with and whether visit asked to go on. The caller holds mu shared.
func (ix *Index) scanTable(t int, r *tableRun, lo, hi int, q, pq uint64, k int, visit visitor) (int, bool) {
	base := r.slot[lo:hi]
	// Candidates that pass the stored bits are checked in batches: their
	// slot and fingerprint loads do not depend on each other, so the
	// processor overlaps them, which matters in crowded buckets of
	// correlated fingerprints, where most candidates fail on the bits not
	// stored.
	var cand [candBatch]int32
	var fps [candBatch]uint64
	n := 0
	check := func() bool {
		for c := range n {
			fps[c] = ix.fps[base[cand[c]]]
		}
		for c := range n {
			s := base[cand[c]]
			x := q ^ fps[c]
			d := bits.OnesCount64(x)
			// Report each match through the first table sharing its key.
			if d > k || x&ix.tabs[t].keyMask != 0 || firstSharedTable(ix.tabs, x, t) != t || !ix.isLive(s) {
				continue
			}
			var more bool
			if k, more = visit(ix.ids[s], fps[c], ix.tag(s), d); !more {
				return false
			}
		}
		n = 0
		return true
	}
	more := r.scanBucket(lo, hi, pq, k, func(j int) bool {
		if r.seenEarlier(&ix.tabs[t], lo+j, pq) {
			return true
		}
		cand[n] = int32(j)
		n++
		return n < candBatch || check()
	}) && check()
	return k, more
}

// scanRecent visits the entries of the buffer and the pending ones within
// k of q. The caller holds mu shared.
func (ix *Index) scanRecent(q uint64, k int, visit visitor) {
	more := eachNear(ix.bufFP, q, &k, func(i, d int) bool {
		if !ix.isLive(ix.buf[i]) {
			return true
		}
		var more bool
		k, more = visit(ix.ids[ix.buf[i]], ix.bufFP[i], ix.tag(ix.buf[i]), d)
		return more
	})
	if more {
		ix.scanPending(q, k, visit)
	}
}

// eachNear calls f(i, d) for every fps[i] within *k of q, at distance d,
// in order, testing 64 at a time with nearMask; f may lower *k, and stops
// the walk by returning false. eachNear reports whether it ran to the end.
func eachNear(fps []uint64, q uint64, k *int, f func(i, d int) bool) bool {
	for b := 0; b < len(fps); b += 64 {
		for m := nearMask(fps[b:min(len(fps), b+64)], q, *k); m != 0; m &= m - 1 {
			i := b + bits.TrailingZeros64(m)
			if d := bits.OnesCount64(q ^ fps[i]); d <= *k && !f(i, d) {
				return false
			}
		}
	}
	return true
}

// scanPending visits the pending entries within k of q. The caller holds
// mu shared.
func (ix *Index) scanPending(q uint64, k int, visit visitor) {
	n := int(ix.npend.Load())
	eachNear(ix.pendFP[:n], q, &k, func(i, d int) bool {
		var more bool
		k, more = visit(ix.pendID[i], ix.pendFP[i], ix.pendTag[i], d)
		return more
	})
}

// scanAll is the exact fallback for k beyond the design: a linear scan of
// the slot columns, 64 slots (one word of live bits) at a time, each word
// tested at once by nearMask.
func (ix *Index) scanAll(q uint64, k int, visit visitor) {
	if k, ok := ix.scanWords(0, len(ix.live), q, k, visit); ok {
		ix.scanPending(q, k, visit)
	}
}

// scanWords visits the live slots of live words w0 to w1 within k of q,
// and returns the distance bound to go on with and whether visit asked to
// go on. The caller holds mu shared.
func (ix *Index) scanWords(w0, w1 int, q uint64, k int, visit visitor) (int, bool) {
	fps := ix.fps
	for w := w0; w < w1; w++ {
		word := ix.live[w]
		if word == 0 {
			continue
		}
		base := w * 64
		for m := nearMask(fps[base:min(len(fps), base+64)], q, k) & word; m != 0; m &= m - 1 {
			s := base + bits.TrailingZeros64(m)
			if d := bits.OnesCount64(q ^ fps[s]); d <= k {
				var more bool
				if k, more = visit(ix.ids[s], fps[s], ix.tag(uint32(s)), d); !more {
					return k, false
				}
			}
		}
	}
	return k, true
}

// Query appends to dst every entry within distance k of fp, each once, and
// returns the extended slice. Matches are ordered by distance, then ID. For
// k above K() the answer is still exact, found by probing several keys per
// table or by a linear scan, whichever the index predicts to be cheaper
// (see Options.Wide); for negative k it is empty.
func (ix *Index) Query(fp uint64, k int, dst []Match) []Match {
	start := len(dst)
	ix.mu.RLock()
	ix.search(fp, k, appendMatches(&dst, k))
	ix.mu.RUnlock()
	if len(dst)-start > 1 {
		slices.SortFunc(dst[start:], compareMatch)
	}
	return dst
}

func compareMatch(a, b Match) int {
	if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// First returns some entry within distance k of fp, if there is one; it
// stops at the first match found, so it is cheaper than Query.
func (ix *Index) First(fp uint64, k int) (Match, bool) {
	var m Match
	found := false
	ix.mu.RLock()
	ix.search(fp, k, func(id, fp uint64, tag uint16, d int) (int, bool) {
		m, found = Match{ID: id, FP: fp, Distance: d, Tag: tag}, true
		return k, false
	})
	ix.mu.RUnlock()
	return m, found
}

// Nearest returns the entry within distance k of fp that is closest to it
// (the lowest ID among equally close ones), if there is one: QueryNearest
// for one entry, which narrows the search as closer entries turn up.
func (ix *Index) Nearest(fp uint64, k int) (Match, bool) {
	var one [1]Match
	if ms := ix.QueryNearest(fp, k, 1, nil, one[:0]); len(ms) > 0 {
		return ms[0], true
	}
	return Match{}, false
}

// QueryNearest appends to dst the n entries within distance k of fp that
// are nearest to it and that keep accepts (nil: any), in Query's order (by
// distance, then ID), and returns the extended slice: Query's answer,
// filtered, cut to its first n. Once n entries are found the search
// narrows to the farthest of them, so a wide k (up to 64, which every
// entry is within) costs one pass over the index, not a Match for each
// entry, and no sort of them all. For n <= 0 or negative k it appends
// nothing.
func (ix *Index) QueryNearest(fp uint64, k, n int, keep func(Match) bool, dst []Match) []Match {
	if n <= 0 || k < 0 {
		return dst
	}
	start := len(dst)
	ix.mu.RLock()
	ix.search(fp, k, nearestMatches(&dst, k, n, keep))
	ix.mu.RUnlock()
	slices.SortFunc(dst[start:], compareMatch)
	return dst
}

// nearestMatches returns a visitor that keeps in *dst, after what it holds
// already, the n nearest matches keep accepts (nil: any), as a heap with
// the farthest on top; it narrows the bound to that farthest once it holds
// n. The caller sorts them.
func nearestMatches(dst *[]Match, k, n int, keep func(Match) bool) visitor {
	start := len(*dst)
	return func(id, fp uint64, tag uint16, d int) (int, bool) {
		c := Match{ID: id, FP: fp, Distance: d, Tag: tag}
		h := (*dst)[start:]
		switch {
		case len(h) == n && compareMatch(c, h[0]) >= 0:
			return h[0].Distance, true
		case keep != nil && !keep(c):
		case len(h) < n:
			*dst = append(*dst, c)
			heapUp((*dst)[start:])
		default:
			h[0] = c
			heapDown(h)
		}
		if h := (*dst)[start:]; len(h) == n {
			return h[0].Distance, true
		}
		return k, true
	}
}

// heapUp restores the heap order of h (the farthest match on top, by
// compareMatch) after its last element was appended.
func heapUp(h []Match) {
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if compareMatch(h[i], h[p]) <= 0 {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// heapDown restores the heap order of h after its top was replaced.
func heapDown(h []Match) {
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && compareMatch(h[c+1], h[c]) > 0 {
			c++
		}
		if compareMatch(h[c], h[i]) <= 0 {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Keys appends fp's table keys to dst, one per table, and returns the
// extended slice. Each key is the fingerprint's key bits for a table mixed
// with the table number, so two fingerprints within distance K() share at
// least one key (their keys are equal for every table on whose key bits
// they agree). Distant fingerprints may share keys too. Keys depend only on
// the design, not on the contents of the index (but see Options.Adaptive).
func (ix *Index) Keys(fp uint64, dst []uint64) []uint64 {
	if ix.opts.Adaptive || len(ix.opts.Sizes) > 0 {
		ix.mu.RLock()
		defer ix.mu.RUnlock()
	}
	for t := range ix.tabs {
		tab := &ix.tabs[t]
		key := tab.permute(fp) >> (64 - uint(tab.keyBits))
		dst = append(dst, hashID(key+uint64(t+1)*0x9e3779b97f4a7c15))
	}
	return dst
}

// parallelFor runs f(0..n-1), on all cores when parallel is set.
func parallelFor(n int, parallel bool, f func(i int)) {
	if !parallel {
		for i := range n {
			f(i)
		}
		return
	}
	par.For(n, f)
}
