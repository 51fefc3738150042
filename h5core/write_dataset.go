package h5core

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// dsWriter is a dataset a transaction changes.
type dsWriter struct {
	tx         *Tx
	ds         *Dataset // layout, type and filters as at first use; dims kept current
	idx        chunkIndexWriter
	spaceDirty bool
}

// chunkIndexWriter is implemented by the writer of every chunk index
// kind, beside its reader.
type chunkIndexWriter interface {
	// get returns the chunk at scaled; addr is undefAddr when absent.
	get(scaled []uint64) (chunkLoc, error)
	// set inserts or replaces the chunk at loc.scaled.
	set(loc chunkLoc) error
	// flush writes what set deferred (rebuilt structures, the layout
	// message's address) before a barrier.
	flush() error
}

// dataset returns the writer state of the dataset at path.
func (tx *Tx) dataset(path string) (*dsWriter, error) {
	if d := tx.dsets[path]; d != nil {
		return d, nil
	}
	o, err := tx.w.f.Open(path)
	if err != nil {
		return nil, err
	}
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	if ds.efl != nil {
		return nil, fmt.Errorf("%s: %s: raw data in external files: %w for writing", tx.w.name, path, ErrUnsupported)
	}
	d := &dsWriter{tx: tx, ds: ds}
	switch ds.layout.class {
	case layoutChunked:
		if d.idx, err = tx.newChunkIndexWriter(d); err != nil {
			return nil, ds.err(err)
		}
	case layoutStructured:
		if d.idx, err = tx.newStructuredIndexWriter(d); err != nil {
			return nil, ds.err(err)
		}
	case layoutContiguous, layoutCompact:
	default:
		return nil, fmt.Errorf("%s: %s: writing a %s dataset: %w", tx.w.name, path, ds.Layout(), ErrUnsupported)
	}
	tx.dsets[path] = d
	tx.order = append(tx.order, d)
	return d, nil
}

// errf returns an error naming the dataset.
func (d *dsWriter) errf(format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", d.tx.w.name, d.ds.Path, fmt.Sprintf(format, args...))
}

// header re-reads the dataset's object header as the transaction sees it.
func (d *dsWriter) header() (*objectHeader, error) {
	return d.tx.w.f.objectHeader(d.ds.Addr)
}

// SetExtent changes the current dimensions of a dataset within its
// maximum dimensions. Growing is supported; a dimension that cannot grow
// (fixed maximum, contiguous or compact layout) is an error naming the
// dataset, and nothing changes. Shrinking is not supported (HEP001
// truncation is logical).
func (tx *Tx) SetExtent(path string, dims []uint64) error {
	if err := tx.check(); err != nil {
		return err
	}
	d, err := tx.dataset(path)
	if err != nil {
		return err
	}
	sp := d.ds.space
	if sp.kind != spaceSimple || len(dims) != len(sp.dims) {
		return d.errf("new extent %v has rank %d, the dataset has rank %d", dims, len(dims), len(sp.dims))
	}
	maxDims := d.ds.MaxShape()
	for i, n := range dims {
		switch {
		case n == sp.dims[i]:
		case n < sp.dims[i]:
			return d.errf("shrinking dimension %d from %d to %d: %v", i, sp.dims[i], n, ErrUnsupported)
		case d.ds.layout.class != layoutChunked && d.ds.layout.class != layoutStructured:
			return d.errf("cannot grow: %s layout (only chunked datasets can grow)", d.ds.Layout())
		case maxDims[i] != unlimited && n > maxDims[i]:
			return d.errf("cannot grow dimension %d to %d: its maximum is %d", i, n, maxDims[i])
		}
	}
	if slices.Equal(dims, sp.dims) {
		return nil
	}
	if n, ok := (&dataspace{kind: spaceSimple, dims: dims}).numElements(); !ok || n > uint64(1<<62)/max(uint64(d.ds.Type.Size), 1) {
		return d.errf("extent %v overflows", dims)
	}
	if err := d.refilterEdgeChunks(dims); err != nil {
		return tx.fail(err)
	}
	sp.dims = slices.Clone(dims)
	d.ds.geom.dims = sp.dims
	d.spaceDirty = true
	return nil
}

// WriteAt writes elements of a dataset: p holds whole elements in the
// file's byte order (as Dataset.ReadAt returns them) for the byte range
// [off, off+len(p)) of the row-major order over the current extent.
// Chunks it touches are read, patched, run through the pipeline and
// stored: unfiltered chunks in place, filtered ones at the end of file.
// The transaction may keep p until it ends: the caller leaves it as it
// is until then.
func (tx *Tx) WriteAt(path string, p []byte, off int64) error {
	if err := tx.check(); err != nil {
		return err
	}
	d, err := tx.dataset(path)
	if err != nil {
		return err
	}
	es := int64(d.ds.Type.Size)
	size := int64(d.ds.NumElements()) * es
	if es == 0 || off < 0 || off%es != 0 || int64(len(p))%es != 0 || off+int64(len(p)) > size {
		return d.errf("write of %d bytes at %d: not whole elements of %d bytes inside the dataset's %d bytes", len(p), off, es, size)
	}
	if len(p) == 0 {
		return nil
	}
	return tx.fail(d.writeAt(p, off))
}

