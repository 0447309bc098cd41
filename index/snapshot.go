package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"slices"
	"unsafe"
)

// Snapshot format, all integers little-endian:
//
//	magic "NDUPIDX\x00", version uint32
//	options: K, ExpectedN, MaxBytesPerEntry (float64 bits), design levels,
//	flags uint32 (bit 0: Adaptive, bit 1: Wide, bit 2: WideIfFits, bit 3:
//	the tables are wide; absent in version 1)
//	version 4: Sizes, a uint32 count, then for each UpTo (uint64) and its
//	design levels as above
//	slot columns: fingerprints, ids, tags (version 3: a uint32 1 and the
//	tags as uint16, or a uint32 0 when no entry has one), times, live bits,
//	id map, free, dead
//	levels (main, then tiers): per table dbits, directory, hi (with Wide:
//	rest) and slot arrays
//	buffer: slots and fingerprints
//	CRC-32C (Castagnoli) of everything before it
//
// Arrays are a uint64 length followed by the elements. The snapshot is the
// in-memory state itself, so loading it is reading arrays, with no sorting
// or hashing.
const (
	snapshotMagic   = "NDUPIDX\x00"
	snapshotVersion = 4
	maxSnapshotLen  = 1 << 36 // elements per array a snapshot may claim
)

// ErrSnapshot is returned (wrapped) by ReadIndex for data that is not a
// snapshot of a supported version, is truncated, or fails its checksum or
// consistency checks.
var ErrSnapshot = errors.New("index: bad snapshot")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type snapWriter struct {
	w   *bufio.Writer
	h   hash.Hash32
	n   int64
	err error
	b   [8]byte
}

func (s *snapWriter) write(p []byte) {
	if s.err != nil {
		return
	}
	n, err := s.w.Write(p)
	s.n += int64(n)
	s.err = err
	s.h.Write(p)
}

func (s *snapWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(s.b[:], v)
	s.write(s.b[:4])
}

func (s *snapWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(s.b[:], v)
	s.write(s.b[:8])
}

// littleEndian reports whether this machine keeps words in memory as a
// snapshot stores them, so that arrays go to and from it as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// readChunk is how many bytes of an array readWords reads at a time on a
// little-endian machine (tests lower it).
var readChunk = 8 << 20

// asBytes returns the memory of a as bytes.
func asBytes[T uint16 | uint32 | uint64 | int64](a []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*wordSize[T]())
}

// words writes a length and the elements of a, little-endian.
func words[T uint16 | uint32 | uint64 | int64](s *snapWriter, a []T) {
	s.u64(uint64(len(a)))
	if littleEndian {
		s.write(asBytes(a))
		return
	}
	size := wordSize[T]()
	buf := make([]byte, min(len(a)*size, 1<<20))
	for len(a) > 0 && s.err == nil {
		m := min(len(a), len(buf)/size)
		switch size {
		case 2:
			for i, v := range a[:m] {
				binary.LittleEndian.PutUint16(buf[2*i:], uint16(v))
			}
		case 4:
			for i, v := range a[:m] {
				binary.LittleEndian.PutUint32(buf[4*i:], uint32(v))
			}
		default:
			for i, v := range a[:m] {
				binary.LittleEndian.PutUint64(buf[8*i:], uint64(v))
			}
		}
		s.write(buf[:m*size])
		a = a[m:]
	}
}

func wordSize[T uint16 | uint32 | uint64 | int64]() int {
	var zero T
	switch any(zero).(type) {
	case uint16:
		return 2
	case uint32:
		return 4
	}
	return 8
}

