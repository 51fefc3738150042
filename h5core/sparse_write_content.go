package h5core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// SparseContent is the content of one structured chunk as a writer keeps
// it between commits: its defined positions (ascending row-major linear
// indices inside the chunk) and their values and, once it has been
// written as a point list, that encoding itself, so that the next commit
// builds the chunk by copying ranges of it around the edited positions
// instead of encoding every element again (Tx.UpdateSparseChunks). A
// SparseContent is never changed once made; an empty one is a chunk that
// is not stored.
type SparseContent struct {
	idx  []uint64
	vals []byte
	// raw, when not nil, is the chunk as stored unfiltered with a point
	// selection: section 0 (the encoded selection and its checksum), then
	// the values (vals is its tail); pts are the point coordinates in it
	raw, pts []byte
	// pairs counts the neighbour pairs (positions one apart along some
	// dimension) among the positions; -1 until counted
	pairs int
}

// NewSparseContent returns the content of a chunk holding the positions
// idx (ascending row-major linear indices inside the chunk) with the
// values vals (packed, in the same order), as SparseChunk.Positions
// returns them.
func NewSparseContent(idx []uint64, vals []byte) *SparseContent {
	return &SparseContent{idx: idx, vals: vals, pairs: -1}
}

// Len returns the number of defined elements.
func (c *SparseContent) Len() int { return len(c.idx) }

// Positions returns the defined positions, ascending, and their values.
// The slices must not be changed.
func (c *SparseContent) Positions() ([]uint64, []byte) { return c.idx, c.vals }

// Bytes returns the memory the content holds.
func (c *SparseContent) Bytes() int {
	if c.raw != nil {
		return 8*len(c.idx) + len(c.raw)
	}
	return 8*len(c.idx) + len(c.vals) + len(c.pts)
}

// SparseEdit is a new value of one element of a chunk: Pos is its
// row-major linear index inside the chunk, Val its packed value, nil to
// erase it.
type SparseEdit struct {
	Pos uint64
	Val []byte
}

// countPairs returns the number of neighbour pairs among the positions
// idx (ascending) of a chunk of the given shape: isolated's test,
// counting.
func countPairs(shape, idx []uint64) int {
	n := 0
	last := shape[len(shape)-1]
	for i := 1; i < len(idx); i++ {
		if idx[i] == idx[i-1]+1 && idx[i]%last != 0 {
			n++
		}
	}
	stride := last
	for d := len(shape) - 2; d >= 0; d-- {
		j := 0
		for _, v := range idx {
			w := v + stride
			for j < len(idx) && idx[j] < w {
				j++
			}
			if j == len(idx) {
				break
			}
			if idx[j] == w && (v/stride)%shape[d]+1 < shape[d] {
				n++
			}
		}
		stride *= shape[d]
	}
	return n
}

// touching returns the number of neighbour pairs of the set in (a
// membership test) that have at least one position in s (ascending, all
// of them in the set).
func touching(shape, s []uint64, in func(uint64) bool) int {
	n := 0
	inS := func(q uint64) bool { _, ok := slices.BinarySearch(s, q); return ok }
	for _, p := range s {
		stride := uint64(1)
		for d := len(shape) - 1; d >= 0; d-- {
			c := (p / stride) % shape[d]
			// a pair inside s counts once: from its lower position
			if c > 0 && in(p-stride) && !inS(p-stride) {
				n++
			}
			if c+1 < shape[d] && in(p+stride) {
				n++
			}
			stride *= shape[d]
		}
	}
	return n
}