func (d *dsWriter) writeAt(p []byte, off int64) error {
	l := d.ds.layout
	switch l.class {
	case layoutContiguous:
		if l.addr == undefAddr {
			return d.errf("contiguous storage never allocated: %v", ErrUnsupported)
		}
		return d.tx.writeData(l.addr+uint64(off), p)
	case layoutCompact:
		return d.writeCompact(p, off)
	case layoutStructured:
		return d.errf("dense writes into structured chunks: %v (WriteSparseChunk)", ErrUnsupported)
	}
	g := d.ds.geom
	es := int64(g.elemSize)
	grid := g.grid(g.dims)
	end := off + int64(len(p))
	for _, s := range g.chunksInRange(off/es, end/es, grid) {
		if done, err := d.writeInPlace(s, p, off, end); err != nil {
			return err
		} else if done {
			continue
		}
		data, old, err := d.chunk(s)
		if err != nil {
			return err
		}
		chunkRuns(g, s, off, end, func(cByte, pByte, n int64) {
			copy(data[cByte:cByte+n], p[pByte:pByte+n])
		})
		if err := d.store(s, data, old); err != nil {
			return err
		}
	}
	return nil
}

// writeInPlace writes the part of p (at byte offset off, up to end)
// that falls in chunk s straight over the chunk's bytes when the chunk
// is unfiltered and already allocated: no read, no index change. It
// reports whether it did.
func (d *dsWriter) writeInPlace(s []uint64, p []byte, off, end int64) (bool, error) {
	g := d.ds.geom
	if len(d.ds.Filters) != 0 {
		return false, nil
	}
	loc, err := d.idx.get(s)
	if err != nil || loc.addr == undefAddr || loc.size < g.chunkBytes() {
		return false, err
	}
	chunkRuns(g, s, off, end, func(cByte, pByte, n int64) {
		if err == nil {
			err = d.tx.writeData(loc.addr+uint64(cByte), p[pByte:pByte+n])
		}
	})
	return true, err
}

// writeCompact rewrites the layout message of a compact dataset.
func (d *dsWriter) writeCompact(p []byte, off int64) error {
	oh, err := d.header()
	if err != nil {
		return err
	}
	m := oh.find(msgLayout)
	if m == nil || m.data[0] < 3 {
		return d.errf("compact layout message version: %v", ErrUnsupported)
	}
	b := slices.Clone(m.data)
	copy(b[4+off:], p)
	if err := d.tx.rewriteMessage(oh, m, b); err != nil {
		return err
	}
	copy(d.ds.layout.compact[off:], p)
	return nil
}

// WriteChunk stores one whole chunk of a chunked dataset: offset is the
// element coordinates of its first element (multiples of the chunk
// shape, inside the current extent) and data its decoded bytes in the
// file's byte order, chunk-shape elements in row-major order.
func (tx *Tx) WriteChunk(path string, offset []uint64, data []byte) error {
	if err := tx.check(); err != nil {
		return err
	}
	d, err := tx.dataset(path)
	if err != nil {
		return err
	}
	g := d.ds.geom
	if g == nil || d.ds.layout.class != layoutChunked {
		return d.errf("WriteChunk on a %s dataset", d.ds.Layout())
	}
	if len(offset) != len(g.dims) || uint64(len(data)) != g.chunkBytes() {
		return d.errf("chunk at %v of %d bytes: the dataset has rank %d and chunks of %d bytes", offset, len(data), len(g.dims), g.chunkBytes())
	}
	s := make([]uint64, len(offset))
	for i, o := range offset {
		if o%g.chunk[i] != 0 || o >= g.dims[i] {
			return d.errf("chunk offset %v is not a chunk origin inside the extent %v", offset, g.dims)
		}
		s[i] = o / g.chunk[i]
	}
	_, old, err := d.chunk(s)
	if err != nil {
		return err
	}
	return tx.fail(d.store(s, slices.Clone(data), old))
}

// chunk returns a modifiable copy of the decoded chunk at s (the fill
// value where it was never written) and its location.
func (d *dsWriter) chunk(s []uint64) ([]byte, chunkLoc, error) {
	g := d.ds.geom
	cb := g.chunkBytes()
	loc, err := d.idx.get(s)
	if err != nil {
		return nil, loc, err
	}
	out := make([]byte, cb)
	if loc.addr == undefAddr {
		// A fill held in the global heap (variable-length data) is not
		// copied: libhdf5 deletes the heap object of an element it
		// overwrites, which would take the fill's own object with it.
		// Such elements start null (zeros), the empty string.
		if d.ds.Type.IsFixedSize() {
			fillRepeat(out, d.ds.fill, 0)
		}
		return out, loc, nil
	}
	raw, err := d.tx.read(loc.addr, loc.size)
	if err != nil {
		return nil, loc, err
	}
	if len(d.ds.Filters) == 0 {
		if uint64(len(raw)) < cb {
			return nil, loc, formatErr(loc.addr, "chunk %v holds %d bytes, expected %d", s, len(raw), cb)
		}
		copy(out, raw)
		return out, loc, nil
	}
	dec, err := decodeChunk(d.ds.Filters, loc.mask, raw, int(cb))
	if err != nil {
		return nil, loc, fmt.Errorf("chunk %v at %#x: %w", s, loc.addr, err)
	}
	copy(out, dec)
	return out, loc, nil
}

