package h5core

import "golang.org/x/sys/cpu"

// adlerAVX2 says whether adlerBlocksAVX2 runs here.
var adlerAVX2 = cpu.X86.HasAVX2

// adlerBlocks is adlerBlocksGo for p of whole 32-byte blocks, in AVX2
// where the processor has it.
func adlerBlocks(p []byte) (sum, weighted uint32) {
	if adlerAVX2 {
		return adlerBlocksAVX2(p)
	}
	return adlerBlocksGo(p)
}

// adlerBlocksAVX2 is adlerBlocksGo for p of whole 32-byte blocks. See
// adler32_amd64.s.
//
//go:noescape
func adlerBlocksAVX2(p []byte) (sum, weighted uint32)