// WriteTo writes a snapshot of the index to w and returns the number of
// bytes written. Queries may run meanwhile; changes wait until it is done.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.materialize()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s := &snapWriter{w: bufio.NewWriterSize(w, 1<<16), h: crc32.New(castagnoli)}
	s.write([]byte(snapshotMagic))
	s.u32(snapshotVersion)
	s.u32(uint32(ix.opts.K))
	s.u64(uint64(ix.opts.ExpectedN))
	s.u64(math.Float64bits(ix.opts.MaxBytesPerEntry))
	s.u32(uint32(len(ix.opts.Design.Levels)))
	for _, l := range ix.opts.Design.Levels {
		s.u32(uint32(l.Blocks))
		s.u32(uint32(l.Key))
	}
	var flags uint32
	if ix.opts.Adaptive {
		flags |= 1
	}
	if ix.opts.Wide {
		flags |= 2
	}
	if ix.opts.WideIfFits {
		flags |= 4
	}
	if ix.wide {
		flags |= 8
	}
	s.u32(flags)
	s.u32(uint32(len(ix.opts.Sizes)))
	for _, sd := range ix.opts.Sizes {
		s.u64(uint64(sd.UpTo))
		s.u32(uint32(len(sd.Design.Levels)))
		for _, l := range sd.Design.Levels {
			s.u32(uint32(l.Blocks))
			s.u32(uint32(l.Key))
		}
	}
	words(s, ix.fps)
	words(s, ix.ids)
	if ix.tags != nil {
		s.u32(1)
		words(s, ix.tags)
	} else {
		s.u32(0)
	}
	s.u64(uint64(ix.times.base))
	if ix.times.wide != nil {
		s.u32(1)
		words(s, ix.times.wide)
	} else {
		s.u32(0)
		words(s, ix.times.narrow)
	}
	words(s, ix.live)
	words(s, ix.byID.cells)
	words(s, ix.free)
	words(s, ix.dead)
	s.u32(uint32(len(ix.levels)))
	for _, l := range ix.levels {
		s.u32(uint32(len(l)))
		for _, r := range l {
			s.u32(uint32(r.dbits))
			words(s, r.dir)
			if ix.wide {
				words(s, r.rest)
			} else {
				words(s, r.hi)
			}
			words(s, r.slot)
		}
	}
	words(s, ix.buf)
	words(s, ix.bufFP)
	sum := s.h.Sum32()
	s.u32(sum)
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return s.n, fmt.Errorf("index: write snapshot: %w", s.err)
	}
	return s.n, nil
}

type snapReader struct {
	r   *bufio.Reader
	h   hash.Hash32
	err error
	b   [8]byte
}

func (s *snapReader) read(p []byte) {
	if s.err != nil {
		clear(p)
		return
	}
	if _, err := io.ReadFull(s.r, p); err != nil {
		s.err = fmt.Errorf("%w: truncated: %v", ErrSnapshot, err)
		clear(p)
		return
	}
	s.h.Write(p)
}

func (s *snapReader) u32() uint32 {
	s.read(s.b[:4])
	return binary.LittleEndian.Uint32(s.b[:4])
}

func (s *snapReader) u64() uint64 {
	s.read(s.b[:8])
	return binary.LittleEndian.Uint64(s.b[:8])
}

// readWords reads an array written by words. Arrays up to 2^27
// elements are allocated at once; a longer claimed length is read in
// growing steps, so a corrupt length cannot allocate much more than the
// input holds.
func readWords[T uint16 | uint32 | uint64 | int64](s *snapReader) []T {
	n := s.u64()
	if s.err != nil {
		return nil
	}
	if n > maxSnapshotLen {
		s.err = fmt.Errorf("%w: array of %d elements", ErrSnapshot, n)
		return nil
	}
	size := wordSize[T]()
	out := makeHuge[T](int(min(n, 1<<27)))[:0]
	if littleEndian {
		// Read straight into the array, readChunk bytes at a time.
		for left := int(n); left > 0 && s.err == nil; {
			m := min(left, max(1, readChunk/size))
			base := len(out)
			out = slices.Grow(out, m)[:base+m]
			s.read(asBytes(out[base:]))
			left -= m
		}
		return out
	}
	buf := make([]byte, min(int(n)*size, 1<<20))
	for left := int(n); left > 0 && s.err == nil; {
		m := min(left, len(buf)/size)
		chunk := buf[:m*size]
		s.read(chunk)
		base := len(out)
		out = slices.Grow(out, m)[:base+m]
		dst := out[base:]
		switch size {
		case 2:
			for i := range dst {
				dst[i] = T(binary.LittleEndian.Uint16(chunk[2*i:]))
			}
		case 4:
			for i := range dst {
				dst[i] = T(binary.LittleEndian.Uint32(chunk[4*i:]))
			}
		default:
			for i := range dst {
				dst[i] = T(binary.LittleEndian.Uint64(chunk[8*i:]))
			}
		}
		left -= m
	}
	return out
}

