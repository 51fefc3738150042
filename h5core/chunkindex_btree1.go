package h5core

import (
	"encoding/binary"
	"sync"
)

// maxIndexedChunks bounds how many chunk records an index may hold in
// memory; more than any real file has.
const maxIndexedChunks = 1 << 26

// btree1Index is the chunk index of layout messages v1-v3: a v1 B-tree
// (node type 1) keyed by chunk offsets. It is read once, on first use,
// into a map by linear chunk number.
type btree1Index struct {
	f *File
	l *layout
	g *chunkGeom

	once   sync.Once
	err    error
	chunks map[uint64]chunkLoc
}

func (x *btree1Index) load() {
	x.chunks = map[uint64]chunkLoc{}
	if x.l.addr == undefAddr {
		return
	}
	rank := len(x.g.chunk)
	keySize := 8 + 8*(rank+1)
	grid := x.g.grid(x.g.dims)
	x.err = x.f.walkBtree1(x.l.addr, btree1Chunk, keySize, func(key []byte, child uint64) error {
		size := binary.LittleEndian.Uint32(key)
		mask := binary.LittleEndian.Uint32(key[4:])
		scaled := make([]uint64, rank)
		for i := range scaled {
			off := binary.LittleEndian.Uint64(key[8+8*i:])
			if off%x.g.chunk[i] != 0 {
				return formatErr(x.l.addr, "chunk offset %d is not a multiple of the chunk size %d", off, x.g.chunk[i])
			}
			scaled[i] = off / x.g.chunk[i]
			if scaled[i] >= grid[i] {
				return nil // a chunk beyond the current extent (after a shrink)
			}
		}
		if len(x.chunks) >= maxIndexedChunks {
			return formatErr(x.l.addr, "chunk B-tree holds more than %d chunks", maxIndexedChunks)
		}
		x.chunks[linear(scaled, grid)] = chunkLoc{scaled: scaled, addr: child, size: uint64(size), mask: mask}
		return nil
	})
}

func (x *btree1Index) chunk(scaled []uint64) (chunkLoc, error) {
	x.once.Do(x.load)
	if x.err != nil {
		return chunkLoc{}, x.err
	}
	loc, ok := x.chunks[linear(scaled, x.g.grid(x.g.dims))]
	if !ok {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	return loc, nil
}

func (x *btree1Index) forEach(fn func(chunkLoc) error) error {
	x.once.Do(x.load)
	if x.err != nil {
		return x.err
	}
	return eachScaled(x.g.grid(x.g.dims), func(s []uint64) error {
		if loc, ok := x.chunks[linear(s, x.g.grid(x.g.dims))]; ok {
			return fn(loc)
		}
		return nil
	})
}
