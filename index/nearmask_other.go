//go:build !amd64

package index

// nearMask is nearMaskGeneric: there is no assembly for this architecture.
func nearMask(fps []uint64, q uint64, k int) uint64 {
	return nearMaskGeneric(fps, q, k)
}

// useAVX512 and useAVX2 are false off amd64.
const (
	useAVX512 = false
	useAVX2   = false
)

// nearMaskAVX512 exists off amd64 only so that the tests compile; as
// useAVX512 is false it is never called. It is nearMaskGeneric.
func nearMaskAVX512(fps []uint64, q uint64, k int) uint64 {
	return nearMaskGeneric(fps, q, k)
}

// nearMaskAVX2 exists off amd64 only so that the tests compile; as useAVX2
// is false it is never called. It is nearMaskGeneric.
func nearMaskAVX2(fps []uint64, q uint64, k int) uint64 {
	return nearMaskGeneric(fps, q, k)
}

// nearMasks sets out[i] to nearMask(word[:], qs[i], k) for every query of
// qs. out must be at least as long as qs.
func nearMasks(word *[64]uint64, qs []uint64, k int, out []uint64) {
	for i, q := range qs {
		out[i] = nearMaskGeneric(word[:], q, k)
	}
}
