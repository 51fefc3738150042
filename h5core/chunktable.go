package h5core

import (
	"cmp"
	"slices"
	"sync"
)

// maxIndexedChunks bounds how many chunk records an index may hold in
// memory; more than any real file has.
const maxIndexedChunks = 1 << 26

// chunkTable is a chunk index whose records are read whole, once, on
// first use (the B-tree kinds), and kept sorted by linear chunk number
// over the current extent: 40 bytes a chunk, so that a dataset of a
// million chunks costs 40 MB, not a map of coordinate slices.
type chunkTable struct {
	g    *chunkGeom
	addr uint64 // the index's address, for errors
	// read calls add for every record of the index.
	read func(add func(chunkLoc) error) error

	once   sync.Once
	err    error
	chunks []tableChunk // sorted by lin, one per chunk
}

// tableChunk is one stored chunk of a chunkTable.
type tableChunk struct {
	lin, addr, size uint64
	mask            uint32
	stc             *stcRecord
}

func (t *chunkTable) load() {
	grid := t.g.grid(t.g.dims)
	t.err = t.read(func(loc chunkLoc) error {
		if loc.addr == undefAddr || !inside(loc.scaled, grid) {
			return nil // absent, or beyond the current extent (after a shrink)
		}
		if len(t.chunks) >= maxIndexedChunks {
			return formatErr(t.addr, "chunk index holds more than %d chunks", maxIndexedChunks)
		}
		t.chunks = append(t.chunks, tableChunk{lin: linear(loc.scaled, grid), addr: loc.addr, size: loc.size, mask: loc.mask, stc: loc.stc})
		return nil
	})
	if t.err != nil {
		return
	}
	// B-trees list chunks in order; a record repeated keeps the last one
	// read, as a map would.
	byLin := func(a, b tableChunk) int { return cmp.Compare(a.lin, b.lin) }
	if !slices.IsSortedFunc(t.chunks, byLin) {
		slices.SortStableFunc(t.chunks, byLin)
	}
	out := t.chunks[:0]
	for i, c := range t.chunks {
		if i+1 < len(t.chunks) && t.chunks[i+1].lin == c.lin {
			continue
		}
		out = append(out, c)
	}
	t.chunks = slices.Clip(out)
}

func (t *chunkTable) chunk(scaled []uint64) (chunkLoc, error) {
	t.once.Do(t.load)
	if t.err != nil {
		return chunkLoc{}, t.err
	}
	grid := t.g.grid(t.g.dims)
	if !inside(scaled, grid) {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	lin := linear(scaled, grid)
	i, ok := slices.BinarySearchFunc(t.chunks, lin, func(c tableChunk, lin uint64) int { return cmp.Compare(c.lin, lin) })
	if !ok {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	c := t.chunks[i]
	return chunkLoc{scaled: scaled, addr: c.addr, size: c.size, mask: c.mask, stc: c.stc}, nil
}

// forEach visits the stored chunks in row-major order (never the whole
// grid, which a hostile extent can make endless).
func (t *chunkTable) forEach(fn func(chunkLoc) error) error {
	t.once.Do(t.load)
	if t.err != nil {
		return t.err
	}
	grid := t.g.grid(t.g.dims)
	for _, c := range t.chunks {
		scaled := make([]uint64, len(grid))
		rem := c.lin
		for i := len(grid) - 1; i >= 0; i-- {
			scaled[i] = rem % grid[i]
			rem /= grid[i]
		}
		if err := fn(chunkLoc{scaled: scaled, addr: c.addr, size: c.size, mask: c.mask, stc: c.stc}); err != nil {
			return err
		}
	}
	return nil
}
