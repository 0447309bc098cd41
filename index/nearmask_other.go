//go:build !amd64

package index

// useAVX512 is false off amd64, so nearMask is nearMaskGeneric and the
// compiler drops its other branch.
const useAVX512 = false

// nearMaskAVX512 only exists so that nearMask and its tests compile off
// amd64, where useAVX512 keeps it from being called; it is nearMaskGeneric.
func nearMaskAVX512(fps []uint64, q uint64, k int) uint64 {
	return nearMaskGeneric(fps, q, k)
}
