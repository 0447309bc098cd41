package analysis

import "golang.org/x/sys/cpu"

// useAVX512 reports whether reset may classify 64 bytes at a time with
// classify64AVX512: the processor and the operating system support
// AVX-512 Foundation and BW (byte compares into mask registers, masked
// byte loads) and BMI2 (BZHI): Intel's Ice Lake and later processors that
// enable AVX-512, AMD's since Zen 4. It is read once, at initialization.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasBMI2

// classify64AVX512 is classify8 for the n bytes at p (n at most 64, the
// rest read as spaces and never loaded: masked loads do not touch memory
// past p+n): bit k of word is set for a word byte (letters, digits and _),
// bit k of space for a byte of 0x20 or below, and bad is not 0 if one of
// the bytes is neither printable ASCII nor ASCII white space
// (classify_amd64.s). It must only be called when useAVX512 is true.
//
//go:noescape
func classify64AVX512(p *byte, n int) (word, space, bad uint64)
