// NEARMASK_K starts the vector versions of nearMask and nearMask32, whose k
// argument is at k+32(FP): it zeroes AX, the result, jumps to the label
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
// arguments in place, to avx512 where useAVX512 is set, else to avx2 where
// useAVX2 is, and else to generic (a Go function, reached through the ABI
// wrapper the toolchain makes for Go functions that assembly names).
#define NEARMASK_DISPATCH(avx512, avx2, generic) \
	CMPB ·useAVX512(SB), $0 \
	JEQ  2(PC) \
	JMP  avx512(SB) \
	CMPB ·useAVX2(SB), $0 \
	JEQ  2(PC) \
	JMP  avx2(SB) \
	JMP  generic(SB)

// NEARMASK_COUNT turns eight vectors v0-v7, each holding the XOR of eight
// fingerprints with the query (fingerprint 8i+j in lane j of vi), into
// K1 with bit e set when fingerprint e is within k of the query (Z1 holds
// k in every byte, perm the transpose8x8 indexes). Each lane is counted
// with VPOPCNTQ; a distance is at most 64, so one byte. Shifting vi left
// by 8i bits and ORing all eight puts it in byte 8j+i of v0, VPERMB moves
// it to byte 8i+j, and one VPCMPUB (less or equal) compares all 64 with k.
// It overwrites v0-v7.
#define NEARMASK_COUNT(v0, v1, v2, v3, v4, v5, v6, v7, perm) \
	VPOPCNTQ v0, v0 \
	VPOPCNTQ v1, v1 \
	VPOPCNTQ v2, v2 \
	VPOPCNTQ v3, v3 \
	VPOPCNTQ v4, v4 \
	VPOPCNTQ v5, v5 \
	VPOPCNTQ v6, v6 \
	VPOPCNTQ v7, v7 \
	VPSLLQ $8, v1, v1 \
	VPSLLQ $16, v2, v2 \
	VPSLLQ $24, v3, v3 \
	VPSLLQ $32, v4, v4 \
	VPSLLQ $40, v5, v5 \
	VPSLLQ $48, v6, v6 \
	VPSLLQ $56, v7, v7 \
	VPTERNLOGQ $0xfe, v2, v1, v0 \
	VPTERNLOGQ $0xfe, v5, v4, v3 \
	VPORQ v7, v6, v6 \
	VPTERNLOGQ $0xfe, v6, v3, v0 \
	VPERMB v0, perm, v0 \
	VPCMPUB $2, Z1, v0, K1
