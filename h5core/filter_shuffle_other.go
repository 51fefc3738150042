//go:build !amd64

package h5core

// unshuffle8 interleaves 8 byte planes of n bytes.
func unshuffle8(dst, src []byte, n int) { unshuffle8Go(dst, src, n, 0) }
