#include "textflag.h"

// func classify64AVX512(p *byte, n int) (word, space, bad uint64)
TEXT ·classify64AVX512(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ $-1, R8
	CMPQ CX, $64
	JAE  full
	BZHIQ CX, R8, R8 // bytes 0..n-1
full:
	KMOVQ R8, K1
	MOVL $0x20, R9
	VPBROADCASTB R9, Z5     // spaces, and the case bit
	VMOVDQA64 Z5, Z0
	VMOVDQU8 (SI), K1, Z0   // the bytes past n stay spaces
	VPMOVB2M Z0, K2         // bytes of 0x80 and above

	// Word bytes: (x|0x20)-'a' <= 25, x-'0' <= 9, x == '_'; none of 0x80
	// and above.
	VPORD  Z5, Z0, Z1
	MOVL   $0x61, R10
	VPBROADCASTB R10, Z6
	VPSUBB Z6, Z1, Z1
	MOVL   $25, R10
	VPBROADCASTB R10, Z7
	VPCMPUB $2, Z7, Z1, K3
	MOVL   $0x30, R10
	VPBROADCASTB R10, Z6
	VPSUBB Z6, Z0, Z2
	MOVL   $9, R10
	VPBROADCASTB R10, Z7
	VPCMPUB $2, Z7, Z2, K4
	KORQ   K3, K4, K3
	MOVL   $0x5f, R10
	VPBROADCASTB R10, Z6
	VPCMPEQB Z6, Z0, K4
	KORQ   K3, K4, K3
	KNOTQ  K2, K6
	KANDQ  K3, K6, K3
	KMOVQ  K3, AX

	// White space and controls: x <= 0x20.
	VPCMPUB $2, Z5, Z0, K3
	KMOVQ  K3, BX

	// Bad: 0x80 and above, controls below 0x20 but \t to \r, and 0x7f.
	VPCMPUB $1, Z5, Z0, K3  // x < 0x20
	MOVL   $9, R10
	VPBROADCASTB R10, Z6
	VPSUBB Z6, Z0, Z2
	MOVL   $4, R10
	VPBROADCASTB R10, Z7
	VPCMPUB $6, Z7, Z2, K3, K3 // and x-9 > 4: not \t to \r
	MOVL   $0x7f, R10
	VPBROADCASTB R10, Z6
	VPCMPEQB Z6, Z0, K4
	KORQ   K3, K4, K3
	KORQ   K3, K2, K3
	KMOVQ  K3, DX

	VZEROUPPER
	MOVQ AX, word+16(FP)
	MOVQ BX, space+24(FP)
	MOVQ DX, bad+32(FP)
	RET
