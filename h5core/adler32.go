package h5core

import "encoding/binary"

// adlerNMax is the most bytes adler32Sum adds between reductions: the sums
// of so many bytes stay below 2^32.
const adlerNMax = 5552

// adlerBlock is the unit adlerBlocks sums: 32 bytes.
const adlerBlock = 32

// adler32Sum returns the Adler-32 checksum of p (RFC 1950), the checksum that
// ends a zlib stream. adlerBlocks sums whole blocks, at most adlerNMax bytes
// between reductions; the last bytes go one at a time.
func adler32Sum(p []byte) uint32 {
	const mod = 65521
	s1, s2 := uint64(1), uint64(0)
	for len(p) >= adlerBlock {
		blk := p[:min(len(p), adlerNMax)&^(adlerBlock-1)]
		p = p[len(blk):]
		sum, weighted := adlerBlocks(blk)
		s2 = (s2 + uint64(len(blk))*s1 + uint64(weighted)) % mod
		s1 = (s1 + uint64(sum)) % mod
	}
	for _, b := range p {
		s1 += uint64(b)
		s2 += s1
	}
	return uint32(s2%mod)<<16 | uint32(s1%mod)
}

// adlerBlocksGo returns, for p of whole 8-byte words and at most adlerNMax
// bytes, the sum of its bytes and the sum of each byte times its distance
// from the end (len(p) for the first byte, 1 for the last): what the
// bytes add to Adler-32's s1, and to its s2 besides len(p) times s1.
//
// It takes eight bytes at a time: four uint64 hold, in 32-bit lanes, the
// sums of the eight byte positions of the words (a1-d1), four more the
// running totals of those sums (a2-d2), which is what the per-byte
// recurrence s2 += s1 adds up to.
func adlerBlocksGo(p []byte) (sum, weighted uint32) {
	const lanes = 0x000000ff000000ff
	lo := func(v uint64) uint64 { return v & 0xffffffff }
	var a1, b1, c1, d1, a2, b2, c2, d2 uint64
	for ; len(p) >= 8; p = p[8:] {
		x := binary.LittleEndian.Uint64(p)
		a1 += x & lanes
		b1 += x >> 8 & lanes
		c1 += x >> 16 & lanes
		d1 += x >> 24 & lanes
		a2 += a1
		b2 += b1
		c2 += c1
		d2 += d1
	}
	// byte positions 0-3 are the low lanes of a, b, c, d, 4-7 the high
	// lanes; byte i of word j of J counts 8(J-j)-i times.
	s := lo(a1) + lo(b1) + lo(c1) + lo(d1) + a1>>32 + b1>>32 + c1>>32 + d1>>32
	w := 8 * (lo(a2) + lo(b2) + lo(c2) + lo(d2) + a2>>32 + b2>>32 + c2>>32 + d2>>32)
	w -= lo(b1) + 2*lo(c1) + 3*lo(d1) + 4*(a1>>32) + 5*(b1>>32) + 6*(c1>>32) + 7*(d1>>32)
	return uint32(s), uint32(w)
}
