package h5core

// unshuffle8 interleaves 8 byte planes of n bytes: elements in steps of 16
// by unshuffle8SSE2, the rest by unshuffle8Go.
func unshuffle8(dst, src []byte, n int) {
	_, _ = dst[:8*n], src[:8*n] // unshuffle8SSE2 reads and writes as much
	m := n &^ 15
	unshuffle8SSE2(dst, src, n, m)
	unshuffle8Go(dst, src, n, m)
}

// unshuffle8SSE2 is unshuffle8Go for elements 0 to m-1, m a multiple of 16
// and at most n. See filter_shuffle_amd64.s.
//
//go:noescape
func unshuffle8SSE2(dst, src []byte, n, m int)
