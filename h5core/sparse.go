package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Sparse datasets: structured-chunk storage (layout message v5 class 4)
// whose chunks hold only their defined elements, section 0 being the
// encoded selection of defined positions plus a checksum and section 1
// the packed values. Undefined elements read as the fill value.

// SectionInfo describes one section of a stored structured chunk.
type SectionInfo struct {
	Offset         uint64 // start inside the stored chunk
	StoredSize     uint64 // size as stored (after filtering)
	UnfilteredSize uint64 // size before filtering (= StoredSize when unfiltered)
	FilterMask     uint32 // bit i set: filter i of the section's pipeline skipped
}

// info describes the sections of a chunk of stored size size (nil for an
// ordinary chunk).
func (r *stcRecord) info(size uint64) []SectionInfo {
	if r == nil {
		return nil
	}
	out := make([]SectionInfo, len(r.offsets))
	for i, o := range r.offsets {
		end := size
		if i+1 < len(r.offsets) {
			end = r.offsets[i+1]
		}
		s := SectionInfo{Offset: o, StoredSize: end - min(o, end)}
		s.UnfilteredSize = s.StoredSize
		if r.unfiltered != nil {
			s.UnfilteredSize, s.FilterMask = r.unfiltered[i], r.masks[i]
		}
		out[i] = s
	}
	return out
}

// IsSparse reports a structured-chunk sparse dataset.
func (ds *Dataset) IsSparse() bool {
	return ds.layout.class == layoutStructured && isSparseType(ds.layout.stc.typ)
}

// checkStructured checks what h5core supports of a structured-chunk
// layout: sparse chunks of a fixed-size type (two sections, section 0
// the metadata section).
func (ds *Dataset) checkStructured() error {
	s := ds.layout.stc
	switch {
	case s.typ&stcVariable != 0 || s.sections != 2:
		return fmt.Errorf("structured chunks of type %#x with %d sections (variable-length data): %w", s.typ, s.sections, ErrUnsupported)
	case !isSparseType(s.typ):
		return formatErr(ds.Addr, "structured chunk type %#x is neither sparse nor variable-length", s.typ)
	case len(s.meta) != 1 || s.meta[0] != 0:
		return formatErr(ds.Addr, "structured chunk metadata sections %v, expected [0]", s.meta)
	case s.elemSize != uint64(ds.Type.Size):
		return formatErr(ds.Addr, "structured chunk element size %d, datatype size %d", s.elemSize, ds.Type.Size)
	case !ds.Type.IsFixedSize():
		return fmt.Errorf("sparse data of type %s: %w", ds.Type, ErrUnsupported)
	}
	return nil
}

// SparseChunk is one stored chunk of a sparse dataset, decoded.
type SparseChunk struct {
	ChunkInfo
	// Selection holds the chunk's defined positions (chunk-relative).
	Selection *Selection
	// Values holds the defined values, packed in the file's datatype and
	// byte order, in the selection's order (nil when not read).
	Values []byte

	limit    []uint64 // positions inside the dataset extent, per dimension
	elemSize int
}

// Limit returns, per dimension, how many positions of the chunk lie
// inside the dataset extent (the chunk shape except at the edges).
func (c *SparseChunk) Limit() []uint64 { return c.limit }

// NNZ returns the number of defined elements of the chunk that lie inside
// the dataset extent.
func (c *SparseChunk) NNZ() uint64 { return c.Selection.CountWithin(c.limit) }

// Runs calls fn for each run of n defined elements consecutive along the
// last dimension, in the order the chunk stores them, with the run's
// first global coordinates (reused between calls) and its values (nil
// when the values were not read). Positions outside the dataset extent
// are skipped.
func (c *SparseChunk) Runs(fn func(start []uint64, n uint64, values []byte) error) error {
	rank := len(c.limit)
	g := make([]uint64, rank)
	var vi uint64
	es := uint64(c.elemSize)
	return c.Selection.Runs(func(start []uint64, n uint64) error {
		first := vi
		vi += n
		for i := 0; i < rank-1; i++ {
			if start[i] >= c.limit[i] {
				return nil
			}
		}
		last := start[rank-1]
		if last >= c.limit[rank-1] {
			return nil
		}
		n = min(n, c.limit[rank-1]-last)
		for i := range g {
			g[i] = c.Offset[i] + start[i]
		}
		var vals []byte
		if c.Values != nil {
			vals = c.Values[first*es : (first+n)*es]
		}
		return fn(g, n, vals)
	})
}

