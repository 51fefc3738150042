package table

import (
	"math/bits"

	"github.com/spaolacci/murmur3"
)

// bloomHashes returns h_a and h_b of §10.7: the low and high 64 bits of
// MurmurHash3_x64_128 of the canonical bytes.
func bloomHashes(canon []byte, seed uint32) (ha, hb uint64) {
	return murmur3.Sum128WithSeed(canon, seed)
}

// bloomPositions returns the k filter bits of a value:
// (h_a + i*h_b) mod m_bits for i = 0..k-1, computed exactly.
func bloomPositions(canon []byte, k int, mbits uint64, seed uint32) []uint64 {
	ha, hb := bloomHashes(canon, seed)
	out := make([]uint64, k)
	for i := range out {
		hi, lo := bits.Mul64(uint64(i), hb)
		lo, carry := bits.Add64(lo, ha, 0)
		hi += carry
		_, out[i] = bits.Div64(hi%mbits, lo, mbits)
	}
	return out
}

// bloomSet sets bit g of a packed filter (bit g%8 of byte g/8).
func bloomSet(filter []byte, g uint64) { filter[g>>3] |= 1 << (g & 7) }

// bloomHas tests bit g of a packed filter.
func bloomHas(filter []byte, g uint64) bool { return filter[g>>3]&(1<<(g&7)) != 0 }

// MayContain reports whether the chunk whose filter is given may hold a
// value with the canonical bytes canon (§10.7); false means it does not.
func (si *SearchIndex) MayContain(filter, canon []byte) bool {
	if si.MBits == 0 || uint64(len(filter))*8 < si.MBits {
		return true
	}
	for _, g := range bloomPositions(canon, si.K, si.MBits, si.Seed) {
		if !bloomHas(filter, g) {
			return false
		}
	}
	return true
}
