// NEARMASK_K starts nearMaskAVX512 and nearMask32AVX512, whose argument k
// is at k+32(FP): it zeroes AX, the result, jumps to the function's label
// done (which returns AX) when k is negative, as no distance is that
// small, and otherwise leaves in DX k clamped to max, the word's width,
// which no distance exceeds. It uses R9.
#define NEARMASK_K(max) \
	MOVQ k+32(FP), DX \
	XORL AX, AX \
	TESTQ DX, DX \
	JS   done \
	MOVL $max, R9 \
	CMPQ DX, R9 \
	CMOVQGT R9, DX

// NEARMASK_DISPATCH is the body of nearMask and nearMask32: a tail jump,
// arguments in place, to avx512 where useAVX512 is set and else to generic
// (a Go function, reached through the ABI wrapper the toolchain makes for
// Go functions that assembly names).
#define NEARMASK_DISPATCH(avx512, generic) \
	CMPB ·useAVX512(SB), $0 \
	JEQ  2(PC) \
	JMP  avx512(SB) \
	JMP  generic(SB)
