package h5core

import (
	"encoding/binary"
	"fmt"
)

// encodeStructuredLayout encodes a data layout message version 5 class 4
// (structured chunk), the inverse of parseStructuredLayout, in the field
// order of H5O__layout_encode (sparse-structured-chunk-format.md §3). The
// single-chunk info comes from l.stc.single and the trailing address from
// l.addr. Constants the document could not confirm are the reader's
// (§12 U3: the sparse type bit is written as the file had it).
func encodeStructuredLayout(l *layout) ([]byte, error) {
	s := l.stc
	if s == nil {
		return nil, fmt.Errorf("not a structured-chunk layout")
	}
	dims := append(append([]uint64(nil), l.chunk...), s.elemSize)
	width := 1
	for _, v := range dims {
		for width < 8 && v >= 1<<(8*width) {
			width++
		}
	}
	le := binary.LittleEndian
	b := []byte{5, layoutStructured, 0}
	b = le.AppendUint16(b, s.typ)
	b = append(b, s.flags, byte(len(dims)), byte(width))
	for _, v := range dims {
		b = appendUintN(b, v, width)
	}
	b = append(b, 8, byte(s.sections), byte(len(s.meta)))
	b = append(b, s.meta...)
	b = append(b, byte(l.index))
	switch l.index {
	case IndexSingleChunk:
		b = appendUintN(b, s.single.size, s.csl)
		b = s.appendSections(b, s.single.stc, s.singleFiltered())
	case IndexFixedArray:
		b = append(b, l.pageBits)
	case IndexExtensibleArr:
		e := l.ea
		b = append(b, e.maxBits, e.indexElems, e.minPointers, e.minElems, e.pageBits)
	case IndexBtreeV2:
		b = le.AppendUint32(b, l.bt2.nodeSize)
		b = append(b, l.bt2.splitPct, l.bt2.mergePcnt)
	default:
		return nil, fmt.Errorf("structured-chunk index type %d", l.index)
	}
	return le.AppendUint64(b, l.addr), nil
}

// appendUintN appends v as an n-byte little-endian unsigned integer.
func appendUintN(b []byte, v uint64, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// appendSections appends the section fields of an index record, the
// inverse of decodeSections: offsets of sections 1..N-1 and, when
// filtered, every section's unfiltered size and filter mask. A nil
// record (an absent chunk) is all zeros.
func (s *stcLayout) appendSections(b []byte, r *stcRecord, filtered bool) []byte {
	var offs, unf []uint64
	var masks []uint32
	if r != nil {
		offs, unf, masks = r.offsets, r.unfiltered, r.masks
	}
	at := func(v []uint64, i int) uint64 {
		if i < len(v) {
			return v[i]
		}
		return 0
	}
	le := binary.LittleEndian
	for i := 1; i < s.sections; i++ {
		b = le.AppendUint64(b, at(offs, i))
	}
	if filtered {
		for i := 0; i < s.sections; i++ {
			b = le.AppendUint64(b, at(unf, i))
		}
		for i := 0; i < s.sections; i++ {
			var m uint32
			if i < len(masks) {
				m = masks[i]
			}
			b = le.AppendUint32(b, m)
		}
	}
	return b
}

// appendIndexRecord appends a fixed/extensible array element (rank 0) or
// a v2 B-tree record (addresses of so bytes) (the scaled coordinates of loc, rank of them) of a
// structured chunk, the inverse of decodeIndexRecord (§7.1, §7.4). An
// absent chunk (address undefAddr) is the undefined address with every
// other field zero.
func (s *stcLayout) appendIndexRecord(b []byte, so int, loc chunkLoc, filtered bool, rank int) []byte {
	b = appendUintN(b, loc.addr, so)
	rec := loc.stc
	size := loc.size
	if loc.addr == undefAddr {
		rec, size = nil, 0
	}
	b = appendUintN(b, size, s.csl)
	for i := 0; i < rank; i++ {
		b = binary.LittleEndian.AppendUint64(b, loc.scaled[i])
	}
	return s.appendSections(b, rec, filtered)
}
