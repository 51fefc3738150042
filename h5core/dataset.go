package h5core

import (
	"fmt"
	"io"
	"sync"
)

// Dataset is an HDF5 dataset: a typed array and how it is stored.
type Dataset struct {
	*Object
	// Type is the element datatype.
	Type *Datatype
	// Filters is the filter pipeline applied to chunks (empty if none).
	Filters []Filter
	// SectionFilters holds, for a structured-chunk dataset with a
	// structured-chunk filter pipeline message, each section's pipeline
	// (nil for an unfiltered section); nil otherwise.
	SectionFilters [][]Filter

	space   *dataspace
	layout  *layout
	fill    []byte         // one element: the fill value bytes (zeros if undefined)
	fillSet bool           // the file defines a fill value
	efl     []externalSlot // raw data in external files (External Data Files message)

	vds      *vdsState // virtual layout: the resolved mappings
	vdsDepth int       // virtual datasets this one is a source of, nested

	geom      *chunkGeom
	indexOnce sync.Once
	index     chunkIndex
	indexErr  error

	scan scanState // decode-ahead of sequential reads
}

// Dataset returns o as a dataset, decoding its dataspace, datatype,
// layout, filters and fill value.
func (o *Object) Dataset() (*Dataset, error) {
	ds, err := o.dataset()
	if err != nil {
		return nil, o.err(err)
	}
	return ds, nil
}

func (o *Object) dataset() (*Dataset, error) {
	ds := &Dataset{Object: o}
	msg := func(typ uint16) ([]byte, uint64, error) {
		m := o.oh.find(typ)
		if m == nil {
			return nil, 0, nil
		}
		return o.f.messageData(*m)
	}
	b, at, err := msg(msgDataspace)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, formatErr(o.Addr, "dataset has no dataspace message")
	}
	if ds.space, err = o.f.parseDataspace(b, at); err != nil {
		return nil, err
	}
	if b, at, err = msg(msgDatatype); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, formatErr(o.Addr, "dataset has no datatype message")
	}
	if ds.Type, _, err = parseDatatype(b, at); err != nil {
		return nil, err
	}
	if b, at, err = msg(msgLayout); err != nil {
		return nil, err
	}
	if ds.layout, err = o.f.parseLayout(b, at); err != nil {
		return nil, err
	}
	if b, at, err = msg(msgPipeline); err != nil {
		return nil, err
	}
	if b != nil {
		if ds.Filters, err = parsePipeline(b, at); err != nil {
			return nil, err
		}
	}
	if ds.layout.class == layoutStructured {
		if b, at, err = msg(msgSectionPipeline); err != nil {
			return nil, err
		}
		if b != nil {
			if ds.SectionFilters, err = parseSectionPipeline(b, at, ds.layout.stc.sections); err != nil {
				return nil, err
			}
		}
	}
	if err := ds.readFill(); err != nil {
		return nil, err
	}
	if b, at, err = msg(msgExternalFiles); err != nil {
		return nil, err
	}
	if b != nil {
		if ds.efl, err = o.f.parseExternalFiles(b, at); err != nil {
			return nil, err
		}
	}
	return ds, ds.checkLayout()
}

// readFill takes the fill value from the new or the old fill message.
func (ds *Dataset) readFill() error {
	size := int(ds.Type.Size)
	if size > maxElementSize {
		return formatErr(ds.Addr, "element size %d exceeds the %d-byte limit", size, maxElementSize)
	}
	ds.fill = make([]byte, size)
	var fv *fillValue
	if m := ds.oh.find(msgFillValue); m != nil {
		b, at, err := ds.f.messageData(*m)
		if err != nil {
			return err
		}
		if fv, err = ds.f.parseFillValue(b, at); err != nil {
			return err
		}
	} else if m := ds.oh.find(msgFillValueOld); m != nil {
		var err error
		if fv, err = ds.f.parseFillValueOld(m.data, m.addr); err != nil {
			return err
		}
	}
	if fv != nil && fv.defined && len(fv.value) == size {
		copy(ds.fill, fv.value)
		ds.fillSet = true
	}
	return nil
}

