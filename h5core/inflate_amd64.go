package h5core

import "golang.org/x/sys/cpu"

// huffmanAsm says whether huffmanFastAsm runs here: it needs BMI2.
var huffmanAsm = cpu.X86.HasBMI2

// huffmanFastAsm decodes Huffman codes with the tables lt and dt into
// out[op:] while 16 bytes of input and fastAsmOutSlack bytes of output are
// left, and returns the new output length; it stops before an end of
// block or anything huffmanBlockTail must report. See inflate_amd64.s.
//
//go:noescape
func huffmanFastAsm(out []byte, op int, br *bitReader, lt *[litlenTableSize]uint32, dt *[distTableSize]uint32) int
