package h5core

import "math/bits"

// Structured-chunk layout flags (data layout message v5, class 4).
const (
	stcDontFilterPartial = 0x01 // partial edge chunks are stored unfiltered
	stcSingleWithFilter  = 0x02 // the single-chunk info carries filter fields
)

// stcLayout is the structured-chunk part of a layout message v5 class 4:
// the structured chunk composition and, for the single-chunk index, the
// one chunk's record.
type stcLayout struct {
	typ      uint16 // structured chunk type (stcSparse, stcVariable)
	flags    uint8
	elemSize uint64 // the last stored dimension: the datatype size
	sections int    // number of sections N
	meta     []uint8
	csl      int // width of the chunk size field of index records
	single   chunkLoc
}

// singleFiltered reports whether the single-chunk info carries filter
// fields.
func (s *stcLayout) singleFiltered() bool { return s.flags&stcSingleWithFilter != 0 }

// parseStructuredLayout decodes the rest of a layout message v5 class 4
// (field order of H5O__layout_decode).
func (f *File) parseStructuredLayout(d *decoder, l *layout) (*layout, error) {
	at := d.at
	s := &stcLayout{}
	if v := d.u8(); d.err == nil && v != 0 {
		return nil, formatErr(at, "structured-chunk property version %d unknown", v)
	}
	s.typ, s.flags = d.u16(), d.u8()
	rank, width := int(d.u8()), int(d.u8())
	if d.err != nil {
		return nil, d.err
	}
	if s.flags&^(stcDontFilterPartial|stcSingleWithFilter) != 0 {
		return nil, formatErr(at, "structured-chunk layout flags %#x unknown", s.flags)
	}
	if rank < 2 || rank > maxRank+1 {
		return nil, formatErr(at, "structured-chunk dimensionality %d out of range", rank)
	}
	if width < 1 || width > 8 {
		return nil, formatErr(at, "structured-chunk dimension width %d out of range", width)
	}
	l.chunk = make([]uint64, rank-1)
	dense := uint64(1) // dense chunk size S: all stored dims multiplied
	for i := 0; i < rank; i++ {
		v := d.uN(width)
		if d.err != nil {
			return nil, d.err
		}
		if v == 0 {
			return nil, formatErr(at, "structured-chunk dimension %d of size 0", i)
		}
		hi, lo := bits.Mul64(dense, v)
		if hi != 0 {
			return nil, formatErr(at, "structured chunk size overflows")
		}
		dense = lo
		if i < rank-1 {
			l.chunk[i] = v
		} else {
			s.elemSize = v
		}
	}
	if os := d.u8(); d.err == nil && os != 8 {
		return nil, formatErr(at, "structured-chunk offset size %d (only 8 is defined)", os)
	}
	s.sections = int(d.u8())
	nmeta := int(d.u8())
	if d.err == nil && (s.sections < 1 || s.sections > 3 || nmeta > s.sections) {
		return nil, formatErr(at, "structured chunk of %d sections, %d metadata sections", s.sections, nmeta)
	}
	s.meta = append([]uint8(nil), d.bytes(nmeta)...)
	if s.sections == 3 {
		s.csl = 8
	} else {
		s.csl = chunkSizeWidth(dense)
	}
	l.index = ChunkIndexKind(d.u8())
	switch l.index {
	case IndexSingleChunk:
		s.single = s.decodeRecord(d, s.singleFiltered())
	case IndexFixedArray:
		l.pageBits = d.u8()
	case IndexExtensibleArr:
		l.ea = eaParams{d.u8(), d.u8(), d.u8(), d.u8(), d.u8()}
	case IndexBtreeV2:
		l.bt2 = bt2Params{d.u32(), d.u8(), d.u8()}
	default:
		if d.err == nil {
			return nil, formatErr(at, "structured-chunk index type %d unknown", l.index)
		}
	}
	l.addr = d.offset()
	s.single.addr = l.addr
	if d.err != nil {
		return nil, d.err
	}
	l.stc = s
	return l, nil
}
