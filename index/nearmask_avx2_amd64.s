#include "textflag.h"
#include "nearmask_amd64.h"

// AVX2 has no vector population count. The functions here count the bits
// of each byte with two VPSHUFB lookups in a table of the counts of the 16
// nibbles (popcountNibbles), then add the bytes of each fingerprint: one
// VPSADBW against zero for a quadword, VPMADDUBSW and VPMADDWD for a
// doubleword.

// Values move from general registers to vector ones with VMOVQ, never
// MOVQ: MOVQ is a legacy SSE instruction, and one run while the upper
// halves of the YMM registers hold data costs a state transition, measured
// at over 100 ns a call on this project's benchmark machine.

// popcountNibbles holds the bit count of 0..15, once for each 128-bit lane
// (VPSHUFB looks up within a lane).
DATA popcountNibbles<>+0(SB)/8, $0x0302020102010100
DATA popcountNibbles<>+8(SB)/8, $0x0403030203020201
DATA popcountNibbles<>+16(SB)/8, $0x0302020102010100
DATA popcountNibbles<>+24(SB)/8, $0x0403030203020201
GLOBL popcountNibbles<>(SB), RODATA|NOPTR, $32

// lowNibbles is 0x0f in every byte.
DATA lowNibbles<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA lowNibbles<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA lowNibbles<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA lowNibbles<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL lowNibbles<>(SB), RODATA|NOPTR, $32

// BYTECOUNTS replaces each byte of x with its bit count, using t as
// scratch; Y14 holds popcountNibbles and Y15 lowNibbles.
#define BYTECOUNTS(x, t) \
	VPSRLQ $4, x, t \
	VPAND Y15, x, x \
	VPAND Y15, t, t \
	VPSHUFB x, Y14, x \
	VPSHUFB t, Y14, t \
	VPADDB t, x, x

// NEAR4 ORs into AX, shifted left by shift, the four bits of the
// fingerprints at addr (four quadwords): bit j set when fingerprint j is
// within k of the query. Y0 holds the query in every quadword, Y1 k+1 in
// every quadword, Y13 zero. It uses Y2, Y3 and R11.
#define NEAR4(addr, shift) \
	VPXOR addr, Y0, Y2 \
	BYTECOUNTS(Y2, Y3) \
	VPSADBW Y13, Y2, Y2 \
	VPCMPGTQ Y2, Y1, Y2 \
	VMOVMSKPD Y2, R11 \
	SHLQ shift, R11 \
	ORQ R11, AX

// NEAR64 is NEAR4 for the 64 fingerprints of a whole word at SI.
#define NEAR64 \
	NEAR4(0(SI), $0) \
	NEAR4(32(SI), $4) \
	NEAR4(64(SI), $8) \
	NEAR4(96(SI), $12) \
	NEAR4(128(SI), $16) \
	NEAR4(160(SI), $20) \
	NEAR4(192(SI), $24) \
	NEAR4(224(SI), $28) \
	NEAR4(256(SI), $32) \
	NEAR4(288(SI), $36) \
	NEAR4(320(SI), $40) \
	NEAR4(352(SI), $44) \
	NEAR4(384(SI), $48) \
	NEAR4(416(SI), $52) \
	NEAR4(448(SI), $56) \
	NEAR4(480(SI), $60)

// NEARMASK_AVX2_PART tests a slice of fewer than 64 values at SI, R10 of
// them, and jumps to the function's label end: the whole groups of step
// values with group (NEAR4 or NEAR8_32), from the address (SI)(CX*scale)
// and shifted left by CX, then the last few one at a time with the load,
// xor and popcnt instructions of their width, each setting bit CX of AX
// when its distance is below DX (k+1). R12 holds the query; it uses CX,
// R9 and R11, and no load reaches past the slice's end.
#define NEARMASK_AVX2_PART(step, scale, group, load, xor, popcnt) \
	XORL CX, CX \
	MOVQ R10, R9 \
	ANDQ $-step, R9 \
groups: \
	CMPQ CX, R9 \
	JGE  tail \
	group((SI)(CX*scale), CX) \
	ADDQ $step, CX \
	JMP  groups \
tail: \
	CMPQ CX, R10 \
	JGE  end \
	load (SI)(CX*scale), R11 \
	xor R12, R11 \
	popcnt R11, R11 \
	CMPQ R11, DX \
	JGE  next \
	BTSQ CX, AX \
next: \
	INCQ CX \
	JMP  tail

// NEARMASK_AVX2_SETUP loads the constants of NEAR4 and NEAR8_32: the
// tables into Y14 and Y15, zero into Y13.
#define NEARMASK_AVX2_SETUP \
	VMOVDQU popcountNibbles<>(SB), Y14 \
	VMOVDQU lowNibbles<>(SB), Y15 \
	VPXOR Y13, Y13, Y13

