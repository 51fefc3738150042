package h5core

import "encoding/binary"

// superblockEOF returns the superblock bytes (at relative address 0) with
// the end-of-file address set to eoa (relative to the base; the field
// holds it plus the stored base address, as libhdf5 encodes it) and, for
// versions 2 and 3, the checksum recomputed: the whole block, to be
// written at once.
func (tx *Tx) superblockEOF(eoa uint64) (uint64, []byte, error) {
	f := tx.w.f
	so := uint64(f.so)
	var at, end uint64 // the address field, the end of the block
	switch f.sb.version {
	case 0:
		at = 24 + 2*so
		end = at + 2*so
	case 1:
		at = 28 + 2*so
		end = at + 2*so
	default:
		at = 12 + 2*so
		end = 12 + 4*so + 4
	}
	b, err := tx.read(0, end)
	if err != nil {
		return 0, nil, err
	}
	putAddr(b[at:], eoa+f.sb.baseAddr, f.so)
	if f.sb.version >= 2 {
		binary.LittleEndian.PutUint32(b[end-4:], lookup3(b[:end-4], 0))
	}
	return 0, b, nil
}

// putAddr encodes an address of n bytes (all ones for undefAddr).
func putAddr(b []byte, v uint64, n int) {
	for i := range n {
		b[i] = byte(v >> (8 * i))
	}
}

// relEOF returns the end-of-file address relative to the base: libhdf5
// stores it as an absolute address (relative EOF plus the base address
// field), so files with a user block hold the user block's size in it.
func (sb *superblock) relEOF() uint64 { return sb.eofAddr - sb.baseAddr }
