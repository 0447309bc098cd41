//go:build !amd64

package index

// nearMask32 is nearMask32Generic: there is no assembly for this
// architecture.
func nearMask32(h []uint32, q uint32, k int) uint64 {
	return nearMask32Generic(h, q, k)
}

// nearMask32AVX512 exists off amd64 only so that the tests compile; as
// useAVX512 is false it is never called. It is nearMask32Generic.
func nearMask32AVX512(h []uint32, q uint32, k int) uint64 {
	return nearMask32Generic(h, q, k)
}

// nearMask32AVX2 exists off amd64 only so that the tests compile; as
// useAVX2 is false it is never called. It is nearMask32Generic.
func nearMask32AVX2(h []uint32, q uint32, k int) uint64 {
	return nearMask32Generic(h, q, k)
}
