package h5core

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// Writing structured chunks (sparse-structured-chunk-format.md §4, §10):
// a chunk is always rebuilt from its defined elements, section 0 being
// the encoded selection plus its lookup3 checksum and section 1 the values
// in selection order, each section through its own filter pipeline.

// encodeSparseChunk returns the stored bytes and index record of the
// structured chunk at scaled coordinates scaled, holding the positions
// idx (ascending row-major linear indices inside the chunk) with the
// values vals (packed in the file datatype, in the same order). dims is
// the dataset extent the chunk is written for: with the layout's
// "don't filter partial edge chunks" flag, a chunk reaching past it is
// stored unfiltered.
func (ds *Dataset) encodeSparseChunk(scaled, dims, idx []uint64, vals []byte) ([]byte, *stcRecord, error) {
	g := ds.geom
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: structured chunk %v: %s", ds.f.name, ds.Path, scaled, fmt.Sprintf(format, args...))
	}
	if len(idx) == 0 {
		return nil, nil, fail("no defined element (an empty chunk is removed, never stored)")
	}
	if uint64(len(vals)) != uint64(len(idx))*g.elemSize {
		return nil, nil, fail("%d bytes of values for %d elements of %d bytes", len(vals), len(idx), g.elemSize)
	}
	// section 0 in a buffer with room for its checksum and the values,
	// which follow it unless a filter makes a new buffer of it
	rank := len(g.chunk)
	sec0, _, err := encodeChunkSelection(make([]byte, 0, 3+4+8+16*rank+12+12+4*rank*len(idx)+4+len(vals)), g.chunk, idx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: structured chunk %v: %w", ds.f.name, ds.Path, scaled, err)
	}
	sec0 = binary.LittleEndian.AppendUint32(sec0, lookup3(sec0, 0))
	return ds.packSparseChunk(scaled, dims, sec0, vals, nil)
}

// packSparseChunk returns the stored bytes and index record of the
// structured chunk at scaled for the extent dims from its section 0
// (with its checksum) and values: each section through its filter
// pipeline, unless the layout leaves the chunk unfiltered as a partial
// edge chunk. raw, when not nil, is the two sections in one buffer, the
// stored bytes when nothing is filtered; otherwise the values follow
// section 0 in its buffer when it has room for them.
func (ds *Dataset) packSparseChunk(scaled, dims []uint64, sec0, vals, raw []byte) ([]byte, *stcRecord, error) {
	g, s := ds.geom, ds.layout.stc
	partial := false
	if s.flags&stcDontFilterPartial != 0 {
		for i, c := range g.chunk {
			partial = partial || (scaled[i]+1)*c > dims[i]
		}
	}
	rec := &stcRecord{offsets: []uint64{0, uint64(len(sec0))}}
	if ds.SectionFilters != nil {
		rec.unfiltered = []uint64{uint64(len(sec0)), uint64(len(vals))}
		rec.masks = make([]uint32, 2)
	}
	filtered := false
	secs := [][]byte{sec0, vals}
	for i, sec := range secs {
		if i < len(ds.SectionFilters) && ds.SectionFilters[i] != nil && !partial {
			enc, mask, err := encodeChunk(ds.SectionFilters[i], sec)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s: structured chunk %v: section %d: %w", ds.f.name, ds.Path, scaled, i, err)
			}
			secs[i], rec.masks[i], filtered = enc, mask, true
		}
	}
	var out []byte
	switch {
	case raw != nil && !filtered:
		out = raw
	case len(ds.SectionFilters) > 0 && ds.SectionFilters[0] != nil && !partial, raw != nil:
		out = make([]byte, 0, len(secs[0])+len(secs[1]))
		out = append(append(out, secs[0]...), secs[1]...)
	default:
		out = append(sec0, secs[1]...) // with room for the values
	}
	rec.offsets[1] = uint64(len(secs[0]))
	if s.csl < 8 && uint64(len(out)) >= 1<<(8*s.csl) {
		return nil, nil, fmt.Errorf("%s: %s: structured chunk %v: %d bytes do not fit the index's %d-byte chunk size field", ds.f.name, ds.Path, scaled, len(out), s.csl)
	}
	return out, rec, nil
}