// func nearMaskAVX2(fps []uint64, q uint64, k int) uint64
//
// Four fingerprints per 256-bit register are XORed with q and counted
// (BYTECOUNTS, VPSADBW), and each distance is compared with k+1 (VPCMPGTQ),
// four answer bits at a time (VMOVMSKPD). A whole word is done without a
// loop. Of a shorter slice the whole groups of four are done in a loop and
// the last one to three fingerprints one at a time with POPCNTQ: no load
// reaches past the slice's end. Of a longer slice only the first 64 are
// tested.
//
// Registers: SI = &fps[0], R10 = len(fps), DX = k+1 with k
// clamped to [0, 64], R12 = q, CX = the index of the next fingerprint,
// AX = result, Y0 = q and Y1 = k+1 in every quadword.
TEXT ·nearMaskAVX2(SB), NOSPLIT, $0-48
	MOVQ fps_base+0(FP), SI
	MOVQ fps_len+8(FP), R10
	NEARMASK_K(64)
	INCQ DX
	MOVQ q+24(FP), R12
	VPBROADCASTQ q+24(FP), Y0
	VMOVQ DX, X1
	VPBROADCASTQ X1, Y1
	NEARMASK_AVX2_SETUP
	MOVL $64, R9
	CMPQ R10, R9
	JLT  part
	NEAR64
	JMP  end

part:
	NEARMASK_AVX2_PART(4, 8, NEAR4, MOVQ, XORQ, POPCNTQ)

end:
	VZEROUPPER

done:
	MOVQ AX, ret+40(FP)
	RET

// func nearMasksAVX2(word *[64]uint64, qs []uint64, k int, out *uint64)
//
// nearMaskAVX2 for several queries over one whole word, each query in
// turn; the word stays in the first-level cache. k must be in [0, 64] and
// qs not empty.
//
// Registers: SI = word, DI = &qs[i], CX = queries left, R8 = &out[i],
// AX = the answer for qs[i], Y0 = qs[i] and Y1 = k+1 in every quadword.
TEXT ·nearMasksAVX2(SB), NOSPLIT, $0-48
	MOVQ word+0(FP), SI
	MOVQ qs_base+8(FP), DI
	MOVQ qs_len+16(FP), CX
	MOVQ k+32(FP), DX
	MOVQ out+40(FP), R8
	INCQ DX
	VMOVQ DX, X1
	VPBROADCASTQ X1, Y1
	NEARMASK_AVX2_SETUP

query:
	VPBROADCASTQ (DI), Y0
	XORL AX, AX
	NEAR64
	MOVQ AX, (R8)
	ADDQ $8, DI
	ADDQ $8, R8
	DECQ CX
	JNZ  query
	VZEROUPPER
	RET

// NEAR8_32 ORs into AX, shifted left by shift, the eight bits of the keys
// at addr (eight doublewords), as NEAR4 does for fingerprints: the byte
// counts are added in pairs (VPMADDUBSW with Y12, 1 in every byte) and
// again (VPMADDWD with Y11, 1 in every word) into doublewords, compared
// with k+1 in Y1 (VPCMPGTD) and gathered by VMOVMSKPS. Y0 holds the query
// in every doubleword. It uses Y2, Y3 and R11.
#define NEAR8_32(addr, shift) \
	VPXOR addr, Y0, Y2 \
	BYTECOUNTS(Y2, Y3) \
	VPMADDUBSW Y12, Y2, Y2 \
	VPMADDWD Y11, Y2, Y2 \
	VPCMPGTD Y2, Y1, Y2 \
	VMOVMSKPS Y2, R11 \
	SHLQ shift, R11 \
	ORQ R11, AX

// func nearMask32AVX2(h []uint32, q uint32, k int) uint64
//
// nearMaskAVX2 for 32-bit keys: eight per register, counted by BYTECOUNTS
// and two multiply-adds, a whole word of 64 in eight steps without a loop,
// a shorter slice in groups of eight and its last one to seven keys one at
// a time with POPCNTL.
//
// Registers: SI = &h[0], R10 = len(h), DX = k+1 with k clamped to
// [0, 32], R12 = q, CX = the index of the next key, AX = result, Y0 = q and
// Y1 = k+1 in every doubleword.
TEXT ·nearMask32AVX2(SB), NOSPLIT, $0-48
	MOVQ h_base+0(FP), SI
	MOVQ h_len+8(FP), R10
	NEARMASK_K(32)
	INCQ DX
	MOVL q+24(FP), R12
	VMOVQ R12, X0
	VPBROADCASTD X0, Y0
	VMOVQ DX, X1
	VPBROADCASTD X1, Y1
	NEARMASK_AVX2_SETUP
	MOVL $0x01010101, R11
	VMOVQ R11, X12
	VPBROADCASTD X12, Y12      // 1 in every byte
	MOVL $0x00010001, R11
	VMOVQ R11, X11
	VPBROADCASTD X11, Y11      // 1 in every word
	MOVL $64, R9
	CMPQ R10, R9
	JLT  part

	NEAR8_32(0(SI), $0)
	NEAR8_32(32(SI), $8)
	NEAR8_32(64(SI), $16)
	NEAR8_32(96(SI), $24)
	NEAR8_32(128(SI), $32)
	NEAR8_32(160(SI), $40)
	NEAR8_32(192(SI), $48)
	NEAR8_32(224(SI), $56)
	JMP  end

part:
	NEARMASK_AVX2_PART(8, 4, NEAR8_32, MOVL, XORL, POPCNTL)

end:
	VZEROUPPER

done:
	MOVQ AX, ret+40(FP)
	RET
