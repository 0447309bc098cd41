#include "textflag.h"
#include "nearmask_amd64.h"

// transpose8x8 holds VPERMB indexes: byte e of the result is byte
// 8*(e%8) + e/8 of the source, which turns the byte holding the distance of
// fingerprint e (see below) into byte e.
DATA transpose8x8<>+0(SB)/8, $0x3830282018100800
DATA transpose8x8<>+8(SB)/8, $0x3931292119110901
DATA transpose8x8<>+16(SB)/8, $0x3a322a221a120a02
DATA transpose8x8<>+24(SB)/8, $0x3b332b231b130b03
DATA transpose8x8<>+32(SB)/8, $0x3c342c241c140c04
DATA transpose8x8<>+40(SB)/8, $0x3d352d251d150d05
DATA transpose8x8<>+48(SB)/8, $0x3e362e261e160e06
DATA transpose8x8<>+56(SB)/8, $0x3f372f271f170f07
GLOBL transpose8x8<>(SB), RODATA|NOPTR, $64

// func nearMask(fps []uint64, q uint64, k int) uint64
TEXT ·nearMask(SB), NOSPLIT, $0-48
	NEARMASK_DISPATCH(·nearMaskAVX512, ·nearMaskAVX2, ·nearMaskGeneric)

// func nearMaskAVX512(fps []uint64, q uint64, k int) uint64
//
// Eight vectors of eight fingerprints are XORed with q and counted. Vector v
// lane j then holds the distance of fingerprint 8v+j: at most 64, so one
// byte. Shifting vector v left by 8v bits and ORing all eight puts it in
// byte 8j+v of one vector, VPERMB moves it to byte 8v+j, and a single
// VPCMPUB with k gives the 64-bit answer.
//
// A slice shorter than 64 is read with masked loads: lanes past its end are
// not read (no fault), come out as distance 0, and their bits are cleared at
// the end. Of a longer slice only the first 64 are read.
//
// Registers: SI = &fps[0], CX = len(fps), DX = k clamped to [0, 64],
// R8 = the bits to keep, AX = result, Z0 = q in every quadword, Z1 = k in
// every byte.
TEXT ·nearMaskAVX512(SB), NOSPLIT, $0-48
	MOVQ fps_base+0(FP), SI
	MOVQ fps_len+8(FP), CX
	NEARMASK_K(64)
	VPBROADCASTQ q+24(FP), Z0
	VPBROADCASTB DX, Z1
	MOVQ $-1, R8
	CMPQ CX, R9
	JGE  whole

	// Fewer than 64: lane mask 1<<len - 1, eight bits per vector.
	MOVL $1, R8
	SHLQ CX, R8
	DECQ R8
	KMOVQ R8, K1
	KSHIFTRQ $8, K1, K2
	KSHIFTRQ $16, K1, K3
	KSHIFTRQ $24, K1, K4
	KSHIFTRQ $32, K1, K5
	KSHIFTRQ $40, K1, K6
	KSHIFTRQ $48, K1, K7
	VPXORQ.Z 0(SI), Z0, K1, Z2
	VPXORQ.Z 64(SI), Z0, K2, Z3
	VPXORQ.Z 128(SI), Z0, K3, Z4
	VPXORQ.Z 192(SI), Z0, K4, Z5
	VPXORQ.Z 256(SI), Z0, K5, Z6
	VPXORQ.Z 320(SI), Z0, K6, Z7
	KSHIFTRQ $56, K1, K2
	VPXORQ.Z 384(SI), Z0, K7, Z8
	VPXORQ.Z 448(SI), Z0, K2, Z9
	JMP  count

whole:
	VPXORQ 0(SI), Z0, Z2
	VPXORQ 64(SI), Z0, Z3
	VPXORQ 128(SI), Z0, Z4
	VPXORQ 192(SI), Z0, Z5
	VPXORQ 256(SI), Z0, Z6
	VPXORQ 320(SI), Z0, Z7
	VPXORQ 384(SI), Z0, Z8
	VPXORQ 448(SI), Z0, Z9

count:
	VMOVDQU64 transpose8x8<>(SB), Z10
	NEARMASK_COUNT(Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10)
	KMOVQ K1, AX
	ANDQ R8, AX
	VZEROUPPER

done:
	MOVQ AX, ret+40(FP)
	RET

// func nearMasksAVX512(word *[64]uint64, qs []uint64, k int, out *uint64)
//
// nearMaskAVX512 for several queries over one whole word: the 64
// fingerprints are loaded once into Z2-Z9, then each query is XORed,
// counted and compared as there. k must be in [0, 64] and qs not empty.
//
// Registers: SI = word, DI = &qs[i], CX = queries left, R8 = &out[i],
// Z1 = k in every byte, Z20 = transpose8x8.
TEXT ·nearMasksAVX512(SB), NOSPLIT, $0-48
	MOVQ word+0(FP), SI
	MOVQ qs_base+8(FP), DI
	MOVQ qs_len+16(FP), CX
	MOVQ k+32(FP), DX
	MOVQ out+40(FP), R8
	VPBROADCASTB DX, Z1
	VMOVDQU64 transpose8x8<>(SB), Z20
	VMOVDQU64 0(SI), Z2
	VMOVDQU64 64(SI), Z3
	VMOVDQU64 128(SI), Z4
	VMOVDQU64 192(SI), Z5
	VMOVDQU64 256(SI), Z6
	VMOVDQU64 320(SI), Z7
	VMOVDQU64 384(SI), Z8
	VMOVDQU64 448(SI), Z9

query:
	VPBROADCASTQ (DI), Z0
	VPXORQ Z2, Z0, Z10
	VPXORQ Z3, Z0, Z11
	VPXORQ Z4, Z0, Z12
	VPXORQ Z5, Z0, Z13
	VPXORQ Z6, Z0, Z14
	VPXORQ Z7, Z0, Z15
	VPXORQ Z8, Z0, Z16
	VPXORQ Z9, Z0, Z17
	NEARMASK_COUNT(Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z20)
	KMOVQ K1, AX
	MOVQ AX, (R8)
	ADDQ $8, DI
	ADDQ $8, R8
	DECQ CX
	JNZ  query
	VZEROUPPER
	RET
