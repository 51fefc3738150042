#include "textflag.h"

// Byte weights 32, 31, ..., 1 of a 32-byte block, and sixteen 16-bit ones.
DATA adlerWeights<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerWeights<>+8(SB)/8, $0x1112131415161718
DATA adlerWeights<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerWeights<>+24(SB)/8, $0x0102030405060708
GLOBL adlerWeights<>(SB), RODATA|NOPTR, $32

DATA adlerOnes<>+0(SB)/8, $0x0001000100010001
DATA adlerOnes<>+8(SB)/8, $0x0001000100010001
DATA adlerOnes<>+16(SB)/8, $0x0001000100010001
DATA adlerOnes<>+24(SB)/8, $0x0001000100010001
GLOBL adlerOnes<>(SB), RODATA|NOPTR, $32

// func adlerBlocksAVX2(p []byte) (sum, weighted uint32)
//
// For p of whole 32-byte blocks, at most adlerNMax bytes: the sum of its
// bytes and the sum of each byte times its distance from the end (len(p)
// for the first byte, 1 for the last), which Adler-32 adds to s1 and s2.
// Per block, VPSADBW sums the bytes into Y1 (four 64-bit lanes), Y2 adds
// up Y1 as it was before the block (32 times it counts in the weighted
// sum), and VPMADDUBSW then VPMADDWD add the bytes times 32 ... 1 into Y3
// (eight 32-bit lanes). No lane reaches 2^32 within adlerNMax bytes.
TEXT ·adlerBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ    p_base+0(FP), SI
	MOVQ    p_len+8(FP), CX
	VPXOR   Y0, Y0, Y0
	VPXOR   Y1, Y1, Y1
	VPXOR   Y2, Y2, Y2
	VPXOR   Y3, Y3, Y3
	VMOVDQU adlerWeights<>(SB), Y6
	VMOVDQU adlerOnes<>(SB), Y7
	SHRQ    $5, CX
	JZ      fold

block:
	VMOVDQU    (SI), Y4
	VPADDD     Y1, Y2, Y2
	VPSADBW    Y0, Y4, Y5
	VPADDD     Y5, Y1, Y1
	VPMADDUBSW Y6, Y4, Y5
	VPMADDWD   Y7, Y5, Y5
	VPADDD     Y5, Y3, Y3
	ADDQ       $32, SI
	DECQ       CX
	JNZ        block

fold:
	VPSLLD       $5, Y2, Y2
	VPADDD       Y2, Y3, Y3
	VEXTRACTI128 $1, Y1, X4
	VPADDD       X4, X1, X1
	VPSHUFD      $0x4e, X1, X4
	VPADDD       X4, X1, X1
	VMOVD        X1, AX
	VEXTRACTI128 $1, Y3, X4
	VPADDD       X4, X3, X3
	VPSHUFD      $0x4e, X3, X4
	VPADDD       X4, X3, X3
	VPSHUFD      $0xb1, X3, X4
	VPADDD       X4, X3, X3
	VMOVD        X3, BX
	VZEROUPPER
	MOVL         AX, sum+24(FP)
	MOVL         BX, weighted+28(FP)
	RET
