package index

import "golang.org/x/sys/cpu"

// useAVX512 reports whether nearMask and nearMask32 may run
// nearMaskAVX512 and nearMask32AVX512: the processor and the operating
// system support the AVX-512 subsets they use, Foundation (512-bit and
// opmask registers, VPXORQ, VPXORD, VPSLLQ, VPTERNLOGQ, VPCMPUD), BW
// (VPCMPUB, VPBROADCASTB, KMOVQ, KSHIFTRQ, KUNPCKWD, KUNPCKDQ), VBMI
// (VPERMB) and VPOPCNTDQ (VPOPCNTQ, VPOPCNTD), and BMI2 (BZHI), which every
// such processor has: Intel's Ice Lake and later processors that enable
// AVX-512, AMD's since Zen 4. It is read once, when the package is
// initialized, from the CPUID bits that golang.org/x/sys/cpu has decoded,
// and never changes.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512VPOPCNTDQ && cpu.X86.HasBMI2

// useAVX2 reports whether nearMask and nearMask32 may run nearMaskAVX2 and
// nearMask32AVX2, when useAVX512 is not set: the processor and the
// operating system support AVX2 (Intel's Haswell and later, AMD's since
// Excavator and Zen). Like useAVX512 it is read once, at initialization.
var useAVX2 = cpu.X86.HasAVX2

// nearMask is nearMaskGeneric's contract, as fast as the processor allows:
// it jumps to nearMaskAVX512 when useAVX512 is set, to nearMaskAVX2 when
// useAVX2 is, and to nearMaskGeneric otherwise. It is written in assembly
// (nearmask_amd64.s) so that a call costs one call: a Go function choosing
// between the calls is over the inlining budget, and the second call costs
// as much as a fifth of the AVX-512 test of a whole word.
//
//go:noescape
func nearMask(fps []uint64, q uint64, k int) uint64

// nearMaskAVX512 is nearMask with AVX-512 (nearmask_amd64.s): eight
// fingerprints per 512-bit register are XORed with the query and counted
// with VPOPCNTQ, and the 64 distances, packed into bytes, are compared with
// k at once. A slice shorter than 64 is read with masked loads, which never
// touch memory past its end. It has nearMask's whole contract (negative k,
// k >= 64, at most 64 entries tested) and must only be called when
// useAVX512 is true.
//
//go:noescape
func nearMaskAVX512(fps []uint64, q uint64, k int) uint64

// nearMasksAVX512 sets out[i] to nearMaskAVX512(word[:], qs[i], k) for
// every query, loading the word once (nearmask_amd64.s). k must be in
// [0, 64], qs not empty, out as long as qs; only when useAVX512 is true.
//
//go:noescape
func nearMasksAVX512(word *[64]uint64, qs []uint64, k int, out *uint64)

// nearMaskAVX2 is nearMask with AVX2 (nearmask_avx2_amd64.s), for
// processors without AVX-512: four fingerprints per 256-bit register are
// XORed with the query, their bits counted by table lookups (VPSHUFB) and
// summed (VPSADBW), and the four distances compared with k at once. A
// slice shorter than 64 is done four at a time and its last one to three
// fingerprints one at a time, so no load reaches past its end. It has
// nearMask's whole contract and must only be called when useAVX2 is true.
//
//go:noescape
func nearMaskAVX2(fps []uint64, q uint64, k int) uint64

// nearMasksAVX2 is nearMasksAVX512 with nearMaskAVX2's test: k must be in
// [0, 64], qs not empty, out as long as qs; only when useAVX2 is true.
//
//go:noescape
func nearMasksAVX2(word *[64]uint64, qs []uint64, k int, out *uint64)

// nearMasks sets out[i] to nearMask(word[:], qs[i], k) for every query of
// qs: the test of one word of 64 fingerprints against several queries,
// which loads the word once. out must be at least as long as qs.
func nearMasks(word *[64]uint64, qs []uint64, k int, out []uint64) {
	out = out[:len(qs)]
	switch {
	case len(qs) == 0:
	case k < 0:
		clear(out)
	case useAVX512:
		nearMasksAVX512(word, qs, min(k, 64), &out[0])
	case useAVX2:
		nearMasksAVX2(word, qs, min(k, 64), &out[0])
	default:
		for i, q := range qs {
			out[i] = nearMaskGeneric(word[:], q, k)
		}
	}
}
