package h5core

import (
	"fmt"
	"slices"
)

// newChunkIndexWriter returns the writer of the dataset's chunk index.
func (tx *Tx) newChunkIndexWriter(d *dsWriter) (chunkIndexWriter, error) {
	l, g := d.ds.layout, d.ds.geom
	switch l.index {
	case IndexBtreeV1:
		return tx.newBtree1Writer(d)
	case IndexSingleChunk:
		return &singleWriter{d: d}, nil
	case IndexImplicit:
		if l.addr == undefAddr {
			return nil, fmt.Errorf("implicit chunk index never allocated: %w for writing", ErrUnsupported)
		}
		return &implicitWriter{implicitIndex{l: l, g: g}}, nil
	case IndexFixedArray:
		return tx.newFixedArrayWriter(d)
	case IndexExtensibleArr:
		return tx.newExtensibleArrayWriter(d)
	case IndexBtreeV2:
		return tx.newBtree2Writer(d)
	}
	return nil, fmt.Errorf("chunk index kind %s: %w for writing", l.index, ErrUnsupported)
}

// singleWriter writes the single-chunk index: the chunk's address (and,
// filtered, its size and mask) live in the layout message.
type singleWriter struct {
	d       *dsWriter
	pending *chunkLoc
}

func (w *singleWriter) get(scaled []uint64) (chunkLoc, error) {
	if w.pending != nil {
		return *w.pending, nil
	}
	l := w.d.ds.layout
	loc := chunkLoc{scaled: scaled, addr: l.addr, size: w.d.ds.geom.chunkBytes()}
	if l.flags&2 != 0 {
		loc.size, loc.mask = l.singleSize, l.singleMask
	}
	return loc, nil
}

func (w *singleWriter) set(loc chunkLoc) error {
	w.pending = &loc
	return nil
}

func (w *singleWriter) flush() error {
	if w.pending == nil {
		return nil
	}
	loc := *w.pending
	w.pending = nil
	return w.d.setLayout(loc.addr, loc.size, loc.mask)
}

// implicitWriter writes the implicit index: chunks live at fixed
// addresses allocated with the dataset, so there is nothing to record.
type implicitWriter struct{ implicitIndex }

func (w *implicitWriter) get(scaled []uint64) (chunkLoc, error) { return w.chunk(scaled) }

func (w *implicitWriter) set(loc chunkLoc) error {
	if want, err := w.chunk(loc.scaled); err != nil || want.addr != loc.addr {
		return fmt.Errorf("implicit chunk index: chunk %v cannot move", loc.scaled)
	}
	return nil
}

func (w *implicitWriter) flush() error { return nil }

// tableWriter is the writer of the B-tree kinds: the index is read whole
// into memory, changed there, and rebuilt beside the old one at flush,
// the layout message then pointing to the new tree (the old one is left
// unreferenced).
type tableWriter struct {
	d     *dsWriter
	m     map[string]chunkLoc
	dirty bool
	build func(locs []chunkLoc) (uint64, error) // writes the tree, returns its address
}

func scaledKey(s []uint64) string { return fmt.Sprint(s) }

// load reads every record through the reader's table.
func (w *tableWriter) load(t *chunkTable) error {
	w.m = map[string]chunkLoc{}
	return t.read(func(loc chunkLoc) error {
		if loc.addr != undefAddr {
			w.m[scaledKey(loc.scaled)] = loc
		}
		return nil
	})
}

func (w *tableWriter) get(scaled []uint64) (chunkLoc, error) {
	if loc, ok := w.m[scaledKey(scaled)]; ok {
		return loc, nil
	}
	return chunkLoc{scaled: scaled, addr: undefAddr}, nil
}

func (w *tableWriter) set(loc chunkLoc) error {
	if loc.addr == undefAddr { // a chunk removed (structured chunks, §10)
		delete(w.m, scaledKey(loc.scaled))
	} else {
		w.m[scaledKey(loc.scaled)] = loc
	}
	w.dirty = true
	return nil
}

func (w *tableWriter) flush() error {
	if !w.dirty {
		return nil
	}
	locs := make([]chunkLoc, 0, len(w.m))
	for _, l := range w.m {
		locs = append(locs, l)
	}
	sortLocs(locs)
	addr, err := w.build(locs)
	if err != nil {
		return err
	}
	w.dirty = false
	return w.d.setLayout(addr, 0, 0)
}

// sortLocs sorts chunks by their scaled coordinates, lexicographically.
func sortLocs(locs []chunkLoc) {
	slices.SortFunc(locs, func(a, b chunkLoc) int {
		for i := range a.scaled {
			if a.scaled[i] != b.scaled[i] {
				if a.scaled[i] < b.scaled[i] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
}
