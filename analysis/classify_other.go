//go:build !amd64

package analysis

// useAVX512 is false where there is no classify64AVX512.
const useAVX512 = false

// classify64AVX512 is never called off amd64 (useAVX512 is false).
func classify64AVX512(p *byte, n int) (word, space, bad uint64) {
	panic("analysis: classify64AVX512 off amd64")
}