// AppendRuns appends, for each run of defined elements of the chunk
// consecutive along the last dimension and inside the dataset extent, in
// the order the chunk stores them (as Runs), the row-major linear index
// of its first element in an array of shape dims (the dataset's) to
// starts, and to ends the number of elements up to its end: the last of
// ends (0 when empty) plus its length. A run of encoded blocks is not
// merged with the next one even when they touch.
func (c *SparseChunk) AppendRuns(starts, ends, dims []uint64) ([]uint64, []uint64) {
	var end uint64
	if len(ends) > 0 {
		end = ends[len(ends)-1]
	}
	put := func(start []uint64, n uint64) {
		var x uint64
		for d, v := range start {
			x = x*dims[d] + c.Offset[d] + v
		}
		end += n
		starts, ends = append(starts, x), append(ends, end)
	}
	s := c.Selection
	if r, ok := c.Runs2(); ok && len(dims) == 2 { // the common case, one loop
		return r.AppendRuns(starts, ends, dims[1])
	}
	if s.runs != nil {
		s.eachBlock(c.limit, put)
		return starts, ends
	}
	s.Runs(func(start []uint64, n uint64) error {
		if m := runWithin(start, n, c.limit); m > 0 {
			put(start, m)
		}
		return nil
	})
	return starts, ends
}

// Runs2 is the runs of a two-dimensional sparse chunk whose selection is
// kept as its encoded run blocks of the common width (one hyperslab block
// per run of defined elements along a row, row-major, as writers that
// emit one block per run store them; 4 bytes a coordinate), all of them
// inside the dataset extent, read in place: At gives each block, inlined
// in the caller's loop, without listing them first as AppendRuns does.
type Runs2 struct {
	raw    []byte
	offset [2]uint64 // the chunk's position in the dataset
}

// Runs2 returns the chunk's runs read in place, and false when the chunk
// is not two-dimensional, its selection is not kept as run blocks of 4
// bytes a coordinate (points, "all", regular or overlapping hyperslabs,
// other widths) or some of them lie outside the dataset extent.
func (c *SparseChunk) Runs2() (Runs2, bool) {
	s := c.Selection
	if s.runs == nil || s.rw != 4 || len(c.limit) != 2 || s.CountWithin(c.limit) != s.n {
		return Runs2{}, false
	}
	return Runs2{raw: s.runs, offset: [2]uint64{c.Offset[0], c.Offset[1]}}, true
}

// Len returns the number of run blocks.
func (r *Runs2) Len() int { return len(r.raw) / 16 }

// At returns run block k (k < Len) in the dataset: the row and first
// column of its elements and how many they are.
func (r *Runs2) At(k int) (row, col, n uint64) {
	row, lo, _, hi := block4(r.raw, 16*k)
	return r.offset[0] + row, r.offset[1] + lo, hi - lo + 1
}

// AppendRuns is SparseChunk.AppendRuns of the chunk of the runs, in a
// matrix of cols columns.
func (r *Runs2) AppendRuns(starts, ends []uint64, cols uint64) ([]uint64, []uint64) {
	var end uint64
	if len(ends) > 0 {
		end = ends[len(ends)-1]
	}
	starts, ends = slices.Grow(starts, r.Len()), slices.Grow(ends, r.Len())
	for k := range r.Len() {
		row, col, n := r.At(k)
		end += n
		starts = append(starts, row*cols+col)
		ends = append(ends, end)
	}
	return starts, ends
}

// SparseChunks lists the stored chunks of a sparse dataset in row-major
// order of their positions, without reading them.
func (ds *Dataset) SparseChunks() ([]ChunkInfo, error) {
	if !ds.IsSparse() {
		return nil, fmt.Errorf("%s: %s: not a sparse dataset", ds.f.name, ds.Path)
	}
	return ds.Chunks()
}

// ReadSparseChunk reads and decodes one stored chunk listed by
// SparseChunks: the selection and, if values is true, the values.
func (ds *Dataset) ReadSparseChunk(c ChunkInfo, values bool) (*SparseChunk, error) {
	loc, err := ds.sparseLoc(c)
	if err != nil {
		return nil, err
	}
	sel, vals, err := ds.decodeStructured(loc, values)
	if err != nil {
		return nil, ds.err(err)
	}
	g := ds.geom
	out := &SparseChunk{ChunkInfo: c, Selection: sel, Values: vals, elemSize: int(g.elemSize), limit: make([]uint64, len(g.chunk))}
	for i := range out.limit {
		out.limit[i] = min(g.chunk[i], g.dims[i]-min(c.Offset[i], g.dims[i]))
	}
	return out, nil
}

