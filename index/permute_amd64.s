#include "textflag.h"

// func pextPermute(fp, key uint64, shift uint) uint64
//
// PEXT gathers the bits of fp under key into the low bits, in their
// order; the bits under ^key likewise. The key bits, shifted to the top,
// and the others below them are table.permute's result for a table whose
// key bits keep their order.
TEXT ·pextPermute(SB), NOSPLIT, $0-32
	MOVQ  fp+0(FP), AX
	MOVQ  key+8(FP), BX
	MOVQ  shift+16(FP), CX
	PEXTQ BX, AX, DX
	NOTQ  BX
	PEXTQ BX, AX, R8
	SHLQ  CX, DX
	ORQ   R8, DX
	MOVQ  DX, ret+24(FP)
	RET

// func pextPermuteSlots(dst, fps []uint64, slots []uint32, key uint64, shift uint)
//
// dst[i] = pextPermute(fps[slots[i]], key, shift) for i < len(slots). The
// caller guarantees len(dst) >= len(slots) and every slot < len(fps).
TEXT ·pextPermuteSlots(SB), NOSPLIT, $0-88
	MOVQ  dst_base+0(FP), DI
	MOVQ  fps_base+24(FP), SI
	MOVQ  slots_base+48(FP), R9
	MOVQ  slots_len+56(FP), R10
	MOVQ  key+72(FP), BX
	MOVQ  shift+80(FP), CX
	MOVQ  BX, R11
	NOTQ  R11
	XORQ  R12, R12
	TESTQ R10, R10
	JEQ   done

loop:
	MOVL  (R9)(R12*4), AX
	MOVQ  (SI)(AX*8), AX
	PEXTQ BX, AX, DX
	PEXTQ R11, AX, R8
	SHLQ  CX, DX
	ORQ   R8, DX
	MOVQ  DX, (DI)(R12*8)
	INCQ  R12
	CMPQ  R12, R10
	JLT   loop

done:
	RET

// func pextPermuteAll(dst, fps []uint64, key uint64, shift uint)
//
// dst[i] = pextPermute(fps[i], key, shift) for i < len(fps). The caller
// guarantees len(dst) >= len(fps).
TEXT ·pextPermuteAll(SB), NOSPLIT, $0-64
	MOVQ  dst_base+0(FP), DI
	MOVQ  fps_base+24(FP), SI
	MOVQ  fps_len+32(FP), R10
	MOVQ  key+48(FP), BX
	MOVQ  shift+56(FP), CX
	MOVQ  BX, R11
	NOTQ  R11
	XORQ  R12, R12
	TESTQ R10, R10
	JEQ   done

loop:
	MOVQ  (SI)(R12*8), AX
	PEXTQ BX, AX, DX
	PEXTQ R11, AX, R8
	SHLQ  CX, DX
	ORQ   R8, DX
	MOVQ  DX, (DI)(R12*8)
	INCQ  R12
	CMPQ  R12, R10
	JLT   loop

done:
	RET
