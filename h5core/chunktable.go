package h5core

import (
	"math"
	"sort"
	"sync"
)

// maxIndexedChunks bounds how many chunk records an index may hold in
// memory; more than any real file has.
const maxIndexedChunks = 1 << 26

// tablePageBits sets the size of a chunk table's pages: 2^13 records of
// 24 bytes, 192 KiB.
const tablePageBits = 13

// chunkTable is a chunk index whose records are read whole, once, on
// first use (the B-tree kinds), and kept sorted by linear chunk number
// over the current extent: three words a chunk (24 MB for a million
// chunks), in pages of fixed size so that the table grows without
// copying. Sizes beyond 32 bits (layout v5) and the sections of
// structured chunks, which few chunks or few datasets have, are kept
// beside the pages.
type chunkTable struct {
	g    *chunkGeom
	addr uint64 // the index's address, for errors
	// read calls add for every record of the index.
	read func(add func(chunkLoc) error) error

	once  sync.Once
	err   error
	pages [][]tableChunk // sorted by lin, one record per chunk
	n     int
	wide  map[uint64]uint64     // by lin: sizes of 2^32 bytes or more
	stc   map[uint64]*stcRecord // by lin: sections of structured chunks
}

// tableChunk is one stored chunk of a chunkTable; size is math.MaxUint32
// when the size is in chunkTable.wide.
type tableChunk struct {
	lin, addr  uint64
	size, mask uint32
}

// at returns the i-th record.
func (t *chunkTable) at(i int) *tableChunk {
	return &t.pages[i>>tablePageBits][i&(1<<tablePageBits-1)]
}

// push appends a record.
func (t *chunkTable) push(c tableChunk) {
	if t.n&(1<<tablePageBits-1) == 0 {
		t.pages = append(t.pages, make([]tableChunk, 0, 1<<tablePageBits))
	}
	p := len(t.pages) - 1
	t.pages[p] = append(t.pages[p], c)
	t.n++
}

// Len, Less and Swap sort a table read out of order (a crafted B-tree).
func (t *chunkTable) Len() int           { return t.n }
func (t *chunkTable) Less(i, j int) bool { return t.at(i).lin < t.at(j).lin }
func (t *chunkTable) Swap(i, j int)      { a, b := t.at(i), t.at(j); *a, *b = *b, *a }

func (t *chunkTable) load() {
	grid := t.g.grid(t.g.dims)
	sorted := true
	t.err = t.read(func(loc chunkLoc) error {
		if loc.addr == undefAddr || !inside(loc.scaled, grid) {
			return nil // absent, or beyond the current extent (after a shrink)
		}
		if t.n >= maxIndexedChunks {
			return formatErr(t.addr, "chunk index holds more than %d chunks", maxIndexedChunks)
		}
		c := tableChunk{lin: linear(loc.scaled, grid), addr: loc.addr, size: uint32(loc.size), mask: loc.mask}
		if loc.size >= math.MaxUint32 {
			if t.wide == nil {
				t.wide = map[uint64]uint64{}
			}
			c.size, t.wide[c.lin] = math.MaxUint32, loc.size
		}
		if loc.stc != nil {
			if t.stc == nil {
				t.stc = map[uint64]*stcRecord{}
			}
			t.stc[c.lin] = loc.stc
		}
		if t.n > 0 && t.at(t.n-1).lin >= c.lin {
			sorted = false
		}
		t.push(c)
		return nil
	})
	if t.err != nil || sorted {
		return
	}
	// B-trees list chunks in order; a record repeated keeps the last one
	// read, as a map would (the side maps already hold the last one).
	sort.Stable(t)
	k := 0
	for i := 0; i < t.n; i++ {
		if i+1 < t.n && t.at(i+1).lin == t.at(i).lin {
			continue
		}
		*t.at(k) = *t.at(i)
		k++
	}
	last := (k + 1<<tablePageBits - 1) >> tablePageBits
	t.pages = t.pages[:last]
	if last > 0 {
		t.pages[last-1] = t.pages[last-1][:k-(last-1)<<tablePageBits]
	}
	t.n = k
}

// loc returns the location of record c at scaled.
func (t *chunkTable) loc(c *tableChunk, scaled []uint64) chunkLoc {
	size := uint64(c.size)
	if c.size == math.MaxUint32 {
		size = t.wide[c.lin]
	}
	return chunkLoc{scaled: scaled, addr: c.addr, size: size, mask: c.mask, stc: t.stc[c.lin]}
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
	i := sort.Search(t.n, func(i int) bool { return t.at(i).lin >= lin })
	if i == t.n || t.at(i).lin != lin {
		return chunkLoc{scaled: scaled, addr: undefAddr}, nil
	}
	return t.loc(t.at(i), scaled), nil
}

// forEach visits the stored chunks in row-major order (never the whole
// grid, which a hostile extent can make endless).
func (t *chunkTable) forEach(fn func(chunkLoc) error) error {
	t.once.Do(t.load)
	if t.err != nil {
		return t.err
	}
	grid := t.g.grid(t.g.dims)
	for i := 0; i < t.n; i++ {
		c := t.at(i)
		if err := fn(t.loc(c, unravel(c.lin, grid))); err != nil {
			return err
		}
	}
	return nil
}
