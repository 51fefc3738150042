package h5core

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Encoding selections for section 0 of structured chunks, as the
// prototype writes them (sparse-structured-chunk-format.md §5, §13): the
// H5Sencode envelope, a version-1 extent whose dimensions and maximum
// dimensions are the chunk shape, and a version-1 "all", hyperslab or
// point selection.

// encodeChunkSelection appends to b the selection of the positions idx
// of a chunk of the given shape (row-major linear indices inside the
// chunk, strictly ascending), encoded as Encode does, and returns the
// kind it chose: "all" when every position is listed; otherwise the
// hyperslab of the set's blocks (libhdf5's span-tree blocks: row-major,
// adjacent rows of equal pattern merged) or the point list in row-major
// order, whichever encodes smaller (the hyperslab on a tie). Either way
// the values go in row-major order.
func encodeChunkSelection(b []byte, shape []uint64, idx []uint64) ([]byte, SelectionKind, error) {
	total := product(shape)
	for i, v := range idx {
		if v >= total || (i > 0 && v <= idx[i-1]) {
			return nil, 0, fmt.Errorf("chunk positions not ascending inside the chunk %v at item %d (%d)", shape, i, v)
		}
	}
	n := uint64(len(idx))
	encode := func(s *Selection) ([]byte, SelectionKind, error) {
		b, err := s.appendEncoding(b)
		return b, s.Kind, err
	}
	switch {
	case n == 0:
		return encode(&Selection{Kind: SelectNone, Version: 1, shape: shape})
	case n == total:
		return encode(&Selection{Kind: SelectAll, Version: 1, shape: shape, spans: fullSpans(shape, 0), n: n})
	}
	// isolated: every block would hold one element, n blocks, more than
	// n/2: the span tree is not built
	if !isolated(shape, idx) {
		rank := len(shape)
		last := shape[rank-1]
		// runs along the last dimension, row-major
		start, end := make([]uint64, 0, len(idx)*rank), make([]uint64, 0, len(idx)*rank)
		for i := 0; i < len(idx); {
			j := i + 1
			for j < len(idx) && idx[j] == idx[j-1]+1 && idx[j]%last != 0 {
				j++
			}
			start = appendCoords(start, shape, idx[i])
			end = appendCoords(end, shape, idx[j-1])
			i = j
		}
		spans := buildRuns(start, end, rank)
		if blockCount(spans, 0, rank) <= n/2 {
			return encode(&Selection{Kind: SelectHyperslab, Version: 1, shape: shape, spans: spans, n: n})
		}
	}
	b, err := appendPointList(b, shape, idx)
	return b, SelectPoints, err
}

// appendCoords appends the coordinates of position v (a row-major linear
// index inside a chunk of the given shape) to dst.
func appendCoords(dst, shape []uint64, v uint64) []uint64 {
	rank := len(shape)
	at := len(dst)
	dst = slices.Grow(dst, rank)[:at+rank]
	for d := rank - 1; d > 0; d-- {
		dst[at+d], v = v%shape[d], v/shape[d]
	}
	dst[at] = v // v < total: the first coordinate is what is left
	return dst
}

// appendPointList appends the point selection of the positions idx
// (ascending) of a chunk of the given shape, as Encode encodes a point
// selection, computing the coordinates as it writes them: by division
// only for the first point of each row along the last dimension.
func appendPointList(b []byte, shape, idx []uint64) ([]byte, error) {
	b, err := appendSelectionHeader(b, shape, SelectPoints)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	rank, n := len(shape), len(idx)
	b = le.AppendUint32(b, uint32(8+4*rank*n))
	b = le.AppendUint32(b, uint32(rank))
	b = le.AppendUint32(b, uint32(n))
	return appendPoints(b, shape, idx), nil
}

// appendPoints appends the coordinates of the positions idx (ascending)
// of a chunk of the given shape as a point selection lists them (4 bytes
// a coordinate), by division only for the first point of each row along
// the last dimension.
func appendPoints(b []byte, shape, idx []uint64) []byte {
	le := binary.LittleEndian
	rank := len(shape)
	w := 4 * rank // bytes of one point
	at := len(b)
	b = slices.Grow(b, w*len(idx))[:at+w*len(idx)]
	last := shape[rank-1]
	var lo, hi uint64 // the positions of the row of the point before
	for i, v := range idx {
		p := b[at+w*i : at+w*(i+1)]
		if i > 0 && v < hi { // the same row: the same coordinates but the last
			copy(p, b[at+w*(i-1):at+w*i-4])
			le.PutUint32(p[w-4:], uint32(v-lo))
			continue
		}
		lo = v - v%last
		hi = lo + last
		for d := rank - 1; d > 0; d-- {
			le.PutUint32(p[4*d:], uint32(v%shape[d]))
			v /= shape[d]
		}
		le.PutUint32(p, uint32(v))
	}
	return b
}

