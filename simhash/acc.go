package simhash

import "math"

// laneMask picks bit 0 of each byte of a uint64.
const laneMask = 0x0101010101010101

// Acc64 accumulates unit-weight features into a 64-bit SimHash. Each
// feature counts once; add a feature k times to give it weight k. The zero
// value is ready to use. An Acc64 is small (about 330 bytes) and never
// allocates.
type Acc64 struct {
	// lanes[j] holds eight 8-bit counters: byte k counts bit 8k+j.
	lanes   [8]uint64
	pending int // additions since the last flush (< 255)
	// counts[i] counts bit i of the features added before the last flush;
	// it is valid only when n > 0, so that Reset need not clear it
	counts [64]uint32
	n      uint32 // features added before the last flush
}

// Add adds one feature with hash h.
func (a *Acc64) Add(h uint64) {
	a.lanes[0] += h & laneMask
	a.lanes[1] += h >> 1 & laneMask
	a.lanes[2] += h >> 2 & laneMask
	a.lanes[3] += h >> 3 & laneMask
	a.lanes[4] += h >> 4 & laneMask
	a.lanes[5] += h >> 5 & laneMask
	a.lanes[6] += h >> 6 & laneMask
	a.lanes[7] += h >> 7 & laneMask
	a.pending++
	if a.pending == 255 {
		a.flush()
	}
}

// flush moves the byte-lane counters into the 32-bit counters.
func (a *Acc64) flush() {
	if a.n == 0 {
		// the first flush since Reset: counts holds stale values
		for j, l := range &a.lanes {
			for k := range 8 {
				a.counts[8*k+j] = uint32(l >> (8 * k) & 0xff)
			}
		}
	} else {
		for j, l := range &a.lanes {
			for k := range 8 {
				a.counts[8*k+j] += uint32(l >> (8 * k) & 0xff)
			}
		}
	}
	a.lanes = [8]uint64{}
	a.n += uint32(a.pending)
	a.pending = 0
}

// Len returns the number of features added since the last Reset.
func (a *Acc64) Len() int { return int(a.n) + a.pending }

// Sum returns the fingerprint of the features added so far: bit i is set
// when more than half of them have bit i set. With no features it is 0.
// Sum does not change what has been added.
func (a *Acc64) Sum() uint64 {
	a.flush()
	var fp uint64
	for i, c := range &a.counts {
		// the borrow of n - 2c is 1 exactly when 2c > n
		fp |= (uint64(a.n) - 2*uint64(c)) >> 63 << i
	}
	return fp
}

// Reset forgets every feature added. It clears the 64 bytes of byte-lane
// counters only, not the wider counters, which the next flush overwrites.
func (a *Acc64) Reset() {
	a.lanes = [8]uint64{}
	a.pending, a.n = 0, 0
}

// Acc128 accumulates unit-weight features into a 128-bit SimHash, as Acc64
// does for 64 bits. The zero value is ready to use.
type Acc128 struct {
	hi, lo Acc64
}

// Add adds one feature with hash (hi, lo).
func (a *Acc128) Add(hi, lo uint64) {
	a.hi.Add(hi)
	a.lo.Add(lo)
}

// Len returns the number of features added since the last Reset.
func (a *Acc128) Len() int { return a.lo.Len() }

// Sum returns the high and low halves of the fingerprint (see Acc64.Sum).
func (a *Acc128) Sum() (hi, lo uint64) { return a.hi.Sum(), a.lo.Sum() }

// Reset forgets every feature added.
func (a *Acc128) Reset() { a.hi.Reset(); a.lo.Reset() }

// Weighted64 accumulates features with real weights into a 64-bit SimHash.
// The zero value is ready to use; it never allocates.
//
// A weight w is split into 1 + (w - 1): the 1 goes into byte-lane counters
// as in Acc64, and only the remainder, when it is not 0, into 64 float
// sums. Under log-tf or binary weights most features weigh exactly 1, so
// most additions take the fast path.
type Weighted64 struct {
	unit Acc64
	v    [64]float64 // sum of (w-1) with the bit set minus sum with it clear
}

