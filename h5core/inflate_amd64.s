#include "go_asm.h"
#include "textflag.h"

// REFILL fills the bit buffer to at least 56 bits: 8 bytes loaded, 7 - n/8
// of them kept. The low n bits stay as they are, and so does AX.
#define REFILL \
	MOVQ  (SI), CX; \
	SHLXQ DX, CX, CX; \
	ORQ   CX, BX; \
	MOVL  DX, CX; \
	SHRL  $3, CX; \
	ANDL  $7, CX; \
	SUBQ  CX, SI; \
	ADDQ  $7, SI; \
	ORL   $56, DX

// PUTLITERAL consumes the literal entry AX and writes its byte.
#define PUTLITERAL \
	SHRXQ AX, BX, BX; \
	SUBL  AX, DX; \
	SHRL  $16, AX; \
	MOVB  AX, (DI); \
	INCQ  DI

// LITERAL looks up the next entry of the main literal/length table and,
// unless it is a literal, jumps to other with it in AX; else PUTLITERAL.
#define LITERAL(other) \
	MOVL  BX, AX; \
	ANDL  $0x7ff, AX; \
	MOVL  (R12)(AX*4), AX; \
	BTL   $12, AX; \
	JCC   other; \
	PUTLITERAL

// func huffmanFastAsm(out []byte, op int, br *bitReader, lt *[litlenTableSize]uint32, dt *[distTableSize]uint32) int
//
// The fast loop of huffmanBlock (inflate.go) with BMI2: the same tables,
// bit buffer and refill, decoding while 16 bytes of input and
// const_fastAsmOutSlack bytes of output are left. It returns the new
// output length and leaves br at the next symbol; at an end of block, a
// code the stream may not use or a distance beyond the output it stops
// before the symbol and leaves it to huffmanBlockTail, which reports it.
//
// Registers:
//	SI next input byte, DI next output byte, R11 start of out
//	BX bit buffer; DX bits in it (its low byte: bits 3-5 alone drive
//	   the refill, SHLX takes the low 6; the rest is what subtracting
//	   whole entries left there)
//	R12 literal/length table, R13 distance table
//	R9, R10 bit buffer and count before the current length symbol
//	AX entry; CX, R8, R14 scratch
//	0(SP) last output position to start a round, 8(SP) last input one
TEXT ·huffmanFastAsm(SB), NOSPLIT, $16-64
	MOVQ out_base+0(FP), R11
	MOVQ out_len+8(FP), AX
	LEAQ -const_fastAsmOutSlack(R11)(AX*1), AX
	MOVQ AX, 0(SP)
	MOVQ op+24(FP), DI
	ADDQ R11, DI
	MOVQ br+32(FP), CX
	MOVQ bitReader_in(CX), SI
	MOVQ bitReader_in+8(CX), AX
	LEAQ -16(SI)(AX*1), AX
	MOVQ AX, 8(SP)
	ADDQ bitReader_pos(CX), SI
	MOVQ bitReader_buf(CX), BX
	MOVQ bitReader_n(CX), DX
	MOVQ lt+40(FP), R12
	MOVQ dt+48(FP), R13

loop:
	CMPQ SI, 8(SP)
	JHI  done
	CMPQ DI, 0(SP)
	JHI  done

	REFILL

	// up to three literals of the main table (11 bits at most each)
	LITERAL(notlit)
	LITERAL(notlitRefill)
	LITERAL(notlitRefill)
	JMP   loop

notlitRefill: // AX is still the next entry
	REFILL

notlit:
	// at least 56 bits: a length (15+5) and a distance (15+13)
	MOVQ BX, R9
	MOVQ DX, R10
	BTL  $13, AX
	JCS  litExcept

length:
	MOVQ  BX, R8
	SHRXQ AX, BX, BX
	SUBL  AX, DX
	BZHIQ AX, R8, R8    // the codeword and extra bits
	MOVL  AX, CX
	SHRL  $8, CX
	SHRXQ CX, R8, R8    // the extra bits
	SHRL  $16, AX
	ADDL  AX, R8        // R8: length

	MOVL BX, AX
	ANDL $0xff, AX
	MOVL (R13)(AX*4), AX
	BTL  $13, AX
	JCS  distExcept

distance:
	MOVQ  BX, R14
	SHRXQ AX, BX, BX
	SUBL  AX, DX
	BZHIQ AX, R14, R14
	MOVL  AX, CX
	SHRL  $8, CX
	SHRXQ CX, R14, R14
	SHRL  $16, AX
	ADDL  R14, AX       // AX: distance
	MOVQ  DI, CX
	SUBQ  R11, CX
	CMPQ  AX, CX
	JHI   restore       // beyond the output so far
	MOVQ  DI, CX
	SUBQ  AX, CX        // CX: the match's source
	LEAQ  (DI)(R8*1), R14
	CMPQ  AX, $16
	JB    short

copy16: // 16 bytes a step never overlap what they copy
	MOVOU (CX), X0
	MOVOU X0, (DI)
	ADDQ  $16, CX
	ADDQ  $16, DI
	CMPQ  DI, R14
	JB    copy16
	MOVQ  R14, DI
	JMP   loop

short:
	CMPQ AX, $8
	JB   tiny

copy8:
	MOVQ (CX), R8
	MOVQ R8, (DI)
	ADDQ $8, CX
	ADDQ $8, DI
	CMPQ DI, R14
	JB   copy8
	MOVQ R14, DI
	JMP  loop

tiny:
	CMPQ AX, $1
	JNE  copy1
	MOVBQZX (CX), R8
	MOVQ    $0x0101010101010101, AX
	IMULQ   AX, R8
	MOVQ    R8, X0
	PUNPCKLQDQ X0, X0

fill16:
	MOVOU X0, (DI)
	ADDQ  $16, DI
	CMPQ  DI, R14
	JB    fill16
	MOVQ  R14, DI
	JMP   loop

copy1: // distances 2-7 overlap byte by byte
	MOVB (CX), R8
	MOVB R8, (DI)
	INCQ CX
	INCQ DI
	CMPQ DI, R14
	JB   copy1
	JMP  loop

litExcept:
	BTL $14, AX
	JCC restore         // end of block or an invalid code
	SHRXQ AX, BX, BX    // the main table's bits
	SUBL  AX, DX
	MOVL  AX, CX
	SHRL  $8, CX
	ANDL  $15, CX
	BZHIQ CX, BX, R8    // the subtable's index
	SHRL  $16, AX
	ADDL  R8, AX
	MOVL  (R12)(AX*4), AX
	BTL   $12, AX
	JCC   subNotLit
	PUTLITERAL
	JMP   loop

subNotLit:
	BTL $13, AX
	JCS restore
	JMP length

distExcept:
	BTL   $14, AX
	JCC   restore
	SHRXQ AX, BX, BX
	SUBL  AX, DX
	MOVL  AX, CX
	SHRL  $8, CX
	ANDL  $15, CX
	BZHIQ CX, BX, R14
	SHRL  $16, AX
	ADDL  R14, AX
	MOVL  (R13)(AX*4), AX
	BTL   $13, AX
	JCS   restore
	JMP   distance

restore:
	MOVQ R9, BX
	MOVQ R10, DX

done:
	MOVQ  br+32(FP), CX
	SUBQ  bitReader_in(CX), SI
	MOVQ  SI, bitReader_pos(CX)
	MOVQ  BX, bitReader_buf(CX)
	MOVBQZX DL, DX
	MOVQ  DX, bitReader_n(CX)
	SUBQ  R11, DI
	MOVQ  DI, ret+56(FP)
	RET
