package index

// usePEXT reports whether tables whose key bits keep their order permute
// with BMI2's PEXT (pextPermute) rather than by moving runs of bits. It is
// set only where AVX-512 is (useAVX512): every such processor executes PEXT
// in a few cycles, while some earlier AMD ones take a microcoded path that
// is slower than the runs.
var usePEXT = useAVX512

// pextPermute returns fp with the bits under key moved to the top, in
// their order, and the other bits below them, in theirs; shift is 64
// minus the number of key bits (permute_amd64.s). It must only be called
// when usePEXT is true.
//
//go:noescape
func pextPermute(fp, key uint64, shift uint) uint64

// pextPermuteSlots sets dst[i] to pextPermute(fps[slots[i]], key, shift)
// for every slot (permute_amd64.s). dst must be at least as long as slots
// and every slot must index fps: the assembly does not check. It must
// only be called when usePEXT is true.
//
//go:noescape
func pextPermuteSlots(dst, fps []uint64, slots []uint32, key uint64, shift uint)

// pextPermuteAll sets dst[i] to pextPermute(fps[i], key, shift) for every
// fingerprint (permute_amd64.s). dst must be at least as long as fps: the
// assembly does not check. It must only be called when usePEXT is true.
//
//go:noescape
func pextPermuteAll(dst, fps []uint64, key uint64, shift uint)
