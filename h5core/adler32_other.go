//go:build !amd64

package h5core

// adlerBlocks is adlerBlocksGo for p of whole 32-byte blocks.
func adlerBlocks(p []byte) (sum, weighted uint32) { return adlerBlocksGo(p) }