// ReadSparseValues reads only the values section of one stored chunk
// listed by SparseChunks, unfiltered: the count defined elements, packed
// in the file's datatype and byte order, in the selection's order. count
// is the length of the chunk's selection (Selection.Len of an earlier
// ReadSparseChunk, which verified section 0); the selection is neither
// read nor decoded again.
func (ds *Dataset) ReadSparseValues(c ChunkInfo, count uint64) ([]byte, error) {
	loc, err := ds.sparseLoc(c)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) error {
		return ds.err(formatErr(loc.addr, "structured chunk %v: %s", loc.scaled, fmt.Sprintf(format, args...)))
	}
	o := loc.stc.offsets[1]
	if o > loc.size || !ds.f.holds(loc.addr, loc.size) {
		return nil, fail("%d bytes at %#x (values from %d) lie beyond the end of the file", loc.size, loc.addr, o)
	}
	raw, err := ds.f.read(loc.addr+o, loc.size-o)
	if err != nil {
		return nil, fail("%v", err)
	}
	vals, err := ds.unfilterSection(loc, 1, raw)
	if err != nil {
		return nil, fail("%v", err)
	}
	if want := count * ds.geom.elemSize; uint64(len(vals)) != want {
		return nil, fail("section 1 holds %d bytes, %d defined elements need %d", len(vals), count, want)
	}
	return vals, nil
}

// ReadSparseValuesAt reads values [first, first+len(dst)/elemSize) of one
// stored chunk listed by SparseChunks straight from the file into dst, in
// the file's datatype and byte order, when the chunk's values section is
// stored unfiltered; it reports false, reading nothing, when the section
// is filtered (ReadSparseValues decodes it). count is the length of the
// chunk's selection, as for ReadSparseValues.
func (ds *Dataset) ReadSparseValuesAt(c ChunkInfo, count, first uint64, dst []byte) (bool, error) {
	loc, err := ds.sparseLoc(c)
	if err != nil {
		return false, err
	}
	if ds.sectionFiltered(loc, 1) {
		return false, nil
	}
	fail := func(format string, args ...any) error {
		return ds.err(formatErr(loc.addr, "structured chunk %v: %s", loc.scaled, fmt.Sprintf(format, args...)))
	}
	es := ds.geom.elemSize
	o, n := loc.stc.offsets[1], uint64(len(dst))/es
	switch {
	case o > loc.size || !ds.f.holds(loc.addr, loc.size):
		return false, fail("%d bytes at %#x (values from %d) lie beyond the end of the file", loc.size, loc.addr, o)
	case loc.size-o != count*es:
		return false, fail("section 1 holds %d bytes, %d defined elements need %d", loc.size-o, count, count*es)
	case uint64(len(dst))%es != 0 || first > count || n > count-first:
		return false, fmt.Errorf("%s: %s: values [%d, %d) of a chunk of %d", ds.f.name, ds.Path, first, first+n, count)
	}
	if _, err := ds.f.r.ReadAt(dst[:n*es], int64(loc.addr+ds.f.base+o+first*es)); err != nil && !errors.Is(err, io.EOF) {
		return false, fail("read %d bytes: %v", n*es, err)
	}
	return true, nil
}

// sparseLoc returns the location of a chunk listed by SparseChunks.
func (ds *Dataset) sparseLoc(c ChunkInfo) (chunkLoc, error) {
	if !ds.IsSparse() {
		return chunkLoc{}, fmt.Errorf("%s: %s: not a sparse dataset", ds.f.name, ds.Path)
	}
	g := ds.geom
	if len(c.Offset) != len(g.chunk) || len(c.Sections) != ds.layout.stc.sections {
		return chunkLoc{}, fmt.Errorf("%s: %s: chunk info does not belong to this dataset", ds.f.name, ds.Path)
	}
	loc := chunkLoc{scaled: make([]uint64, len(c.Offset)), addr: c.Addr, size: c.StoredSize, stc: &stcRecord{}}
	for _, s := range c.Sections {
		loc.stc.offsets = append(loc.stc.offsets, s.Offset)
		if ds.SectionFilters != nil {
			loc.stc.unfiltered = append(loc.stc.unfiltered, s.UnfilteredSize)
			loc.stc.masks = append(loc.stc.masks, s.FilterMask)
		}
	}
	for i, o := range c.Offset {
		loc.scaled[i] = o / g.chunk[i]
	}
	return loc, nil
}

// NNZ returns the number of defined elements of a sparse dataset, counted
// from the chunks' selections (values are not read).
func (ds *Dataset) NNZ() (uint64, error) {
	chunks, err := ds.SparseChunks()
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, c := range chunks {
		sc, err := ds.ReadSparseChunk(c, false)
		if err != nil {
			return 0, err
		}
		n += sc.NNZ()
	}
	return n, nil
}

// maxSectionBytes bounds the unfiltered size of a section.
const maxSectionBytes = 1 << 31

