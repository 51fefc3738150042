#include "textflag.h"

// func unshuffle8SSE2(dst, src []byte, n, m int)
//
// Elements 0 to m-1 (m a multiple of 16, at most n) of unshuffle8: 16
// bytes of each of the 8 planes of n bytes make 16 elements, a byte
// matrix transposed by interleaving bytes, then words, then double words
// (SSE2, so any amd64).
TEXT ·unshuffle8SSE2(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ n+48(FP), DX
	MOVQ m+56(FP), CX
	SHRQ $4, CX
	JZ   done
	LEAQ (DX)(DX*2), R8  // 3n
	LEAQ (DX)(DX*4), R9  // 5n
	LEAQ (R8)(R8*1), R10 // 6n
	LEAQ (R9)(DX*2), R11 // 7n

step:
	MOVOU (SI), X0
	MOVOU (SI)(DX*1), X1
	MOVOU (SI)(DX*2), X2
	MOVOU (SI)(R8*1), X3
	MOVOU (SI)(DX*4), X4
	MOVOU (SI)(R9*1), X5
	MOVOU (SI)(R10*1), X6
	MOVOU (SI)(R11*1), X7

	// bytes of planes 0-1, 2-3, 4-5, 6-7
	MOVO      X0, X8
	PUNPCKLBW X1, X0
	PUNPCKHBW X1, X8
	MOVO      X2, X9
	PUNPCKLBW X3, X2
	PUNPCKHBW X3, X9
	MOVO      X4, X10
	PUNPCKLBW X5, X4
	PUNPCKHBW X5, X10
	MOVO      X6, X11
	PUNPCKLBW X7, X6
	PUNPCKHBW X7, X11

	// words: planes 0-3 and 4-7 of elements 0-3, 4-7, 8-11, 12-15
	MOVO      X0, X1
	PUNPCKLWL X2, X0
	PUNPCKHWL X2, X1
	MOVO      X8, X3
	PUNPCKLWL X9, X8
	PUNPCKHWL X9, X3
	MOVO      X4, X5
	PUNPCKLWL X6, X4
	PUNPCKHWL X6, X5
	MOVO      X10, X7
	PUNPCKLWL X11, X10
	PUNPCKHWL X11, X7

	// double words: whole elements, two a register
	MOVO      X0, X2
	PUNPCKLLQ X4, X0
	PUNPCKHLQ X4, X2
	MOVO      X1, X6
	PUNPCKLLQ X5, X1
	PUNPCKHLQ X5, X6
	MOVO      X8, X9
	PUNPCKLLQ X10, X8
	PUNPCKHLQ X10, X9
	MOVO      X3, X11
	PUNPCKLLQ X7, X3
	PUNPCKHLQ X7, X11

	MOVOU X0, 0(DI)
	MOVOU X2, 16(DI)
	MOVOU X1, 32(DI)
	MOVOU X6, 48(DI)
	MOVOU X8, 64(DI)
	MOVOU X9, 80(DI)
	MOVOU X3, 96(DI)
	MOVOU X11, 112(DI)
	ADDQ  $16, SI
	ADDQ  $128, DI
	DECQ  CX
	JNZ   step

done:
	RET
