package h5core

import (
	"encoding/binary"
	"fmt"
)

// put encodes loc as one entry, the inverse of next.
func (e *arrayElems) put(b []byte, so int, loc chunkLoc) error {
	if e.stc != nil {
		copy(b[:e.size], e.stc.appendIndexRecord(nil, so, loc, e.filtered, 0))
		return nil
	}
	putAddr(b, loc.addr, so)
	if e.filtered {
		if loc.addr != undefAddr && (e.sizeLen < 8 && loc.size >= 1<<(8*e.sizeLen)) {
			return fmt.Errorf("chunk of %d bytes does not fit the index's %d-byte size field", loc.size, e.sizeLen)
		}
		putAddr(b[so:], loc.size, e.sizeLen)
		if loc.addr == undefAddr {
			putAddr(b[so:], 0, e.sizeLen)
		}
		binary.LittleEndian.PutUint32(b[so+e.sizeLen:], loc.mask)
	}
	return nil
}

// emptyEntries returns n entries that name no chunk.
func (e *arrayElems) emptyEntries(so int, n uint64) []byte {
	b := make([]byte, n*uint64(e.size))
	for i := uint64(0); i < n; i++ {
		e.put(b[i*uint64(e.size):], so, chunkLoc{addr: undefAddr})
	}
	return b
}

// writeBlock sets the trailing lookup3 checksum of b and writes it whole
// at addr.
func (tx *Tx) writeBlock(addr uint64, b []byte) error {
	binary.LittleEndian.PutUint32(b[len(b)-4:], lookup3(b[:len(b)-4], 0))
	return tx.write(addr, b)
}

// arrayPrefix encodes the prefix shared by the blocks of fixed and
// extensible arrays: signature, version (arrayBlockVersion), client,
// header address.
func arrayPrefix(b []byte, sig string, client uint8, hdr uint64, so int) int {
	copy(b, sig)
	b[4], b[5] = arrayBlockVersion(client), client
	putAddr(b[6:], hdr, so)
	return 6 + so
}
