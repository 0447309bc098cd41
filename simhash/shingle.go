package simhash

import "math/bits"

// MaxWindow is the largest shingle width a Shingler takes.
const MaxWindow = 16

// Shingler64 computes Shingle64 over a sliding window of token hashes, in
// streaming form: each Push of a token hash returns the hash of the shingle
// that the token completes. It keeps the tokens' products with prime1, so a
// token is multiplied once rather than once per shingle. The zero value is
// not usable: call Reset first. It never allocates.
type Shingler64 struct {
	w, pos, count int
	first         uint64 // the first token's hash, for a lone-token shingle
	start         uint64 // n * prime2 (Shingle64) or n * prime1 (high half of Shingle128)
	ring          [2 * MaxWindow]uint64
}

// Reset empties the window and sets its width to w (1 to MaxWindow); a
// width outside that range makes Reset or a later Push panic.
func (s *Shingler64) Reset(w int) { s.reset(w, prime2) }

func (s *Shingler64) reset(w int, mul uint64) {
	s.w, s.pos, s.count, s.first = w, 0, 0, 0
	s.start = uint64(w) * mul
}

// Push adds the next token hash and returns Shingle64 of the last w token
// hashes, with ok false while fewer than w have been pushed.
func (s *Shingler64) Push(t uint64) (h uint64, ok bool) {
	if s.w == 1 {
		return t, true
	}
	if s.count == 0 {
		s.first = t
	}
	m := t * prime1
	s.ring[s.pos] = m
	s.ring[s.pos+s.w] = m
	s.pos++
	if s.pos == s.w {
		s.pos = 0
	}
	s.count++
	if s.count < s.w {
		return 0, false
	}
	return s.combine(s.start, s.ring[s.pos:s.pos+s.w]), true
}

// Partial returns the hash of the one shingle of a text with fewer than w
// tokens: Shingle64 of all the token hashes pushed (ok false when none was,
// or when w or more were, since Push returned their shingles).
func (s *Shingler64) Partial() (h uint64, ok bool) {
	return s.partial(prime2)
}

func (s *Shingler64) partial(mul uint64) (uint64, bool) {
	switch {
	case s.count == 0 || s.count >= s.w:
		return 0, false
	case s.count == 1:
		return s.first, true
	}
	return s.combine(uint64(s.count)*mul, s.ring[:s.count]), true
}

func (s *Shingler64) combine(h uint64, win []uint64) uint64 {
	for _, m := range win {
		h = bits.RotateLeft64(h^m, 31) * prime2
	}
	return fmix64(h)
}

// Shingler128 is Shingler64 for Shingle128.
type Shingler128 struct {
	hi, lo Shingler64
}

// Reset empties the window and sets its width to w (1 to MaxWindow); a
// width outside that range makes Reset or a later Push panic.
func (s *Shingler128) Reset(w int) {
	s.hi.reset(w, prime1)
	s.lo.reset(w, prime2)
}

// Push adds the next token hash and returns Shingle128 of the last w.
func (s *Shingler128) Push(thi, tlo uint64) (hi, lo uint64, ok bool) {
	hi, _ = s.hi.Push(thi)
	lo, ok = s.lo.Push(tlo)
	return hi, lo, ok
}

// Partial is Shingler64.Partial for Shingle128.
func (s *Shingler128) Partial() (hi, lo uint64, ok bool) {
	hi, _ = s.hi.partial(prime1)
	lo, ok = s.lo.partial(prime2)
	return hi, lo, ok
}