// isolated reports whether no two of the positions idx (ascending
// row-major linear indices in a chunk of the given shape) are neighbours
// along a dimension, so that no hyperslab block holds more than one.
func isolated(shape, idx []uint64) bool {
	// along the last dimension neighbours are adjacent in idx
	last := shape[len(shape)-1]
	for i := 1; i < len(idx); i++ {
		if idx[i] == idx[i-1]+1 && idx[i]%last != 0 {
			return false
		}
	}
	stride := last
	for d := len(shape) - 2; d >= 0; d-- {
		j := 0 // first of idx not below v+stride, which only grows
		for _, v := range idx {
			w := v + stride
			for j < len(idx) && idx[j] < w {
				j++
			}
			if j == len(idx) {
				break // no later v has a neighbour along d either
			}
			// w is v's neighbour unless v ends dimension d
			if idx[j] == w && (v/stride)%shape[d]+1 < shape[d] {
				return false
			}
		}
		stride *= shape[d]
	}
	return true
}

// blockCount returns the number of blocks Blocks visits in l (at
// dimension dim of rank).
func blockCount(l *spanList, dim, rank int) uint64 {
	if l == nil {
		return 0
	}
	if dim == rank-1 {
		return uint64(len(l.spans))
	}
	var n uint64
	for _, sp := range l.spans {
		n += blockCount(sp.down, dim+1, rank)
	}
	return n
}

// Encode returns the selection as the prototype stores it in section 0
// (without the checksum): envelope, version-1 extent with maximum
// dimensions equal to the chunk shape, and a version-1 selection of the
// selection's kind (hyperslabs as their blocks, points in stored order).
// It fails for chunk dimensions of 2^32 or more, which need the later
// encoding versions.
func (s *Selection) Encode() ([]byte, error) {
	return s.appendEncoding(make([]byte, 0, 3+4+8+16*len(s.shape)+12+12+4*len(s.points)+4))
}

// appendSelectionHeader appends the envelope, the extent and the
// selection header (kind, version 1) of a selection in a chunk of the
// given shape.
func appendSelectionHeader(b []byte, shape []uint64, kind SelectionKind) ([]byte, error) {
	rank := len(shape)
	for _, v := range shape {
		if v > math.MaxUint32 {
			return nil, fmt.Errorf("selection in a chunk of shape %v: dimensions of 2^32 or more: %w", shape, ErrUnsupported)
		}
	}
	le := binary.LittleEndian
	b = append(b, 1, 0, 8) // dataspace object, encoding version 0, 8-byte lengths
	b = le.AppendUint32(b, uint32(8+16*rank))
	b = append(b, 1, byte(rank), 1, 0, 0, 0, 0, 0) // extent v1, max dims present
	for range 2 {
		for _, v := range shape {
			b = le.AppendUint64(b, v)
		}
	}
	b = le.AppendUint32(b, uint32(kind))
	b = le.AppendUint32(b, 1)         // version 1
	return le.AppendUint32(b, 0), nil // reserved
}

// appendEncoding appends the encoding Encode returns to b.
func (s *Selection) appendEncoding(b []byte) ([]byte, error) {
	rank := len(s.shape)
	b, err := appendSelectionHeader(b, s.shape, s.Kind)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	switch s.Kind {
	case SelectNone, SelectAll:
		return le.AppendUint32(b, 0), nil
	case SelectPoints:
		n := len(s.points) / rank
		b = le.AppendUint32(b, uint32(8+4*rank*n))
		b = le.AppendUint32(b, uint32(rank))
		b = le.AppendUint32(b, uint32(n))
		at := len(b)
		b = slices.Grow(b, 4*len(s.points))[:at+4*len(s.points)]
		for i, v := range s.points {
			le.PutUint32(b[at+4*i:], uint32(v))
		}
		return b, nil
	case SelectHyperslab:
		nb := blockCount(s.tree(), 0, rank)
		size := 8 + 8*uint64(rank)*nb
		if size > math.MaxUint32 {
			return nil, fmt.Errorf("hyperslab selection of %d blocks is too large to encode: %w", nb, ErrUnsupported)
		}
		b = le.AppendUint32(b, uint32(size))
		b = le.AppendUint32(b, uint32(rank))
		b = le.AppendUint32(b, uint32(nb))
		err := s.Blocks(func(lo, hi []uint64) error {
			for _, v := range lo {
				b = le.AppendUint32(b, uint32(v))
			}
			for _, v := range hi {
				b = le.AppendUint32(b, uint32(v))
			}
			return nil
		})
		return b, err
	}
	return nil, fmt.Errorf("selection kind %d cannot be encoded", s.Kind)
}