// ReadIndex reads a snapshot written by WriteTo. It returns an error
// wrapping ErrSnapshot if the data is not a complete, intact snapshot of a
// supported version.
func ReadIndex(r io.Reader) (*Index, error) {
	s := &snapReader{r: bufio.NewReaderSize(r, 1<<16), h: crc32.New(castagnoli)}
	magic := make([]byte, len(snapshotMagic))
	s.read(magic)
	if s.err == nil && string(magic) != snapshotMagic {
		return nil, fmt.Errorf("%w: not an index snapshot", ErrSnapshot)
	}
	version := s.u32()
	if s.err == nil && (version < 1 || version > snapshotVersion) {
		return nil, fmt.Errorf("%w: version %d, want 1 to %d", ErrSnapshot, version, snapshotVersion)
	}
	var o Options
	o.K = int(s.u32())
	o.ExpectedN = int(s.u64() & (1<<40 - 1))
	o.MaxBytesPerEntry = math.Float64frombits(s.u64())
	nl := s.u32()
	if nl > 8 {
		return nil, fmt.Errorf("%w: %d design levels", ErrSnapshot, nl)
	}
	for range nl {
		o.Design.Levels = append(o.Design.Levels, Level{Blocks: int(s.u32()), Key: int(s.u32())})
	}
	var flags uint32
	if version >= 2 {
		flags = s.u32()
		if s.err == nil && flags > 15 {
			return nil, fmt.Errorf("%w: unknown flags %#x", ErrSnapshot, flags)
		}
		o.Adaptive = flags&1 != 0
		o.Wide = flags&2 != 0
		o.WideIfFits = flags&4 != 0
	}
	if version >= 4 {
		ns := s.u32()
		if s.err == nil && ns > 16 {
			return nil, fmt.Errorf("%w: %d sized designs", ErrSnapshot, ns)
		}
		for range ns {
			upTo := s.u64()
			if s.err == nil && upTo > math.MaxInt32<<31 {
				return nil, fmt.Errorf("%w: sized design up to %d entries", ErrSnapshot, upTo)
			}
			sd := SizedDesign{UpTo: int(upTo)}
			nl := s.u32()
			if nl > 8 {
				return nil, fmt.Errorf("%w: %d design levels", ErrSnapshot, nl)
			}
			for range nl {
				sd.Design.Levels = append(sd.Design.Levels, Level{Blocks: int(s.u32()), Key: int(s.u32())})
			}
			o.Sizes = append(o.Sizes, sd)
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	ix, err := New(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	// Wide tables, whether by Wide or WideIfFits, as they were written.
	ix.wide = o.Wide || flags&8 != 0
	ix.fps = readWords[uint64](s)
	ix.ids = readWords[uint64](s)
	if version >= 3 && s.u32() == 1 {
		ix.tags = readWords[uint16](s)
	}
	ix.times.base = int64(s.u64())
	if s.u32() == 1 {
		ix.times.wide = readWords[int64](s)
	} else {
		ix.times.narrow = readWords[uint32](s)
	}
	ix.live = readWords[uint64](s)
	ix.byID.cells = readWords[uint32](s)
	ix.free = readWords[uint32](s)
	ix.dead = readWords[uint32](s)
	nlevels := s.u32()
	if s.err == nil && (nlevels < 1 || nlevels > 16) {
		return nil, fmt.Errorf("%w: %d levels", ErrSnapshot, nlevels)
	}
	ix.levels = make([]level, nlevels)
	for i := range ix.levels {
		l := &ix.levels[i]
		nt := s.u32()
		if s.err == nil && nt != 0 && int(nt) != len(ix.tabs) {
			return nil, fmt.Errorf("%w: %d tables, want %d", ErrSnapshot, nt, len(ix.tabs))
		}
		*l = nil
		for range nt {
			var r tableRun
			r.dbits = uint(s.u32())
			r.dir = readWords[uint32](s)
			if ix.wide {
				r.rest = readWords[uint64](s)
			} else {
				r.hi = readWords[uint32](s)
			}
			r.slot = readWords[uint32](s)
			*l = append(*l, r)
		}
	}
	ix.buf = readWords[uint32](s)
	ix.bufFP = readWords[uint64](s)
	want := s.h.Sum32()
	var tail [4]byte
	if s.err == nil {
		if _, err := io.ReadFull(s.r, tail[:]); err != nil {
			return nil, fmt.Errorf("%w: truncated checksum", ErrSnapshot)
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	if got := binary.LittleEndian.Uint32(tail[:]); got != want {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", ErrSnapshot, got, want)
	}
	if err := ix.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	ix.tierFP = make([][]uint64, len(ix.levels))
	for j := 1; j < len(ix.levels); j++ {
		ix.tierFP[j] = tierFingerprints(flushPlan{tier: j}, ix.levels[j], ix.fps)
	}
	return ix, nil
}

// check verifies the invariants queries rely on to stay in bounds, and
// restores the derived fields (counts, id map shape).
func (ix *Index) check() error {
	ns := len(ix.fps)
	if len(ix.ids) != ns || ix.tags != nil && len(ix.tags) != ns || ix.times.len() != ns || len(ix.live) != (ns+63)/64 {
		return errors.New("slot columns of different lengths")
	}
	ix.n = 0
	for _, w := range ix.live {
		ix.n += bits.OnesCount64(w)
	}
	c := len(ix.byID.cells)
	if c < 16 || c&(c-1) != 0 {
		return errors.New("id map size not a power of two")
	}
	ix.byID.shift = uint(64 - log2(c))
	used := 0
	for _, v := range ix.byID.cells {
		if v > uint32(ns) {
			return errors.New("id map names a missing slot")
		}
		if v != 0 {
			used++
		}
	}
	if used != ix.n || used >= c {
		return errors.New("id map does not match live entries")
	}
	ix.byID.n = used
	for _, list := range [][]uint32{ix.free, ix.dead, ix.buf} {
		for _, v := range list {
			if int(v) >= ns {
				return errors.New("slot list names a missing slot")
			}
		}
	}
	if len(ix.buf) != len(ix.bufFP) {
		return errors.New("buffer columns of different lengths")
	}
	for _, l := range ix.levels {
		for t, r := range l {
			if r.dbits < 1 || r.dbits > 28 || int(r.dbits) > ix.tabs[t].keyBits || len(r.dir) != 1<<r.dbits+1 {
				return errors.New("bad directory size")
			}
			n := len(r.hi) + len(r.rest)
			if ix.wide && len(r.hi) != 0 || !ix.wide && len(r.rest) != 0 {
				return errors.New("table bits do not match the options")
			}
			if n != len(r.slot) || len(r.slot) != l.size() || r.dir[0] != 0 || int(r.dir[len(r.dir)-1]) != n {
				return errors.New("directory does not match its table")
			}
			for i := 1; i < len(r.dir); i++ {
				if r.dir[i] < r.dir[i-1] {
					return errors.New("directory out of order")
				}
			}
			for _, v := range r.slot {
				if int(v) >= ns {
					return errors.New("table names a missing slot")
				}
			}
		}
	}
	if len(ix.levels[0]) == 0 {
		ix.levels[0] = buildLevel(ix.tabs, nil, nil, ix.wide)
	}
	return nil
}