// checkLayout validates the layout against the dataspace and datatype so
// that reads can trust sizes.
func (ds *Dataset) checkLayout() error {
	l := ds.layout
	n, ok := ds.space.numElements()
	es := uint64(ds.Type.Size)
	if !ok || (es != 0 && n > uint64(1<<63-1)/es) {
		return formatErr(ds.Addr, "dataset size overflows")
	}
	switch l.class {
	case layoutVirtual:
		ds.vds = &vdsState{}
	case layoutCompact:
		if uint64(len(l.compact)) < n*es {
			return formatErr(ds.Addr, "compact data holds %d bytes, dataset needs %d", len(l.compact), n*es)
		}
	case layoutContiguous:
		if l.size == undefAddr { // layout v1/v2
			l.size = n * es
		}
		if l.addr != undefAddr && l.size < n*es {
			return formatErr(ds.Addr, "contiguous storage holds %d bytes, dataset needs %d", l.size, n*es)
		}
	case layoutChunked, layoutStructured:
		if l.class == layoutStructured {
			if err := ds.checkStructured(); err != nil {
				return err
			}
		}
		if len(l.chunk) != len(ds.space.dims) {
			return formatErr(ds.Addr, "chunk rank %d differs from dataspace rank %d", len(l.chunk), len(ds.space.dims))
		}
		if ds.space.kind != spaceSimple {
			return formatErr(ds.Addr, "chunked layout on a scalar or null dataspace")
		}
		max := ds.space.maxDims
		if max == nil {
			max = ds.space.dims
		}
		ds.geom = &chunkGeom{dims: ds.space.dims, maxDims: max, chunk: l.chunk, elemSize: es, filtered: len(ds.Filters) > 0 || ds.SectionFilters != nil}
		cb := ds.geom.chunkBytes()
		for _, c := range l.chunk {
			if c > 1<<32 || cb/c == 0 {
				return formatErr(ds.Addr, "chunk shape %v is too large", l.chunk)
			}
		}
		if cb > uint64(ds.f.maxChunk) {
			return formatErr(ds.Addr, "chunk of %d bytes exceeds the %d-byte limit", cb, ds.f.maxChunk)
		}
	}
	return nil
}

// maxElementSize bounds the size of one dataset element; real types are
// far smaller, and a hostile one must not make a reader allocate.
const maxElementSize = 64 << 20

// Shape returns the current dimensions (nil for a scalar). A virtual
// dataset with unlimited mappings has the extent its sources give it now,
// as libhdf5 computes it.
func (ds *Dataset) Shape() []uint64 {
	if ds.space.kind != spaceSimple {
		return nil
	}
	if ds.vds != nil {
		if st := ds.virtualState(); st.err == nil {
			return st.dims
		}
	}
	return ds.space.dims
}

// MaxShape returns the maximum dimensions; Unlimited marks unlimited ones.
func (ds *Dataset) MaxShape() []uint64 {
	if ds.space.maxDims == nil {
		return ds.Shape()
	}
	return ds.space.maxDims
}

// Unlimited is the MaxShape value of an unlimited dimension.
const Unlimited = unlimited

// IsScalar reports a scalar dataspace; IsNull a null (empty) one.
func (ds *Dataset) IsScalar() bool { return ds.space.kind == spaceScalar }

// IsNull reports a null dataspace: the dataset has no elements at all.
func (ds *Dataset) IsNull() bool { return ds.space.kind == spaceNull }

// NumElements returns the number of elements.
func (ds *Dataset) NumElements() uint64 {
	if ds.vds != nil && ds.space.kind == spaceSimple {
		return product(ds.Shape())
	}
	n, _ := ds.space.numElements()
	return n
}

// Size returns the number of bytes of the dataset's elements.
func (ds *Dataset) Size() int64 { return int64(ds.NumElements() * uint64(ds.Type.Size)) }

// Layout names the storage layout: compact, contiguous, chunked or virtual.
func (ds *Dataset) Layout() string {
	return [...]string{"compact", "contiguous", "chunked", "virtual", "structured"}[ds.layout.class]
}

// ChunkShape returns the chunk dimensions of a chunked dataset.
func (ds *Dataset) ChunkShape() []uint64 { return ds.layout.chunk }