// mergeSparse returns the content of a chunk of the given shape (values
// of es bytes) after the edits (ascending by position, one per position)
// and whether they changed it. The new content is encoded as a point
// list at once (with its checksum) when the selection encoding would
// choose one: when fewer than half its positions have a neighbour pair,
// the hyperslab blocks are more than half their count (a block of k
// positions holds at least k-1 pairs), which is encodeChunkSelection's
// choice of points.
func mergeSparse(shape []uint64, es int, old *SparseContent, edits []SparseEdit) (*SparseContent, bool, error) {
	total := product(shape)
	oidx := old.idx
	at := make([]int, len(edits)) // each edit's place in oidx
	had := make([]bool, len(edits))
	var added, removed []uint64
	changed := false
	k := 0
	for i, e := range edits {
		switch {
		case e.Pos >= total:
			return nil, false, fmt.Errorf("position %d lies outside the chunk %v", e.Pos, shape)
		case i > 0 && e.Pos <= edits[i-1].Pos:
			return nil, false, fmt.Errorf("edits not ascending by position at %d (%d)", i, e.Pos)
		case e.Val != nil && len(e.Val) != es:
			return nil, false, fmt.Errorf("%d bytes of value for elements of %d bytes", len(e.Val), es)
		}
		j, ok := slices.BinarySearch(oidx[k:], e.Pos)
		k += j
		at[i], had[i] = k, ok
		switch {
		case e.Val == nil && ok:
			removed = append(removed, e.Pos)
		case e.Val != nil && !ok:
			added = append(added, e.Pos)
		case e.Val != nil && !bytes.Equal(old.vals[k*es:(k+1)*es], e.Val):
			changed = true
		}
	}
	changed = changed || len(added) > 0 || len(removed) > 0
	if !changed {
		return old, false, nil
	}
	n := len(oidx) - len(removed) + len(added)
	if n == 0 {
		return &SparseContent{}, true, nil
	}
	// the positions after the edits, copied in pieces between them
	idx := make([]uint64, 0, n)
	from := 0
	for i, e := range edits {
		idx = append(idx, oidx[from:at[i]]...)
		if from = at[i]; had[i] {
			from++ // the old element is replaced or erased
		}
		if e.Val != nil {
			idx = append(idx, e.Pos)
		}
	}
	idx = append(idx, oidx[from:]...)
	pairs := old.pairs
	if pairs < 0 {
		pairs = countPairs(shape, oidx)
	}
	in := func(set []uint64) func(uint64) bool {
		return func(q uint64) bool { _, ok := slices.BinarySearch(set, q); return ok }
	}
	pairs += touching(shape, added, in(idx)) - touching(shape, removed, in(oidx))

	c := &SparseContent{idx: idx, pairs: pairs}
	points := uint64(n) < total && 2*pairs < n
	rank := len(shape)
	w := 4 * rank
	var opts []byte
	if points {
		if opts = old.pts; opts == nil {
			opts = appendPoints(nil, shape, oidx)
		}
		hdr, err := appendSelectionHeader(nil, shape, SelectPoints)
		if err != nil {
			return nil, false, err
		}
		hdr = binary.LittleEndian.AppendUint32(hdr, uint32(8+w*n))
		hdr = binary.LittleEndian.AppendUint32(hdr, uint32(rank))
		hdr = binary.LittleEndian.AppendUint32(hdr, uint32(n))
		c.raw = make([]byte, len(hdr), len(hdr)+w*n+4+es*n)
		copy(c.raw, hdr)
		c.pts = c.raw[len(hdr):len(hdr)]
		c.vals = c.raw[len(hdr)+w*n+4 : len(hdr)+w*n+4]
	} else {
		c.vals = make([]byte, 0, es*n)
	}
	// the values (and points) likewise
	from = 0
	put := func(to int) {
		c.vals = append(c.vals, old.vals[from*es:to*es]...)
		if points {
			c.pts = append(c.pts, opts[from*w:to*w]...)
		}
		from = to
	}
	for i, e := range edits {
		put(at[i])
		if had[i] {
			from++
		}
		if e.Val == nil {
			continue
		}
		c.vals = append(c.vals, e.Val...)
		if points {
			if had[i] {
				c.pts = append(c.pts, opts[(from-1)*w:from*w]...)
			} else {
				c.pts = appendPoints(c.pts, shape, []uint64{e.Pos})
			}
		}
	}
	put(len(oidx))
	if len(c.idx) != n || len(c.vals) != es*n || (points && len(c.pts) != w*n) {
		return nil, false, fmt.Errorf("merged %d elements, %d bytes of values and %d of points, want %d", len(c.idx), len(c.vals), len(c.pts), n)
	}
	if points {
		sec0 := c.raw[:len(c.raw)+len(c.pts)]
		binary.LittleEndian.PutUint32(c.raw[len(sec0):len(sec0)+4], lookup3(sec0, 0))
		c.raw = c.raw[:len(sec0)+4+len(c.vals)]
	}
	return c, true, nil
}
