package h5core

import "fmt"

// chunkLoc is where one chunk is stored.
type chunkLoc struct {
	scaled []uint64   // chunk coordinates in units of chunks
	addr   uint64     // undefAddr when the chunk is not allocated
	size   uint64     // stored (possibly filtered) size in bytes
	mask   uint32     // filter mask: bit i set = filter i skipped
	stc    *stcRecord // structured chunks: the sections; nil otherwise
}

// chunkIndex is implemented by every chunk index kind.
type chunkIndex interface {
	// chunk returns the location of the chunk at the given scaled
	// coordinates; addr is undefAddr for a chunk never written.
	chunk(scaled []uint64) (chunkLoc, error)
	// forEach visits every allocated chunk.
	forEach(fn func(chunkLoc) error) error
}

// chunkGeom is the geometry a chunk index needs.
type chunkGeom struct {
	dims     []uint64 // current dataset dimensions
	maxDims  []uint64 // maximum dimensions (unlimited = ^0)
	chunk    []uint64 // chunk dimensions
	elemSize uint64
	filtered bool // the dataset has a filter pipeline
}

// chunkBytes is the decoded size of one chunk.
func (g *chunkGeom) chunkBytes() uint64 {
	n := g.elemSize
	for _, c := range g.chunk {
		n *= c
	}
	return n
}

// grid returns the number of chunks along each dimension for dims.
func (g *chunkGeom) grid(dims []uint64) []uint64 {
	out := make([]uint64, len(dims))
	for i, d := range dims {
		if d == unlimited {
			out[i] = unlimited
			continue
		}
		out[i] = (d + g.chunk[i] - 1) / g.chunk[i]
	}
	return out
}

// linear returns the row-major index of scaled in a grid of the given
// chunk counts.
func linear(scaled, grid []uint64) uint64 {
	var idx uint64
	for i, s := range scaled {
		idx = idx*grid[i] + s
	}
	return idx
}

// numChunks returns the total chunk count of a grid, or false if it
// overflows.
func numChunks(grid []uint64) (uint64, bool) {
	n := uint64(1)
	for _, g := range grid {
		if g != 0 && n > ^uint64(0)/g {
			return 0, false
		}
		n *= g
	}
	return n, true
}

// newChunkIndex dispatches on the index kind the layout message names,
// for ordinary and structured-chunk layouts alike (these have the single
// chunk, fixed array, extensible array and v2 B-tree kinds only).
func (f *File) newChunkIndex(l *layout, g *chunkGeom) (chunkIndex, error) {
	switch l.index {
	case IndexBtreeV1:
		return f.newBtree1ChunkIndex(l, g), nil
	case IndexSingleChunk:
		if l.stc != nil {
			loc := l.stc.single
			loc.scaled = make([]uint64, len(g.dims))
			return &singleIndex{loc: loc}, nil
		}
		size, mask := g.chunkBytes(), uint32(0)
		if l.flags&2 != 0 {
			size, mask = l.singleSize, l.singleMask
		}
		return &singleIndex{loc: chunkLoc{scaled: make([]uint64, len(g.dims)), addr: l.addr, size: size, mask: mask}}, nil
	case IndexImplicit:
		return &implicitIndex{l: l, g: g}, nil
	case IndexFixedArray:
		return f.newFixedArrayIndex(l, g)
	case IndexExtensibleArr:
		return f.newExtensibleArrayIndex(l, g)
	case IndexBtreeV2:
		return f.newBtree2ChunkIndex(l, g)
	}
	return nil, fmt.Errorf("chunk index kind %d: %w", l.index, ErrUnsupported)
}

// singleIndex is the single-chunk index: the dataset is one chunk.
type singleIndex struct{ loc chunkLoc }

func (s *singleIndex) chunk(scaled []uint64) (chunkLoc, error) {
	for _, v := range scaled {
		if v != 0 {
			return chunkLoc{addr: undefAddr}, nil
		}
	}
	return s.loc, nil
}

func (s *singleIndex) forEach(fn func(chunkLoc) error) error {
	if s.loc.addr == undefAddr {
		return nil
	}
	return fn(s.loc)
}

// implicitIndex is the implicit index: unfiltered chunks stored
// contiguously in row-major chunk order from the index address.
type implicitIndex struct {
	l *layout
	g *chunkGeom
}

func (x *implicitIndex) chunk(scaled []uint64) (chunkLoc, error) {
	grid := x.g.grid(x.g.maxDims)
	size := x.g.chunkBytes()
	idx := linear(scaled, grid)
	if x.l.addr == undefAddr {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	if size != 0 && idx > (^uint64(0)-x.l.addr)/size {
		return chunkLoc{}, formatErr(x.l.addr, "implicit chunk index overflows")
	}
	return chunkLoc{scaled: scaled, addr: x.l.addr + idx*size, size: size}, nil
}

func (x *implicitIndex) forEach(fn func(chunkLoc) error) error {
	return eachScaled(x.g.grid(x.g.dims), func(s []uint64) error {
		loc, err := x.chunk(s)
		if err != nil || loc.addr == undefAddr {
			return err
		}
		return fn(loc)
	})
}

// eachScaled visits every scaled coordinate of a grid in row-major order.
func eachScaled(grid []uint64, fn func([]uint64) error) error {
	for _, g := range grid {
		if g == 0 {
			return nil
		}
	}
	s := make([]uint64, len(grid))
	for {
		if err := fn(append([]uint64(nil), s...)); err != nil {
			return err
		}
		i := len(s) - 1
		for ; i >= 0; i-- {
			s[i]++
			if s[i] < grid[i] {
				break
			}
			s[i] = 0
		}
		if i < 0 {
			return nil
		}
	}
}
