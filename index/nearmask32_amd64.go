package index

// nearMask32 is nearMask32Generic's contract, as fast as the processor
// allows: like nearMask, it is an assembly tail jump (nearmask32_amd64.s)
// to nearMask32AVX512 when useAVX512 is set, to nearMask32AVX2 when
// useAVX2 is, and to nearMask32Generic otherwise, so that a call costs one
// call.
//
//go:noescape
func nearMask32(h []uint32, q uint32, k int) uint64

// nearMask32AVX512 is nearMask32 with AVX-512 (nearmask32_amd64.s): sixteen
// keys per 512-bit register are XORed with the query, counted with VPOPCNTD
// and compared with k, and the four 16-bit answers are joined into one
// word. A slice of at most 16 keys takes one register instead of four. A
// slice shorter than 64 is read with masked loads, which never touch
// memory past its end. It has nearMask32's whole contract (negative k,
// k >= 32, at most 64 keys tested) and must only be called when useAVX512
// is true: it needs AVX-512 F, BW and VPOPCNTDQ and BMI2, a subset of
// what useAVX512 checks.
//
//go:noescape
func nearMask32AVX512(h []uint32, q uint32, k int) uint64

// nearMask32AVX2 is nearMask32 with AVX2 (nearmask_avx2_amd64.s): eight
// keys per 256-bit register are XORed with the query and counted (table
// lookups, then two multiply-adds that sum the bytes of each key), and the
// eight distances compared with k at once. A slice shorter than 64 is done
// eight at a time and its last one to seven keys one at a time, so no load
// reaches past its end. It has nearMask32's whole contract and must only
// be called when useAVX2 is true.
//
//go:noescape
func nearMask32AVX2(h []uint32, q uint32, k int) uint64