// store writes the decoded chunk data at s, whose old location is old:
// an unfiltered chunk already allocated is overwritten in place (only the
// bytes that changed), anything else goes through the pipeline to new
// space at the end of file and into the index.
func (d *dsWriter) store(s []uint64, data []byte, old chunkLoc) error {
	cb := d.ds.geom.chunkBytes()
	if len(d.ds.Filters) == 0 {
		if old.addr != undefAddr && old.size >= cb {
			prev, err := d.tx.read(old.addr, cb)
			if err != nil {
				return err
			}
			lo, hi := 0, len(data)
			for lo < hi && prev[lo] == data[lo] {
				lo++
			}
			for hi > lo && prev[hi-1] == data[hi-1] {
				hi--
			}
			if lo == hi {
				return nil
			}
			return d.tx.writeData(old.addr+uint64(lo), data[lo:hi])
		}
		addr := d.tx.alloc(cb)
		if err := d.tx.writeData(addr, data); err != nil {
			return err
		}
		return d.idx.set(chunkLoc{scaled: s, addr: addr, size: cb})
	}
	enc, mask, err := d.encode(data)
	if err != nil {
		return err
	}
	addr := d.tx.alloc(uint64(len(enc)))
	if err := d.tx.writeData(addr, enc); err != nil {
		return err
	}
	return d.idx.set(chunkLoc{scaled: s, addr: addr, size: uint64(len(enc)), mask: mask})
}

// flushIndex writes what the dataset's index writer deferred.
func (d *dsWriter) flushIndex() error {
	if d.idx == nil {
		return nil
	}
	return d.idx.flush()
}

// spaceAfterIndex reports whether the dataset's grown extent must wait
// for its index to be durable (Tx.flush): libhdf5 reads a missing chunk
// of a variable-length type by converting the fill value through the
// global heap, which a file open read-only refuses ("no write intent on
// file"), so a crash must never leave the new extent over the old index.
func (d *dsWriter) spaceAfterIndex() bool {
	return d.spaceDirty && !d.ds.Type.IsFixedSize()
}

// flushSpace writes the dataset's dataspace when its extent changed.
func (d *dsWriter) flushSpace() error {
	if !d.spaceDirty {
		return nil
	}
	oh, err := d.header()
	if err != nil {
		return err
	}
	m := oh.find(msgDataspace)
	if m == nil {
		return d.errf("no dataspace message")
	}
	b := slices.Clone(m.data)
	at := 8
	if b[0] == 2 {
		at = 4
	}
	sl := d.tx.w.f.sl
	for i, n := range d.ds.space.dims {
		putAddr(b[at+i*sl:], n, sl)
	}
	if err := d.tx.rewriteMessage(oh, m, b); err != nil {
		return err
	}
	d.spaceDirty = false
	return nil
}

// setLayout rewrites the index address of the dataset's layout message
// and, for a filtered single chunk, its stored size and filter mask.
func (d *dsWriter) setLayout(addr uint64, size uint64, mask uint32) error {
	if d.ds.layout.stc != nil {
		return d.setStructuredLayout(addr)
	}
	oh, err := d.header()
	if err != nil {
		return err
	}
	m := oh.find(msgLayout)
	if m == nil {
		return d.errf("no layout message")
	}
	b := slices.Clone(m.data)
	so, sl := d.tx.w.f.so, d.tx.w.f.sl
	var at int
	switch b[0] {
	case 1, 2:
		at = 8
	case 3:
		at = 3
	case 4, 5:
		if b[1] != layoutChunked {
			return d.errf("layout class %d: %v for writing", b[1], ErrUnsupported)
		}
		rank, width := int(b[3]), int(b[4])
		at = 5 + rank*width
		kind := ChunkIndexKind(b[at])
		at++
		switch kind {
		case IndexSingleChunk:
			if b[2]&2 != 0 {
				putAddr(b[at:], size, sl)
				binary.LittleEndian.PutUint32(b[at+sl:], mask)
				at += sl + 4
			}
		case IndexFixedArray:
			at++
		case IndexExtensibleArr:
			at += 5
		case IndexBtreeV2:
			at += 6
		}
	default:
		return d.errf("layout message version %d: %v for writing", b[0], ErrUnsupported)
	}
	if at+so > len(b) {
		return d.errf("layout message too short")
	}
	putAddr(b[at:], addr, so)
	if err := d.tx.rewriteMessage(oh, m, b); err != nil {
		return err
	}
	d.ds.layout.addr = addr
	d.ds.layout.singleSize, d.ds.layout.singleMask = size, mask
	return nil
}
