#include "textflag.h"

// PEXT_PERMUTE sets DX to the permutation of AX for the key in BX (R11
// holding ^BX and CX the shift, 64 minus the key's bits): PEXT gathers
// the bits of AX under the key into the low bits, in their order, and the
// bits under ^key likewise; the key bits, shifted to the top, and the
// others below them are table.permute's result for a table whose key bits
// keep their order. It uses R8.
#define PEXT_PERMUTE \
	PEXTQ BX, AX, DX \
	PEXTQ R11, AX, R8 \
	SHLQ  CX, DX \
	ORQ   R8, DX

// PEXT_ARGS loads the key and the shift, whose arguments are at key and
// shift (FP offsets), into BX, R11 (^key) and CX.
#define PEXT_ARGS(key, shift) \
	MOVQ key(FP), BX \
	MOVQ shift(FP), CX \
	MOVQ BX, R11 \
	NOTQ R11

// func pextPermute(fp, key uint64, shift uint) uint64
TEXT ·pextPermute(SB), NOSPLIT, $0-32
	PEXT_ARGS(key+8, shift+16)
	MOVQ fp+0(FP), AX
	PEXT_PERMUTE
	MOVQ DX, ret+24(FP)
	RET

// func pextPermuteSlots(dst, fps []uint64, slots []uint32, key uint64, shift uint)
//
// dst[i] = pextPermute(fps[slots[i]], key, shift) for i < len(slots). The
// caller guarantees len(dst) >= len(slots) and every slot < len(fps).
TEXT ·pextPermuteSlots(SB), NOSPLIT, $0-88
	PEXT_ARGS(key+72, shift+80)
	MOVQ  dst_base+0(FP), DI
	MOVQ  fps_base+24(FP), SI
	MOVQ  slots_base+48(FP), R9
	MOVQ  slots_len+56(FP), R10
	XORQ  R12, R12
	TESTQ R10, R10
	JEQ   slotsDone

slotsLoop:
	MOVL (R9)(R12*4), AX
	MOVQ (SI)(AX*8), AX
	PEXT_PERMUTE
	MOVQ DX, (DI)(R12*8)
	INCQ R12
	CMPQ R12, R10
	JLT  slotsLoop

slotsDone:
	RET

// func pextPermuteAll(dst, fps []uint64, key uint64, shift uint)
//
// dst[i] = pextPermute(fps[i], key, shift) for i < len(fps). The caller
// guarantees len(dst) >= len(fps).
TEXT ·pextPermuteAll(SB), NOSPLIT, $0-64
	PEXT_ARGS(key+48, shift+56)
	MOVQ  dst_base+0(FP), DI
	MOVQ  fps_base+24(FP), SI
	MOVQ  fps_len+32(FP), R10
	XORQ  R12, R12
	TESTQ R10, R10
	JEQ   allDone

allLoop:
	MOVQ (SI)(R12*8), AX
	PEXT_PERMUTE
	MOVQ DX, (DI)(R12*8)
	INCQ R12
	CMPQ R12, R10
	JLT  allLoop

allDone:
	RET