// ChunkIndexKind returns the chunk index kind of a chunked dataset.
func (ds *Dataset) ChunkIndexKind() ChunkIndexKind { return ds.layout.index }

// FillValue returns one element of fill bytes and whether the file
// defines it (otherwise the fill is zeros).
func (ds *Dataset) FillValue() ([]byte, bool) { return ds.fill, ds.fillSet }

// ChunkInfo describes one stored chunk.
type ChunkInfo struct {
	Offset     []uint64 // element coordinates of the chunk's first element
	Addr       uint64   // file address (relative to the base address)
	StoredSize uint64
	FilterMask uint32
	// Sections describes the sections of a structured chunk (nil for
	// ordinary chunks).
	Sections []SectionInfo
}

// Chunks lists the allocated chunks of a chunked dataset in row-major
// order.
func (ds *Dataset) Chunks() ([]ChunkInfo, error) {
	idx, err := ds.chunkIndex()
	if err != nil {
		return nil, err
	}
	var out []ChunkInfo
	err = idx.forEach(func(c chunkLoc) error {
		off := make([]uint64, len(c.scaled))
		for i, s := range c.scaled {
			off[i] = s * ds.geom.chunk[i]
		}
		out = append(out, ChunkInfo{Offset: off, Addr: c.addr, StoredSize: c.size, FilterMask: c.mask, Sections: c.stc.info(c.size)})
		return nil
	})
	if err != nil {
		return nil, ds.err(err)
	}
	return out, nil
}

func (ds *Dataset) chunkIndex() (chunkIndex, error) {
	if ds.layout.class != layoutChunked && ds.layout.class != layoutStructured {
		return nil, fmt.Errorf("%s: %s: not a chunked dataset", ds.f.name, ds.Path)
	}
	ds.indexOnce.Do(func() {
		ds.index, ds.indexErr = ds.f.newChunkIndex(ds.layout, ds.geom)
		ds.indexErr = ds.err(ds.indexErr)
	})
	return ds.index, ds.indexErr
}

// ReadAt reads the dataset's elements as stored (the file's byte order),
// in row-major order over the full extent, as if they were one array of
// Size() bytes. Reading past the end returns io.EOF.
func (ds *Dataset) ReadAt(p []byte, off int64) (int, error) {
	size := ds.Size()
	if off < 0 {
		return 0, fmt.Errorf("%s: %s: negative offset", ds.f.name, ds.Path)
	}
	if off >= size {
		return 0, io.EOF
	}
	n := len(p)
	var eof error
	if int64(n) > size-off {
		n = int(size - off)
		eof = io.EOF
	}
	if err := ds.read(p[:n], off); err != nil {
		return 0, ds.err(err)
	}
	return n, eof
}

func (ds *Dataset) read(p []byte, off int64) error {
	if ds.efl != nil {
		return ds.readExternal(p, off)
	}
	l := ds.layout
	switch l.class {
	case layoutCompact:
		copy(p, l.compact[off:])
		return nil
	case layoutContiguous:
		if l.addr == undefAddr {
			fillRepeat(p, ds.fill, off)
			return nil
		}
		if !ds.f.holds(l.addr+uint64(off), uint64(len(p))) {
			return formatErr(l.addr, "contiguous data runs past the end of the file")
		}
		_, err := ds.f.r.ReadAt(p, int64(l.addr+ds.f.base+uint64(off)))
		if err != nil && err != io.EOF {
			return err
		}
		return nil
	case layoutChunked, layoutStructured:
		return ds.readChunked(p, off)
	case layoutVirtual:
		return ds.readVirtual(p, off)
	}
	return fmt.Errorf("%s layout: %w", ds.Layout(), ErrUnsupported)
}

// fillRepeat fills p with the repeated element fill, as if p started at
// byte offset off of an array of such elements.
func fillRepeat(p, fill []byte, off int64) {
	if len(fill) == 0 {
		return
	}
	// one period from element byte k, then copies of what is filled,
	// doubling (a whole chunk of a large dataset is filled this way)
	k := int(off % int64(len(fill)))
	n := copy(p, fill[k:])
	n += copy(p[n:], fill[:k])
	for n < len(p) {
		n += copy(p[n:], p[:n])
	}
}