// decodeStructured reads a stored structured chunk: it unfilters the
// sections it needs, verifies and strips the section-0 checksum, decodes
// the selection and, if values is set, checks and returns section 1.
func (ds *Dataset) decodeStructured(loc chunkLoc, values bool) (*Selection, []byte, error) {
	fail := func(format string, args ...any) error {
		return formatErr(loc.addr, "structured chunk %v: %s", loc.scaled, fmt.Sprintf(format, args...))
	}
	if !ds.f.holds(loc.addr, loc.size) {
		return nil, nil, fail("%d bytes at %#x lie beyond the end of the file", loc.size, loc.addr)
	}
	size := loc.size
	if !values && len(loc.stc.offsets) > 1 && loc.stc.offsets[1] <= size {
		size = loc.stc.offsets[1]
	}
	raw, err := ds.f.read(loc.addr, size)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	return ds.decodeStructuredBytes(loc, raw, values)
}

// decodeStructuredBytes decodes the stored bytes raw of the chunk at loc
// (all of them, or at least section 0 when values is false).
func (ds *Dataset) decodeStructuredBytes(loc chunkLoc, raw []byte, values bool) (*Selection, []byte, error) {
	g := ds.geom
	fail := func(format string, args ...any) error {
		return formatErr(loc.addr, "structured chunk %v: %s", loc.scaled, fmt.Sprintf(format, args...))
	}
	secs, err := loc.stc.sections(raw, loc.addr)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	need := 1
	if values {
		need = 2
	}
	for i := 0; i < need; i++ {
		if secs[i], err = ds.unfilterSection(loc, i, secs[i]); err != nil {
			return nil, nil, fail("%v", err)
		}
	}
	sec0 := secs[0]
	if len(sec0) < 4 {
		return nil, nil, fail("section 0 of %d bytes is too small for its checksum", len(sec0))
	}
	n := len(sec0) - 4
	if want, got := binary.LittleEndian.Uint32(sec0[n:]), lookup3(sec0[:n], 0); want != got {
		return nil, nil, fail("section 0 checksum mismatch (stored %#08x, computed %#08x)", want, got)
	}
	sel, err := decodeSelection(sec0[:n], loc.addr, g.chunk)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	if !values {
		return sel, nil, nil
	}
	if want := sel.Len() * g.elemSize; uint64(len(secs[1])) != want {
		return nil, nil, fail("section 1 holds %d bytes, %d defined elements need %d", len(secs[1]), sel.Len(), want)
	}
	return sel, secs[1], nil
}

// unfilterSection returns section i (stored bytes sec) of the chunk at
// loc with its pipeline undone (sec itself when unfiltered).
func (ds *Dataset) unfilterSection(loc chunkLoc, i int, sec []byte) ([]byte, error) {
	if !ds.sectionFiltered(loc, i) {
		return sec, nil
	}
	if loc.stc.unfiltered == nil {
		return nil, fmt.Errorf("filtered section %d without an unfiltered size", i)
	}
	want := loc.stc.unfiltered[i]
	if want > maxSectionBytes {
		return nil, fmt.Errorf("section %d of %d bytes unfiltered", i, want)
	}
	out, err := decodeChunk(ds.SectionFilters[i], loc.stc.masks[i], sec, int(want))
	if err != nil {
		return nil, fmt.Errorf("section %d: %v", i, err)
	}
	return out, nil
}

// sectionFiltered reports whether section i of the chunk at loc is stored
// filtered: the section has a pipeline and the chunk is not a partial
// edge chunk that the layout stores unfiltered.
func (ds *Dataset) sectionFiltered(loc chunkLoc, i int) bool {
	g, s := ds.geom, ds.layout.stc
	if i >= len(ds.SectionFilters) || ds.SectionFilters[i] == nil {
		return false
	}
	if s.flags&stcDontFilterPartial != 0 {
		for d, c := range g.chunk {
			if (loc.scaled[d]+1)*c > g.dims[d] {
				return false // a partial edge chunk stored unfiltered
			}
		}
	}
	return true
}

// denseStructuredChunk decodes a stored structured chunk into a dense
// chunk: the fill value at undefined positions.
func (ds *Dataset) denseStructuredChunk(loc chunkLoc) ([]byte, error) {
	sel, vals, err := ds.decodeStructured(loc, true)
	if err != nil {
		return nil, err
	}
	g := ds.geom
	out := make([]byte, g.chunkBytes())
	fillRepeat(out, ds.fill, 0)
	rank := len(g.chunk)
	stride := make([]uint64, rank)
	st := g.elemSize
	for i := rank - 1; i >= 0; i-- {
		stride[i] = st
		st *= g.chunk[i]
	}
	var vi uint64
	err = sel.Runs(func(start []uint64, n uint64) error {
		var o uint64
		for i, v := range start {
			o += v * stride[i]
		}
		nb := n * g.elemSize
		copy(out[o:o+nb], vals[vi:vi+nb])
		vi += nb
		return nil
	})
	return out, err
}
