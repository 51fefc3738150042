package h5core

import (
	"slices"
	"sync"
)

// maxIndexedChunks bounds how many chunk records an index may hold in
// memory; more than any real file has.
const maxIndexedChunks = 1 << 26

// chunkTable is a chunk index whose records are read whole, once, on
// first use (the B-tree kinds), and kept by linear chunk number over the
// current extent.
type chunkTable struct {
	g    *chunkGeom
	addr uint64 // the index's address, for errors
	// read calls add for every record of the index.
	read func(add func(chunkLoc) error) error

	once   sync.Once
	err    error
	chunks map[uint64]chunkLoc
}

func (t *chunkTable) load() {
	t.chunks = map[uint64]chunkLoc{}
	grid := t.g.grid(t.g.dims)
	t.err = t.read(func(loc chunkLoc) error {
		if loc.addr == undefAddr || !inside(loc.scaled, grid) {
			return nil // absent, or beyond the current extent (after a shrink)
		}
		if len(t.chunks) >= maxIndexedChunks {
			return formatErr(t.addr, "chunk index holds more than %d chunks", maxIndexedChunks)
		}
		t.chunks[linear(loc.scaled, grid)] = loc
		return nil
	})
}

func (t *chunkTable) chunk(scaled []uint64) (chunkLoc, error) {
	t.once.Do(t.load)
	if t.err != nil {
		return chunkLoc{}, t.err
	}
	grid := t.g.grid(t.g.dims)
	loc, ok := t.chunks[linear(scaled, grid)]
	if !ok || !inside(scaled, grid) {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	return loc, nil
}

// forEach visits the stored chunks in row-major order (never the whole
// grid, which a hostile extent can make endless).
func (t *chunkTable) forEach(fn func(chunkLoc) error) error {
	t.once.Do(t.load)
	if t.err != nil {
		return t.err
	}
	keys := make([]uint64, 0, len(t.chunks))
	for k := range t.chunks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(t.chunks[k]); err != nil {
			return err
		}
	}
	return nil
}
