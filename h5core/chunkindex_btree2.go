package h5core

import (
	"math/bits"
	"sync"
)

// btree2Index is the chunk index of datasets with more than one unlimited
// dimension (layout v4, index type 5): a v2 B-tree of type 10 records
// (unfiltered chunks) or 11 (filtered). It is read once, on first use,
// into a map by linear chunk number.
type btree2Index struct {
	f *File
	l *layout
	g *chunkGeom

	once   sync.Once
	err    error
	chunks map[uint64]chunkLoc
}

func (f *File) newBtree2ChunkIndex(l *layout, g *chunkGeom) (chunkIndex, error) {
	return &btree2Index{f: f, l: l, g: g}, nil
}

// chunkSizeWidth is the width of the chunk size field of filtered chunk
// records: one byte more than the unfiltered chunk size needs, at most 8
// (H5D__bt2_crt_context).
func chunkSizeWidth(chunkBytes uint64) int {
	return min(1+(bits.Len64(chunkBytes|1)-1+8)/8, 8)
}

func (x *btree2Index) load() {
	x.chunks = map[uint64]chunkLoc{}
	if x.l.addr == undefAddr {
		return
	}
	f, rank := x.f, len(x.g.chunk)
	typ, sizeWidth := uint8(bt2Chunk), 0
	if x.g.filtered {
		typ, sizeWidth = bt2ChunkFiltered, chunkSizeWidth(x.g.chunkBytes())
	}
	recSize := f.so + 8*rank
	if x.g.filtered {
		recSize += sizeWidth + 4
	}
	t, err := f.readBtree2(x.l.addr, typ, recSize)
	if err != nil {
		x.err = err
		return
	}
	grid := x.g.grid(x.g.dims)
	x.err = f.walkBtree2(t, func(rec []byte) error {
		d := f.decoder(rec, t.addr)
		loc := chunkLoc{addr: d.offset(), size: x.g.chunkBytes(), scaled: make([]uint64, rank)}
		if x.g.filtered {
			loc.size, loc.mask = d.uN(sizeWidth), d.u32()
		}
		for i := range loc.scaled {
			loc.scaled[i] = d.u64()
		}
		if d.err != nil {
			return d.err
		}
		for i, s := range loc.scaled {
			if s >= grid[i] {
				return nil // a chunk beyond the current extent (after a shrink)
			}
		}
		if len(x.chunks) >= maxIndexedChunks {
			return formatErr(x.l.addr, "chunk B-tree holds more than %d chunks", maxIndexedChunks)
		}
		x.chunks[linear(loc.scaled, grid)] = loc
		return nil
	})
}

func (x *btree2Index) chunk(scaled []uint64) (chunkLoc, error) {
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

func (x *btree2Index) forEach(fn func(chunkLoc) error) error {
	x.once.Do(x.load)
	if x.err != nil {
		return x.err
	}
	grid := x.g.grid(x.g.dims)
	return eachScaled(grid, func(s []uint64) error {
		if loc, ok := x.chunks[linear(s, grid)]; ok {
			return fn(loc)
		}
		return nil
	})
}
