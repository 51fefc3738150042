package h5core

import "encoding/binary"

// newBtree1ChunkIndex returns the chunk index of layout messages v1-v3: a
// v1 B-tree (node type 1) keyed by chunk offsets in elements.
func (f *File) newBtree1ChunkIndex(l *layout, g *chunkGeom) chunkIndex {
	rank := len(g.chunk)
	keySize := 8 + 8*(rank+1)
	return &chunkTable{g: g, addr: l.addr, read: func(add func(chunkLoc) error) error {
		if l.addr == undefAddr {
			return nil
		}
		return f.walkBtree1(l.addr, btree1Chunk, keySize, func(key []byte, child uint64) error {
			loc := chunkLoc{addr: child, scaled: make([]uint64, rank),
				size: uint64(binary.LittleEndian.Uint32(key)), mask: binary.LittleEndian.Uint32(key[4:])}
			for i := range loc.scaled {
				off := binary.LittleEndian.Uint64(key[8+8*i:])
				if off%g.chunk[i] != 0 {
					return formatErr(l.addr, "chunk offset %d is not a multiple of the chunk size %d", off, g.chunk[i])
				}
				loc.scaled[i] = off / g.chunk[i]
			}
			return add(loc)
		})
	}}
}
