#include "textflag.h"

// func floatMinMax64(v []byte) (lo, hi float64)
//
// Four values a step into two minima and two maxima of two lanes each
// (SSE2, so any amd64). MINPD and MAXPD return their source operand when
// either operand is NaN, so the running minimum (maximum) is the source
// and the new values the destination: a NaN value leaves it as it was.
// The few values after the last whole step go through MINSD and MAXSD
// the same way.
TEXT ·floatMinMax64(SB), NOSPLIT, $0-40
	MOVQ v_base+0(FP), SI
	MOVQ v_len+8(FP), CX
	MOVQ $0x7FF0000000000000, AX // +Inf
	MOVQ AX, X0
	PUNPCKLQDQ X0, X0
	MOVAPD X0, X1                // X0, X1: minima
	MOVQ $0xFFF0000000000000, AX // -Inf
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	MOVAPD X2, X3                // X2, X3: maxima

step:
	CMPQ CX, $32
	JB   tail
	MOVUPD 0(SI), X4
	MOVUPD 16(SI), X5
	MOVAPD X4, X6
	MOVAPD X5, X7
	MINPD  X0, X4
	MINPD  X1, X5
	MAXPD  X2, X6
	MAXPD  X3, X7
	MOVAPD X4, X0
	MOVAPD X5, X1
	MOVAPD X6, X2
	MOVAPD X7, X3
	ADDQ   $32, SI
	SUBQ   $32, CX
	JMP    step

tail:
	CMPQ  CX, $8
	JB    done
	MOVSD 0(SI), X4
	MOVSD X4, X6
	MINSD X0, X4
	MAXSD X2, X6
	MOVSD X4, X0
	MOVSD X6, X2
	ADDQ  $8, SI
	SUBQ  $8, CX
	JMP   tail

done:
	// neither minima nor maxima hold a NaN
	MINPD   X1, X0
	MOVHLPS X0, X4
	MINSD   X4, X0
	MAXPD   X3, X2
	MOVHLPS X2, X6
	MAXSD   X6, X2
	MOVSD   X0, lo+24(FP)
	MOVSD   X2, hi+32(FP)
	RET
