#include "textflag.h"

// func hashSpans8AVX512(out *uint64, text *byte, textLen int, spans *uint32) (rest uint64)
TEXT ·hashSpans8AVX512(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), SI
	MOVQ text+8(FP), DI
	MOVQ textLen+16(FP), DX
	MOVQ spans+24(FP), BX

	VMOVDQU64 (BX), Z0           // lane i: s | e<<32 of token i
	MOVL $0xffffffff, AX
	VPBROADCASTQ AX, Z1
	VPANDQ Z1, Z0, Z2            // s
	VPSRLQ $32, Z0, Z3           // e
	VPSUBQ Z2, Z3, Z4            // n

	// Lanes to hash here: 1 <= n <= 8, e >= 8 and s <= len-8 (both
	// eight-byte loads within the text).
	MOVQ $1, AX
	VPBROADCASTQ AX, Z5
	VPSUBQ Z5, Z4, Z6            // n-1
	MOVQ $8, AX
	VPBROADCASTQ AX, Z7          // 8
	VPCMPUQ $1, Z7, Z6, K1       // n-1 < 8, unsigned
	VPCMPUQ $5, Z7, Z3, K1, K1   // e >= 8
	LEAQ -8(DX), AX
	VPBROADCASTQ AX, Z8
	VPCMPQ $2, Z8, Z2, K1, K1    // s <= len-8, signed

	// lo: bytes s to s+7, hi: bytes e-8 to e-1.
	VPXORQ Z9, Z9, Z9
	KMOVQ K1, K2
	VPGATHERQQ (DI)(Z2*1), K2, Z9
	VPSUBQ Z7, Z3, Z10
	VPXORQ Z11, Z11, Z11
	KMOVQ K1, K2
	VPGATHERQQ (DI)(Z10*1), K2, Z11

	// Lower A to Z: bytes with x-'A' <= 25 get 0x20.
	MOVL $0x41, AX
	VPBROADCASTB AX, Z12
	MOVL $25, AX
	VPBROADCASTB AX, Z13
	MOVL $0x20, AX
	VPBROADCASTB AX, Z14
	VPSUBB Z12, Z9, Z15
	VPCMPUB $2, Z13, Z15, K3
	VMOVDQU8.Z Z14, K3, Z15
	VPORQ Z15, Z9, Z9
	VPSUBB Z12, Z11, Z15
	VPCMPUB $2, Z13, Z15, K3
	VMOVDQU8.Z Z14, K3, Z15
	VPORQ Z15, Z11, Z11

	// 4 to 8 bytes: rrmxmx((hi>>32 + lo<<32) ^ secret4to8, n).
	VPSRLQ $32, Z11, Z15
	VPSLLQ $32, Z9, Z16
	VPADDQ Z16, Z15, Z15
	MOVQ $0xc73ab174c5ecd5a2, AX // secret4to8
	VPBROADCASTQ AX, Z16
	VPXORQ Z16, Z15, Z15
	VPROLQ $49, Z15, Z16
	VPROLQ $24, Z15, Z17
	VPTERNLOGQ $0x96, Z17, Z16, Z15 // h ^ rotl49 ^ rotl24
	MOVQ $0x9fb21c651e98df25, AX
	VPBROADCASTQ AX, Z18
	VPMULLQ Z18, Z15, Z15
	VPSRLQ $35, Z15, Z16
	VPADDQ Z4, Z16, Z16
	VPXORQ Z16, Z15, Z15
	VPMULLQ Z18, Z15, Z15
	VPSRLQ $28, Z15, Z16
	VPXORQ Z16, Z15, Z15

	// 1 to 3 bytes: small(lo&0xff, lo>>(8*(n>>1))&0xff, hi>>56, n).
	MOVL $0xff, AX
	VPBROADCASTQ AX, Z19
	VPANDQ Z19, Z9, Z20          // c1
	VPSRLQ $1, Z4, Z21
	VPSLLQ $3, Z21, Z21
	VPSRLVQ Z21, Z9, Z21
	VPANDQ Z19, Z21, Z21         // c2
	VPSRLQ $56, Z11, Z22         // c3
	VPSLLQ $16, Z20, Z20
	VPSLLQ $24, Z21, Z21
	VPSLLQ $8, Z4, Z23
	VPTERNLOGQ $0xfe, Z21, Z20, Z22 // c1<<16 | c2<<24 | c3
	VPORQ Z23, Z22, Z22
	MOVQ $0x87275a9b, AX         // secret1to3
	VPBROADCASTQ AX, Z16
	VPXORQ Z16, Z22, Z22
	VPSRLQ $33, Z22, Z16
	VPXORQ Z16, Z22, Z22
	MOVQ $0xc2b2ae3d27d4eb4f, AX // xxhPrime2
	VPBROADCASTQ AX, Z16
	VPMULLQ Z16, Z22, Z22
	VPSRLQ $29, Z22, Z16
	VPXORQ Z16, Z22, Z22
	MOVQ $0x165667b19e3779f9, AX // xxhPrime3
	VPBROADCASTQ AX, Z16
	VPMULLQ Z16, Z22, Z22
	VPSRLQ $32, Z22, Z16
	VPXORQ Z16, Z22, Z22

	// The formula for each lane's length, stored where hashed.
	MOVQ $4, AX
	VPBROADCASTQ AX, Z16
	VPCMPUQ $1, Z16, Z4, K4      // n < 4
	VMOVDQA64 Z22, K4, Z15
	VMOVDQU64 Z15, K1, (SI)

	KMOVQ K1, AX
	NOTQ AX
	ANDQ $0xff, AX
	VZEROUPPER
	MOVQ AX, rest+32(FP)
	RET
