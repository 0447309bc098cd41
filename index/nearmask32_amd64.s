#include "textflag.h"
#include "nearmask_amd64.h"

// func nearMask32(h []uint32, q uint32, k int) uint64
TEXT ·nearMask32(SB), NOSPLIT, $0-48
	NEARMASK_DISPATCH(·nearMask32AVX512, ·nearMask32AVX2, ·nearMask32Generic)

// func nearMask32AVX512(h []uint32, q uint32, k int) uint64
//
// Sixteen keys per vector are XORed with q, counted (VPOPCNTD) and compared
// with k (VPCMPUD, unsigned <=) into a 16-bit mask; the masks of four
// vectors are joined by KUNPCKWD and KUNPCKDQ into the answer. Loads are
// masked to the first min(len, 64) lanes: lanes past the end are not read
// (no fault), and the compares are masked the same way, so their bits come
// out zero. A slice of at most 16 keys is done with one vector.
//
// Registers: SI = &h[0], CX = len(h), DX = k clamped to [0, 32],
// R8 = the lanes to read, AX = result, Z0 = q in every doubleword, Z1 = k
// in every doubleword.
TEXT ·nearMask32AVX512(SB), NOSPLIT, $0-48
	MOVQ h_base+0(FP), SI
	MOVQ h_len+8(FP), CX
	NEARMASK_K(32)
	MOVL q+24(FP), R10
	VPBROADCASTD R10, Z0
	VPBROADCASTD DX, Z1
	MOVQ $-1, R8
	CMPQ CX, $16
	JGT  wide

	// At most 16 keys: one vector.
	BZHIQ CX, R8, R8           // lanes 0..len-1
	KMOVW R8, K1
	VPXORD.Z 0(SI), Z0, K1, Z2
	VPOPCNTD Z2, Z2
	VPCMPUD $2, Z1, Z2, K1, K1 // bit i = lane i read and its distance <= k
	KMOVW K1, AX
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET

wide:
	MOVL $64, R9
	CMPQ CX, R9
	CMOVQGT R9, CX             // only the first 64 keys are tested
	BZHIQ CX, R8, R8           // lanes 0..len-1 (all 64 when len is 64)
	KMOVQ R8, K1
	KSHIFTRQ $16, K1, K2
	KSHIFTRQ $32, K1, K3
	KSHIFTRQ $48, K1, K4
	VPXORD.Z 0(SI), Z0, K1, Z2
	VPXORD.Z 64(SI), Z0, K2, Z3
	VPXORD.Z 128(SI), Z0, K3, Z4
	VPXORD.Z 192(SI), Z0, K4, Z5
	VPOPCNTD Z2, Z2
	VPOPCNTD Z3, Z3
	VPOPCNTD Z4, Z4
	VPOPCNTD Z5, Z5
	VPCMPUD $2, Z1, Z2, K1, K1
	VPCMPUD $2, Z1, Z3, K2, K2
	VPCMPUD $2, Z1, Z4, K3, K3
	VPCMPUD $2, Z1, Z5, K4, K4
	KUNPCKWD K1, K2, K1        // K1 = K2<<16 | K1 (low 16 bits of each)
	KUNPCKWD K3, K4, K3        // K3 = K4<<16 | K3
	KUNPCKDQ K1, K3, K1        // K1 = K3<<32 | K1
	KMOVQ K1, AX
	VZEROUPPER

done:
	MOVQ AX, ret+40(FP)
	RET
