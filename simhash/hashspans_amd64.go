package simhash

import "golang.org/x/sys/cpu"

// useAVX512 reports whether AppendHash64Lower may hash eight tokens at a
// time with hashSpans8AVX512: the processor and the operating system
// support AVX-512 Foundation (gathers, VPROLQ, VPTERNLOGQ), DQ (VPMULLQ)
// and BW (byte compares and masked byte moves): Intel's Skylake server
// processors and later, AMD's since Zen 4. It is read once, at
// initialization.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512BW

// hashSpans8AVX512 is hashSpans for the eight tokens whose spans start at
// spans (16 offsets), for a text of textLen bytes at text, with AVX-512
// (hashspans_amd64.s): it hashes, eight lanes at once, each token of 1 to 8
// bytes at least eight bytes from either end of the text, stores its hash
// at out (out[0] to out[7], lane for lane), and returns the lanes it left
// out (bit i for token i): longer tokens, and those near an end, which it
// never reads. It must only be called when useAVX512 is true.
//
//go:noescape
func hashSpans8AVX512(out *uint64, text *byte, textLen int, spans *uint32) (rest uint64)