// WriteSparseChunk replaces the structured chunk at chunk coordinates
// scaled of the sparse dataset at path by one holding exactly the
// positions idx (ascending row-major linear indices inside the chunk)
// with the values vals (packed in the file's datatype, in the same
// order). The chunk is written in reusable space (space.go) or at the
// end of the file and its index record (address, size, section offsets,
// unfiltered sizes, filter masks) rewritten at the next barrier; the old
// chunk's space is reusable after the commit. With no position the chunk is
// removed from the index, as the prototype's erase does (§10). Positions
// must lie inside the dataset's current extent (SetExtent first).
func (tx *Tx) WriteSparseChunk(path string, scaled, idx []uint64, vals []byte) error {
	d, err := tx.sparseDataset(path)
	if err != nil {
		return err
	}
	if err := d.checkSparseChunk(scaled, idx); err != nil {
		return err
	}
	return d.storeSparseChunk(scaled, d.ds.geom.dims, idx, vals)
}

// sparseDataset returns the writer of the structured-chunk dataset at
// path.
func (tx *Tx) sparseDataset(path string) (*dsWriter, error) {
	if err := tx.check(); err != nil {
		return nil, err
	}
	d, err := tx.dataset(path)
	if err != nil {
		return nil, err
	}
	ds := d.ds
	if !ds.IsSparse() {
		return nil, d.errf("sparse chunk write on a %s dataset that is not sparse", ds.Layout())
	}
	if err := ds.checkStructured(); err != nil {
		return nil, ds.err(err)
	}
	return d, nil
}

// checkSparseChunk checks that the chunk at scaled lies inside the
// dataset's extent and that so do the positions idx (ascending) in it.
func (d *dsWriter) checkSparseChunk(scaled, idx []uint64) error {
	g := d.ds.geom
	if len(scaled) != len(g.chunk) {
		return d.errf("chunk coordinates %v for rank %d", scaled, len(g.chunk))
	}
	inside := true // the whole chunk lies inside the extent
	for i, s := range scaled {
		if s >= (g.dims[i]+g.chunk[i]-1)/g.chunk[i] {
			return d.errf("chunk %v lies outside the extent %v", scaled, g.dims)
		}
		inside = inside && (s+1)*g.chunk[i] <= g.dims[i]
	}
	total := product(g.chunk)
	if inside && len(idx) > 0 && slices.IsSorted(idx) {
		idx = idx[len(idx)-1:] // the largest stands for all
	}
	for _, p := range idx {
		if p >= total {
			return d.errf("chunk %v: position %d lies outside the chunk %v", scaled, p, g.chunk)
		}
		for i := len(g.chunk) - 1; i >= 0 && !inside; i-- {
			if scaled[i]*g.chunk[i]+p%g.chunk[i] >= g.dims[i] {
				return d.errf("chunk %v: position %d lies outside the extent %v", scaled, p, g.dims)
			}
			p /= g.chunk[i]
		}
	}
	return nil
}

// storeSparseChunk encodes the structured chunk at scaled for the extent
// dims (encodeSparseChunk) and stores it (storeEncoded); with no
// position it removes the chunk from the index. A chunk that cannot be
// encoded is an error that leaves the transaction usable.
func (d *dsWriter) storeSparseChunk(scaled, dims, idx []uint64, vals []byte) error {
	if len(idx) == 0 {
		return d.storeEncoded(scaled, nil, nil)
	}
	enc, rec, err := d.ds.encodeSparseChunk(scaled, dims, idx, vals)
	if err != nil {
		return err
	}
	return d.storeEncoded(scaled, enc, rec)
}

// storeEncoded writes the encoded structured chunk enc (with its index
// record rec) in space freed by an earlier commit or at the end of the
// file and sets its index record; with no bytes it removes the chunk
// from the index. The old chunk's space is freed for the commits after
// this one.
func (d *dsWriter) storeEncoded(scaled []uint64, enc []byte, rec *stcRecord) error {
	loc := chunkLoc{scaled: slices.Clone(scaled), addr: undefAddr}
	old, err := d.idx.get(scaled)
	if err != nil {
		return err
	}
	if len(enc) > 0 {
		loc.addr, loc.size, loc.stc = d.tx.allocReusable(uint64(len(enc))), uint64(len(enc)), rec
		if err := d.tx.write(loc.addr, enc); err != nil {
			return err
		}
	}
	if err := d.tx.fail(d.idx.set(loc)); err != nil {
		return err
	}
	d.tx.free(old.addr, old.size)
	return nil
}

