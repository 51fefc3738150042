package h5core

import (
	"encoding/binary"
	"fmt"
)

// Layout classes of the data layout message.
const (
	layoutCompact    = 0
	layoutContiguous = 1
	layoutChunked    = 2
	layoutVirtual    = 3
	layoutStructured = 4
)

// ChunkIndexKind names how a chunked dataset finds its chunks.
type ChunkIndexKind uint8

// Chunk index kinds. The numeric values are those of layout message v4;
// IndexBtreeV1 is what layout messages v1-v3 use.
const (
	IndexBtreeV1       ChunkIndexKind = 0
	IndexSingleChunk   ChunkIndexKind = 1
	IndexImplicit      ChunkIndexKind = 2
	IndexFixedArray    ChunkIndexKind = 3
	IndexExtensibleArr ChunkIndexKind = 4
	IndexBtreeV2       ChunkIndexKind = 5
)

func (k ChunkIndexKind) String() string {
	switch k {
	case IndexBtreeV1:
		return "v1_btree"
	case IndexSingleChunk:
		return "single_chunk"
	case IndexImplicit:
		return "implicit"
	case IndexFixedArray:
		return "fixed_array"
	case IndexExtensibleArr:
		return "extensible_array"
	case IndexBtreeV2:
		return "v2_btree"
	}
	return "unknown"
}

// layout is a decoded data layout message (0x0008).
type layout struct {
	version uint8
	class   uint8

	// compact
	compact []byte
	// contiguous
	addr uint64
	size uint64
	// chunked: chunk dims (without the element-size dimension), the index
	// kind and its parameters; addr is the index address.
	chunk      []uint64
	index      ChunkIndexKind
	flags      uint8
	singleSize uint64 // single chunk, filtered: stored size
	singleMask uint32 // single chunk, filtered: filter mask
	pageBits   uint8  // fixed array
	ea         eaParams
	bt2        bt2Params
	stc        *stcLayout // structured chunks (class 4)
	vdsIndex   uint32     // virtual: the mapping's object in the global heap at addr
}

// eaParams are the extensible array creation parameters of layout v4.
type eaParams struct {
	maxBits, indexElems, minPointers, minElems, pageBits uint8
}

// bt2Params are the v2 B-tree creation parameters of layout v4.
type bt2Params struct {
	nodeSize            uint32
	splitPct, mergePcnt uint8
}

func (f *File) parseLayout(b []byte, at uint64) (*layout, error) {
	d := f.decoder(b, at)
	l := &layout{version: d.u8()}
	switch l.version {
	case 1, 2:
		return f.parseLayoutOld(d, l)
	case 3, 4, 5:
	default:
		return nil, formatErr(at, "data layout message version %d unknown", l.version)
	}
	l.class = d.u8()
	switch l.class {
	case layoutCompact:
		n := int(d.u16())
		l.compact = d.bytes(n)
	case layoutContiguous:
		l.addr = d.offset()
		l.size = d.length()
	case layoutChunked:
		if l.version == 3 {
			rank := int(d.u8())
			l.addr = d.offset()
			if rank < 1 || rank > maxRank+1 {
				return nil, formatErr(at, "chunk dimensionality %d out of range", rank)
			}
			l.chunk = make([]uint64, rank-1)
			for i := range l.chunk {
				l.chunk[i] = uint64(d.u32())
			}
			d.u32() // element size
			l.index = IndexBtreeV1
			break
		}
		l.flags = d.u8()
		rank := int(d.u8())
		width := int(d.u8())
		if rank < 1 || rank > maxRank+1 {
			return nil, formatErr(at, "chunk dimensionality %d out of range", rank)
		}
		if width < 1 || width > 8 {
			return nil, formatErr(at, "chunk dimension width %d out of range", width)
		}
		l.chunk = make([]uint64, rank-1)
		for i := range l.chunk {
			l.chunk[i] = d.uN(width)
		}
		d.uN(width) // element size
		l.index = ChunkIndexKind(d.u8())
		switch l.index {
		case IndexSingleChunk:
			if l.flags&2 != 0 {
				l.singleSize = d.length()
				l.singleMask = d.u32()
			}
		case IndexImplicit:
		case IndexFixedArray:
			l.pageBits = d.u8()
		case IndexExtensibleArr:
			l.ea = eaParams{d.u8(), d.u8(), d.u8(), d.u8(), d.u8()}
		case IndexBtreeV2:
			l.bt2 = bt2Params{d.u32(), d.u8(), d.u8()}
		default:
			return nil, formatErr(at, "chunk index type %d unknown", l.index)
		}
		l.addr = d.offset()
	case layoutVirtual:
		l.addr = d.offset()
		l.vdsIndex = d.u32()
	case layoutStructured:
		if l.version < 5 {
			return nil, formatErr(at, "structured-chunk layout in a version %d layout message", l.version)
		}
		return f.parseStructuredLayout(d, l)
	default:
		return nil, formatErr(at, "data layout class %d unknown", l.class)
	}
	if d.err != nil {
		return nil, d.err
	}
	for _, c := range l.chunk {
		if c == 0 {
			return nil, formatErr(at, "chunk dimension of size 0")
		}
	}
	return l, nil
}

// parseLayoutOld decodes layout message versions 1 and 2 (HDF5 <= 1.6).
func (f *File) parseLayoutOld(d *decoder, l *layout) (*layout, error) {
	rank := int(d.u8())
	l.class = d.u8()
	d.skip(5)
	if rank < 1 || rank > maxRank+1 {
		return nil, formatErr(d.at, "layout dimensionality %d out of range", rank)
	}
	if l.class != layoutCompact {
		l.addr = d.offset()
	}
	dims := make([]uint64, rank)
	for i := range dims {
		dims[i] = uint64(d.u32())
	}
	switch l.class {
	case layoutChunked:
		// The last dimension is the element size; libhdf5 writes nothing
		// after the dimensions (the spec's separate "dataset element
		// size" field does not exist in real files).
		l.chunk = dims[:rank-1]
		l.index = IndexBtreeV1
	case layoutCompact:
		n := int(d.u32())
		l.compact = d.bytes(n)
	case layoutContiguous:
		// size is computed from the dataspace by the caller
		l.size = undefAddr
	default:
		return nil, formatErr(d.at, "data layout class %d unknown", l.class)
	}
	if d.err != nil {
		return nil, d.err
	}
	return l, nil
}

// encodeLayout encodes a data layout message, the inverse of parseLayout
// for what writers create: version 3 contiguous and chunked (v1 B-tree)
// layouts with so-byte addresses and sl-byte lengths, and version 5
// structured-chunk ones. elemSize is the chunked layout's last dimension.
func encodeLayout(l *layout, so, sl int, elemSize uint64) ([]byte, error) {
	switch {
	case l.class == layoutStructured:
		return encodeStructuredLayout(l)
	case l.version != 3:
	case l.class == layoutContiguous:
		b := appendUintN([]byte{3, layoutContiguous}, l.addr, so)
		return appendUintN(b, l.size, sl), nil
	case l.class == layoutChunked && l.index == IndexBtreeV1:
		b := appendUintN([]byte{3, layoutChunked, byte(len(l.chunk) + 1)}, l.addr, so)
		for _, c := range l.chunk {
			b = binary.LittleEndian.AppendUint32(b, uint32(c))
		}
		return binary.LittleEndian.AppendUint32(b, uint32(elemSize)), nil
	}
	return nil, fmt.Errorf("encoding a version %d layout of class %d: %w", l.version, l.class, ErrUnsupported)
}
