package h5core

import (
	"fmt"
	"slices"
	"sync"
)

// stcIndex is the chunk index of a structured-chunk dataset with more
// than one chunk (fixed array, extensible array or v2 B-tree). Its
// records are read once, on first use, into a map by linear chunk number
// over the current extent; load is the kind's record reader.
type stcIndex struct {
	g    *chunkGeom
	load func(emit func(chunkLoc) error) error

	once   sync.Once
	err    error
	chunks map[uint64]chunkLoc
}

// newStructuredIndex dispatches on the index kind of a structured-chunk
// layout. The v2 B-tree node size of the layout message is ignored (the
// prototype writes garbage there); the B-tree header's is used.
func (f *File) newStructuredIndex(l *layout, g *chunkGeom, filtered bool) (chunkIndex, error) {
	s := l.stc
	x := &stcIndex{g: g}
	switch l.index {
	case IndexSingleChunk:
		loc := s.single
		loc.scaled = make([]uint64, len(g.dims))
		return &singleIndex{loc: loc}, nil
	case IndexFixedArray:
		x.load = func(emit func(chunkLoc) error) error { return f.loadStcFixedArray(l, g, filtered, emit) }
	case IndexExtensibleArr:
		x.load = func(emit func(chunkLoc) error) error { return f.loadStcExtensibleArray(l, g, filtered, emit) }
	case IndexBtreeV2:
		x.load = func(emit func(chunkLoc) error) error { return f.loadStcBtree2(l, g, filtered, emit) }
	default:
		return nil, fmt.Errorf("structured-chunk index kind %d: %w", l.index, ErrUnsupported)
	}
	return x, nil
}

func (x *stcIndex) init() {
	x.chunks = map[uint64]chunkLoc{}
	grid := x.g.grid(x.g.dims)
	x.err = x.load(func(loc chunkLoc) error {
		if loc.addr == undefAddr || !inside(loc.scaled, grid) {
			return nil // absent, or beyond the current extent
		}
		if len(x.chunks) >= maxIndexedChunks {
			return fmt.Errorf("chunk index holds more than %d chunks: %w", maxIndexedChunks, ErrUnsupported)
		}
		x.chunks[linear(loc.scaled, grid)] = loc
		return nil
	})
}

func (x *stcIndex) chunk(scaled []uint64) (chunkLoc, error) {
	x.once.Do(x.init)
	if x.err != nil {
		return chunkLoc{}, x.err
	}
	grid := x.g.grid(x.g.dims)
	if !inside(scaled, grid) {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	loc, ok := x.chunks[linear(scaled, grid)]
	if !ok {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	return loc, nil
}

// forEach visits the stored chunks in row-major order of their scaled
// coordinates.
func (x *stcIndex) forEach(fn func(chunkLoc) error) error {
	x.once.Do(x.init)
	if x.err != nil {
		return x.err
	}
	keys := make([]uint64, 0, len(x.chunks))
	for k := range x.chunks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(x.chunks[k]); err != nil {
			return err
		}
	}
	return nil
}