// refilterEdgeChunks rewrites, through their filter pipelines, the
// stored structured chunks that are partial edge chunks under the
// current extent and whole under the larger extent dims. With the
// layout's "don't filter partial edge chunks" flag they were stored
// unfiltered, and a reader takes the extent and the flag, not the mask,
// to tell (sparse-structured-chunk-format.md §4): left as they are they
// would read as filtered once the extent grows (libhdf5's
// H5D__chunk_update_old_edge_chunks does the same for ordinary chunks).
// SetExtent calls it before the new extent applies.
func (d *dsWriter) refilterEdgeChunks(dims []uint64) error {
	ds := d.ds
	if ds.layout.stc == nil || ds.layout.stc.flags&stcDontFilterPartial == 0 || ds.SectionFilters == nil {
		return nil
	}
	g := ds.geom
	rank := len(g.chunk)
	// edge[i]: dimension i's partial edge chunk that becomes whole (-1:
	// none); n[i]: chunks along dimension i under the current extent
	edge, n := make([]int64, rank), make([]uint64, rank)
	for i, c := range g.chunk {
		n[i] = (g.dims[i] + c - 1) / c
		edge[i] = -1
		if e := g.dims[i] / c; g.dims[i]%c != 0 && (e+1)*c <= dims[i] {
			edge[i] = int64(e)
		}
	}
	scaled := make([]uint64, rank)
	// visit calls refilter for each chunk of the slab of dimension i's
	// edge whose dimensions before i are not at an edge (visited in
	// their own slab) and that is whole under dims
	var visit func(i, j int) error
	visit = func(i, j int) error {
		if j == rank {
			return d.refilterChunk(scaled, dims)
		}
		if j == i {
			scaled[j] = uint64(edge[i])
			return visit(i, j+1)
		}
		for s := range n[j] {
			if (j < i && int64(s) == edge[j]) || (s+1)*g.chunk[j] > dims[j] {
				continue
			}
			scaled[j] = s
			if err := visit(i, j+1); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range rank {
		if edge[i] >= 0 {
			if err := visit(i, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// refilterChunk reads the stored chunk at scaled (if any) as the current
// extent has it and stores it again for the extent dims.
func (d *dsWriter) refilterChunk(scaled, dims []uint64) error {
	loc, err := d.idx.get(scaled)
	if err != nil || loc.addr == undefAddr {
		return err
	}
	g := d.ds.geom
	off := make([]uint64, len(scaled))
	for i, s := range scaled {
		off[i] = s * g.chunk[i]
	}
	c, err := d.ds.ReadSparseChunk(ChunkInfo{Offset: off, Addr: loc.addr, StoredSize: loc.size, Sections: loc.stc.info(loc.size)}, true)
	if err != nil {
		return err
	}
	idx, vals, err := c.Positions()
	if err != nil {
		return err
	}
	return d.storeSparseChunk(scaled, dims, idx, vals)
}

// Positions returns the chunk's defined positions as row-major linear
// indices inside the chunk, ascending, with their values (read with the
// chunk) in the same order: a point selection may list its points in
// any order.
func (c *SparseChunk) Positions() ([]uint64, []byte, error) {
	shape := c.Selection.shape
	var idx []uint64
	err := c.Selection.Runs(func(start []uint64, n uint64) error {
		var pos uint64
		for i, v := range start {
			pos = pos*shape[i] + v
		}
		for k := range n {
			idx = append(idx, pos+k)
		}
		return nil
	})
	if err != nil || slices.IsSorted(idx) {
		return idx, c.Values, err
	}
	es := c.elemSize
	order := make([]int, len(idx))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(idx[a], idx[b]) })
	sorted, vals := make([]uint64, len(idx)), make([]byte, 0, len(c.Values))
	for i, o := range order {
		sorted[i] = idx[o]
		vals = append(vals, c.Values[o*es:(o+1)*es]...)
	}
	return sorted, vals, nil
}

// newStructuredIndexWriter returns the writer of a structured-chunk
// dataset's index: the single-chunk record lives in the layout message;
// the array and B-tree writers encode structured records themselves.
func (tx *Tx) newStructuredIndexWriter(d *dsWriter) (chunkIndexWriter, error) {
	if d.ds.layout.index == IndexSingleChunk {
		return &stcSingleWriter{d: d}, nil
	}
	return tx.newChunkIndexWriter(d)
}

// stcSingleWriter writes the single-chunk index of a structured-chunk
// dataset: the chunk's size and section fields and the trailing address
// of the layout message. An erased chunk keeps its old fields with the
// address undefined (§3.1).
type stcSingleWriter struct {
	d       *dsWriter
	pending *chunkLoc
}

func (w *stcSingleWriter) get(scaled []uint64) (chunkLoc, error) {
	if w.pending != nil {
		return *w.pending, nil
	}
	return w.d.ds.layout.stc.single, nil
}

func (w *stcSingleWriter) set(loc chunkLoc) error {
	w.pending = &loc
	return nil
}

func (w *stcSingleWriter) flush() error {
	if w.pending == nil {
		return nil
	}
	loc := *w.pending
	w.pending = nil
	l := *w.d.ds.layout
	s := *l.stc
	l.stc, l.addr = &s, loc.addr
	if loc.addr != undefAddr {
		s.single = loc
	}
	s.single.addr = loc.addr
	return w.d.rewriteStructuredLayout(&l)
}

// setStructuredLayout points a structured-chunk layout message at a new
// index address (setLayout for structured chunks).
func (d *dsWriter) setStructuredLayout(addr uint64) error {
	l := *d.ds.layout
	l.addr = addr
	return d.rewriteStructuredLayout(&l)
}

// rewriteStructuredLayout rewrites the dataset's layout message as l
// (the same size: the fields it changes are fixed-width) and makes l the
// dataset's layout.
func (d *dsWriter) rewriteStructuredLayout(l *layout) error {
	b, err := encodeStructuredLayout(l)
	if err != nil {
		return d.errf("%v", err)
	}
	oh, err := d.header()
	if err != nil {
		return err
	}
	m := oh.find(msgLayout)
	if m == nil || len(m.data) < len(b) {
		return d.errf("no layout message of %d bytes to rewrite", len(b))
	}
	data := slices.Clone(m.data)
	copy(data, b)
	if err := d.tx.rewriteMessage(oh, m, data); err != nil {
		return err
	}
	d.ds.layout = l
	return nil
}

// SparseChunkAt returns the stored chunk of a sparse dataset at chunk
// coordinates scaled, decoded with its values, or nil when none is
// stored there (writers read a chunk before rebuilding it).
func (ds *Dataset) SparseChunkAt(scaled []uint64) (*SparseChunk, error) {
	if !ds.IsSparse() {
		return nil, fmt.Errorf("%s: %s: not a sparse dataset", ds.f.name, ds.Path)
	}
	g := ds.geom
	if len(scaled) != len(g.chunk) {
		return nil, fmt.Errorf("%s: %s: chunk coordinates %v for rank %d", ds.f.name, ds.Path, scaled, len(g.chunk))
	}
	for i, s := range scaled {
		if s >= (g.dims[i]+g.chunk[i]-1)/g.chunk[i] {
			return nil, nil
		}
	}
	idx, err := ds.chunkIndex()
	if err != nil {
		return nil, err
	}
	loc, err := idx.chunk(scaled)
	if err != nil {
		return nil, ds.err(err)
	}
	if loc.addr == undefAddr {
		return nil, nil
	}
	off := make([]uint64, len(scaled))
	for i, s := range scaled {
		off[i] = s * g.chunk[i]
	}
	return ds.ReadSparseChunk(ChunkInfo{Offset: off, Addr: loc.addr, StoredSize: loc.size, Sections: loc.stc.info(loc.size)}, true)
}
