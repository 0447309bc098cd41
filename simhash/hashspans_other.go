//go:build !amd64

package simhash

// useAVX512 is false where there is no hashSpans8AVX512.
const useAVX512 = false

// hashSpans8AVX512 is never called off amd64 (useAVX512 is false).
func hashSpans8AVX512(out *uint64, text *byte, textLen int, spans *uint32) uint64 {
	panic("simhash: hashSpans8AVX512 off amd64")
}