// Add adds a feature with hash h and weight w. Weights should be positive.
func (a *Weighted64) Add(h uint64, w float64) {
	a.unit.Add(h)
	if w == 1 {
		return
	}
	// v[i] += w-1 if bit i of h is set, else v[i] -= w-1, which IEEE
	// arithmetic defines as v[i] += -(w-1): the sign bit is flipped for the
	// clear bits, without a branch that random bits would make the
	// processor mispredict half the time.
	wb := math.Float64bits(w - 1)
	for i := range a.v {
		a.v[i] += math.Float64frombits(wb ^ (^h>>i&1)<<63)
	}
}

// Sum returns the fingerprint: bit i is set when the weight of the features
// with bit i set exceeds the weight of those with it clear (ties give 0).
func (a *Weighted64) Sum() uint64 {
	var fp uint64
	if a.unit.n == 0 && a.unit.pending == 0 {
		// No unit features: 2*0 - 0 + v is v, but for the sign of a
		// zero, which positive ignores.
		for i, x := range &a.v {
			fp |= positive(x) << i
		}
		return fp
	}
	a.unit.flush()
	n := float64(a.unit.n)
	for i := range a.v {
		fp |= positive(2*float64(a.unit.counts[i])-n+a.v[i]) << i
	}
	return fp
}

// positive returns 1 if x > 0, else 0 (x is not NaN), without a branch:
// the sign bit of a positive float is 0 and its other bits not all 0.
func positive(x float64) uint64 {
	b := int64(math.Float64bits(x))
	return uint64(-b&^b) >> 63
}

// AddUnits adds every feature added to u, each with weight w: the same
// as calling Add(h, w) for each of them, in 64 operations rather than 64 per
// feature. Weighting by a function of the count groups features by count
// into one Acc64 per count, then adds each group here.
func (a *Weighted64) AddUnits(u *Acc64, w float64) {
	if u.n == 0 {
		// Fewer than 255 features, all still in the byte lanes: read the
		// counts there, with no flush.
		n := float64(u.pending)
		v := &a.v
		for j, l := range &u.lanes {
			v[j] += w * (2*float64(l&0xff) - n)
			v[8+j] += w * (2*float64(l>>8&0xff) - n)
			v[16+j] += w * (2*float64(l>>16&0xff) - n)
			v[24+j] += w * (2*float64(l>>24&0xff) - n)
			v[32+j] += w * (2*float64(l>>32&0xff) - n)
			v[40+j] += w * (2*float64(l>>40&0xff) - n)
			v[48+j] += w * (2*float64(l>>48&0xff) - n)
			v[56+j] += w * (2*float64(l>>56) - n)
		}
		return
	}
	u.flush()
	n := float64(u.n)
	for i, c := range &u.counts {
		a.v[i] += w * (2*float64(c) - n)
	}
}

// Reset forgets every feature added.
func (a *Weighted64) Reset() {
	a.unit.Reset()
	a.v = [64]float64{}
}

// Weighted128 is Weighted64 for 128-bit fingerprints.
type Weighted128 struct {
	hi, lo Weighted64
}

// Add adds a feature with hash (hi, lo) and weight w.
func (a *Weighted128) Add(hi, lo uint64, w float64) {
	a.hi.Add(hi, w)
	a.lo.Add(lo, w)
}

// AddUnits adds every feature added to u, each with weight w (see
// Weighted64.AddUnits).
func (a *Weighted128) AddUnits(u *Acc128, w float64) {
	a.hi.AddUnits(&u.hi, w)
	a.lo.AddUnits(&u.lo, w)
}

// Sum returns the high and low halves of the fingerprint.
func (a *Weighted128) Sum() (hi, lo uint64) { return a.hi.Sum(), a.lo.Sum() }

// Reset forgets every feature added.
func (a *Weighted128) Reset() { a.hi.Reset(); a.lo.Reset() }
