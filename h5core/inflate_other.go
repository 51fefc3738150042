//go:build !amd64

package h5core

// huffmanAsm is false: huffmanBlock's Go loop decodes everywhere but amd64.
const huffmanAsm = false

// huffmanFastAsm is assembly on amd64 only; elsewhere it decodes nothing.
func huffmanFastAsm(_ []byte, op int, _ *bitReader, _ *[litlenTableSize]uint32, _ *[distTableSize]uint32) int {
	return op
}
