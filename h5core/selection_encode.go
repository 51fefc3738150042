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

// chunkSelection returns the selection of the positions idx of a chunk of
// the given shape (row-major linear indices inside the chunk, strictly
// ascending): "all" when every position is listed; otherwise the
// hyperslab of the set's blocks (libhdf5's span-tree blocks: row-major,
// adjacent rows of equal pattern merged) or the point list in row-major
// order, whichever encodes smaller (the hyperslab on a tie). Either way
// the values go in row-major order.
func chunkSelection(shape []uint64, idx []uint64) (*Selection, error) {
	total := product(shape)
	for i, v := range idx {
		if v >= total || (i > 0 && v <= idx[i-1]) {
			return nil, fmt.Errorf("chunk positions not ascending inside the chunk %v at item %d (%d)", shape, i, v)
		}
	}
	n := uint64(len(idx))
	switch {
	case n == 0:
		return &Selection{Kind: SelectNone, Version: 1, shape: shape}, nil
	case n == total:
		return &Selection{Kind: SelectAll, Version: 1, shape: shape, spans: fullSpans(shape, 0), n: n}, nil
	}
	rank := len(shape)
	coords := func(v uint64, dst []uint64) []uint64 {
		at := len(dst)
		dst = slices.Grow(dst, rank)[:at+rank]
		for d := rank - 1; d > 0; d-- {
			dst[at+d], v = v%shape[d], v/shape[d]
		}
		dst[at] = v // v < total: the first coordinate is what is left
		return dst
	}
	points := func() *Selection {
		pts := make([]uint64, 0, len(idx)*rank)
		for _, v := range idx {
			pts = coords(v, pts)
		}
		return &Selection{Kind: SelectPoints, Version: 1, shape: shape, points: pts, n: n}
	}
	if isolated(shape, idx) {
		// every block holds one element: n blocks, more than n/2
		return points(), nil
	}
	last := shape[rank-1]
	// runs along the last dimension, row-major
	start, end := make([]uint64, 0, len(idx)*rank), make([]uint64, 0, len(idx)*rank)
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 && idx[j]%last != 0 {
			j++
		}
		start = coords(idx[i], start)
		end = coords(idx[j-1], end)
		i = j
	}
	spans := buildRuns(start, end, rank)
	if blockCount(spans, 0, rank) <= n/2 {
		return &Selection{Kind: SelectHyperslab, Version: 1, shape: shape, spans: spans, n: n}, nil
	}
	return points(), nil
}

// isolated reports whether no two of the positions idx (ascending
// row-major linear indices in a chunk of the given shape) are neighbours
// along a dimension, so that no hyperslab block holds more than one.
func isolated(shape, idx []uint64) bool {
	stride := uint64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		j := 0 // first of idx not below v+stride, which only grows
		for _, v := range idx {
			for j < len(idx) && idx[j] < v+stride {
				j++
			}
			// v+stride is v's neighbour unless v ends dimension d
			if j < len(idx) && idx[j] == v+stride && (v/stride)%shape[d]+1 < shape[d] {
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
	rank := len(s.shape)
	for _, v := range s.shape {
		if v > math.MaxUint32 {
			return nil, fmt.Errorf("selection in a chunk of shape %v: dimensions of 2^32 or more: %w", s.shape, ErrUnsupported)
		}
	}
	le := binary.LittleEndian
	size := 3 + 4 + 8 + 16*rank + 12 + 12 + 4*len(s.points) + 4 // envelope, extent, selection and point list headers, points, checksum
	b := append(make([]byte, 0, size), 1, 0, 8)                 // dataspace object, encoding version 0, 8-byte lengths
	b = le.AppendUint32(b, uint32(8+16*rank))
	b = append(b, 1, byte(rank), 1, 0, 0, 0, 0, 0) // extent v1, max dims present
	for range 2 {
		for _, v := range s.shape {
			b = le.AppendUint64(b, v)
		}
	}
	b = le.AppendUint32(b, uint32(s.Kind))
	b = le.AppendUint32(b, 1) // version 1
	b = le.AppendUint32(b, 0) // reserved
	switch s.Kind {
	case SelectNone, SelectAll:
		return le.AppendUint32(b, 0), nil
	case SelectPoints:
		n := len(s.points) / rank
		b = le.AppendUint32(b, uint32(8+4*rank*n))
		b = le.AppendUint32(b, uint32(rank))
		b = le.AppendUint32(b, uint32(n))
		at := len(b)
		b = b[:at+4*len(s.points)]
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
