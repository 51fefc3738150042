package h5core

import "encoding/binary"

// lookup3 is Bob Jenkins' lookup3 hashlittle, the checksum of all version 2
// metadata structures (object headers v2, B-tree v2, fractal heap, ...).
func lookup3(k []byte, initval uint32) uint32 {
	length := len(k)
	a := 0xdeadbeef + uint32(length) + initval
	b, c := a, a
	rot := func(x uint32, n uint) uint32 { return x<<n | x>>(32-n) }
	for length > 12 {
		a += binary.LittleEndian.Uint32(k[0:])
		b += binary.LittleEndian.Uint32(k[4:])
		c += binary.LittleEndian.Uint32(k[8:])
		a -= c
		a ^= rot(c, 4)
		c += b
		b -= a
		b ^= rot(a, 6)
		a += c
		c -= b
		c ^= rot(b, 8)
		b += a
		a -= c
		a ^= rot(c, 16)
		c += b
		b -= a
		b ^= rot(a, 19)
		a += c
		c -= b
		c ^= rot(b, 4)
		b += a
		length -= 12
		k = k[12:]
	}
	if length == 0 {
		return c
	}
	var tail [12]byte
	copy(tail[:], k)
	a += binary.LittleEndian.Uint32(tail[0:])
	b += binary.LittleEndian.Uint32(tail[4:])
	c += binary.LittleEndian.Uint32(tail[8:])
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return c
}

// verifyChecksum checks the trailing 4-byte lookup3 checksum of block,
// which was read at addr and whose last four bytes hold the checksum.
func verifyChecksum(block []byte, addr uint64, what string) error {
	if len(block) < 4 {
		return formatErr(addr, "%s too short for a checksum", what)
	}
	n := len(block) - 4
	want := binary.LittleEndian.Uint32(block[n:])
	if got := lookup3(block[:n], 0); got != want {
		return formatErr(addr, "%s checksum mismatch (stored %#08x, computed %#08x)", what, want, got)
	}
	return nil
}
