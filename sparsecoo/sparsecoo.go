// Package sparsecoo reads sparse arrays as coordinate lists (COO) and, for
// two dimensions, compressed sparse rows (CSR), streaming them block by
// block in global row-major order.
//
// Two kinds of source are read: HDF5 structured-chunk sparse datasets
// (one block per row of chunks, so memory stays proportional to one chunk
// row) and anndata-style sparse groups (attribute encoding-type csr_matrix
// or csc_matrix, datasets data, indices and indptr, attribute shape).
//
// Values are packed little-endian elements of the source's datatype.
package sparsecoo

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/h5fs/h5fs/h5core"
)

// Matrix is a sparse array read block by block. It is safe for concurrent
// use.
type Matrix struct {
	shape    []uint64
	typ      *h5core.Datatype
	elemSize int // packed element size
	nnz      uint64
	src      blockSource
	blocks   []blockMeta
	rowPtr   []uint64 // CSR row pointers when known at open (rank 2)

	mu       sync.Mutex
	cache    []*block // most recently used first
	inflight map[int]*flight
}

// blockMeta is what is known of a block without decoding it.
type blockMeta struct {
	first  uint64 // index of its first element in row-major order
	nnz    uint64
	r0, r1 uint64 // the rows (dimension 0) it covers: [r0, r1)
}

// part says which parts of a block are wanted or held: the linear
// indices, the values or both.
type part uint8

const (
	partIdx part = 1 << iota
	partVals
)

// block is a decoded block: the global row-major linear index of each
// defined element, ascending (nil when not read), and the packed values
// (nil when not read).
type block struct {
	i    int
	has  part
	idx  []uint64
	vals []byte
}

// blockSource produces a Matrix's blocks.
type blockSource interface {
	// decode returns block i with at least the parts want and reports
	// the parts it holds.
	decode(i int, want part) (*block, part, error)
	// valuesAt fills dst (whole packed elements) with the values of
	// block i from its element off on, read straight from the file
	// without decoding the block, and reports false, reading nothing,
	// when they are not stored so.
	valuesAt(i int, off uint64, dst []byte) (bool, error)
}

// aheadBlocks bounds how many blocks a Matrix decodes ahead of the one
// being read; cachedBlocks is how many decoded blocks it keeps: the one
// being read and those decoded ahead, each perhaps twice (its indices for
// coordinate columns, with its values for other views).
const (
	aheadBlocks  = 2
	cachedBlocks = 2 * (1 + aheadBlocks)
)

// Shape returns the array's dimensions.
func (m *Matrix) Shape() []uint64 { return m.shape }

// Type returns the element datatype (as stored; values are packed
// little-endian).
func (m *Matrix) Type() *h5core.Datatype { return m.typ }

// ElemSize returns the size of one packed value in bytes.
func (m *Matrix) ElemSize() int { return m.elemSize }

// NNZ returns the number of defined elements.
func (m *Matrix) NNZ() uint64 { return m.nnz }

// NumBlocks returns the number of blocks.
func (m *Matrix) NumBlocks() int { return len(m.blocks) }

// Coords converts a row-major linear index into coordinates (into dst,
// which must have len(Shape()) elements).
func (m *Matrix) Coords(idx uint64, dst []uint64) {
	for i := len(m.shape) - 1; i >= 0; i-- {
		d := m.shape[i]
		if d == 0 {
			dst[i] = 0
			continue
		}
		dst[i], idx = idx%d, idx/d
	}
}

// get returns decoded block i, from the cache when possible, and starts
// decoding the next blocks in the background (reads are mostly
// sequential), one per core: reading block after block then runs at the
// speed of decoding on every core.
func (m *Matrix) get(i int, want part) (*block, error) {
	b, err := m.fetch(i, want)
	if err != nil {
		return nil, err
	}
	for j := i + 1; j <= i+prefetchBlocks() && j < len(m.blocks); j++ {
		m.mu.Lock()
		busy := m.cached(j, want) != nil || m.inflight[j] != nil
		if !busy {
			go m.decode(j, m.startFlight(j, want))
		}
		m.mu.Unlock()
	}
	return b, nil
}

// prefetchBlocks is how many blocks get decodes ahead: one per core, at
// most aheadBlocks.
func prefetchBlocks() int { return min(runtime.GOMAXPROCS(0), aheadBlocks) }

// flight is a block being decoded.
type flight struct {
	done chan struct{}
	want part
	b    *block
	err  error
}

// cached returns block i from the cache (with the parts asked), or nil.
// m.mu must be held.
func (m *Matrix) cached(i int, want part) *block {
	for k, b := range m.cache {
		if b.i == i && b.has&want == want {
			copy(m.cache[1:k+1], m.cache[:k])
			m.cache[0] = b
			return b
		}
	}
	return nil
}

// fetch returns block i from the cache, from a decode in flight, or by
// decoding it.
func (m *Matrix) fetch(i int, want part) (*block, error) {
	m.mu.Lock()
	if b := m.cached(i, want); b != nil {
		m.mu.Unlock()
		return b, nil
	}
	f := m.inflight[i]
	if f == nil || f.want&want != want {
		f = m.startFlight(i, want)
		m.mu.Unlock()
		m.decode(i, f)
	} else {
		m.mu.Unlock()
	}
	<-f.done
	return f.b, f.err
}

// startFlight records that block i is being decoded with the parts want.
// m.mu must be held.
func (m *Matrix) startFlight(i int, want part) *flight {
	f := &flight{done: make(chan struct{}), want: want}
	if m.inflight == nil {
		m.inflight = map[int]*flight{}
	}
	m.inflight[i] = f
	return f
}

// decode decodes block i for the flight f, caches it and ends f.
func (m *Matrix) decode(i int, f *flight) {
	var has part
	f.b, has, f.err = m.src.decode(i, f.want)
	if f.err == nil {
		f.b.i, f.b.has = i, has
		nnz, es := m.blocks[i].nnz, uint64(m.elemSize)
		switch {
		case has&partIdx != 0 && uint64(len(f.b.idx)) != nnz:
			f.b, f.err = nil, fmt.Errorf("sparsecoo: block %d holds %d elements, its selections count %d", i, len(f.b.idx), nnz)
		case has&partVals != 0 && uint64(len(f.b.vals)) != nnz*es:
			f.b, f.err = nil, fmt.Errorf("sparsecoo: block %d holds %d bytes of values, its selections count %d elements", i, len(f.b.vals), nnz)
		}
	}
	m.mu.Lock()
	if m.inflight[i] == f {
		delete(m.inflight, i)
	}
	if f.err == nil {
		m.cache = append([]*block{f.b}, m.cache...)
		if len(m.cache) > cachedBlocks {
			m.cache = m.cache[:cachedBlocks]
		}
	}
	m.mu.Unlock()
	close(f.done)
}

// blockOf returns the block holding element e (e < NNZ).
func (m *Matrix) blockOf(e uint64) int {
	return sort.Search(len(m.blocks), func(i int) bool { return m.blocks[i].first+m.blocks[i].nnz > e })
}

// Read fills idx (and vals, len(idx)*ElemSize bytes, unless nil) with the
// linear indices and values of defined elements [start, start+len(idx))
// in row-major order.
func (m *Matrix) Read(start uint64, idx []uint64, vals []byte) error {
	n := uint64(len(idx))
	if start > m.nnz || n > m.nnz-start {
		return fmt.Errorf("sparsecoo: elements [%d, %d) outside the %d defined elements: %w", start, start+n, m.nnz, io.ErrUnexpectedEOF)
	}
	es := uint64(m.elemSize)
	for done := uint64(0); done < n; {
		e := start + done
		bi := m.blockOf(e)
		want := partIdx
		if vals != nil {
			want |= partVals
		}
		b, err := m.get(bi, want)
		if err != nil {
			return err
		}
		off := e - m.blocks[bi].first
		k := uint64(copy(idx[done:], b.idx[off:]))
		if vals != nil {
			copy(vals[done*es:(done+k)*es], b.vals[off*es:])
		}
		done += k
	}
	return nil
}

// ReadValues fills vals (a whole number of ElemSize elements) with the
// values of defined elements from start on, in row-major order, as Read
// does; blocks whose stored order is row-major are not decoded further
// than their values.
func (m *Matrix) ReadValues(start uint64, vals []byte) error {
	es := uint64(m.elemSize)
	n := uint64(len(vals)) / es
	if start > m.nnz || n > m.nnz-start {
		return fmt.Errorf("sparsecoo: elements [%d, %d) outside the %d defined elements: %w", start, start+n, m.nnz, io.ErrUnexpectedEOF)
	}
	for done := uint64(0); done < n; {
		e := start + done
		bi := m.blockOf(e)
		off := e - m.blocks[bi].first
		k := min(n-done, m.blocks[bi].nnz-off)
		dst := vals[done*es : (done+k)*es]
		done += k
		if ok, err := m.src.valuesAt(bi, off, dst); ok || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		b, err := m.get(bi, partVals)
		if err != nil {
			return err
		}
		copy(dst, b.vals[off*es:])
	}
	return nil
}

// Indices calls fn with the linear indices of defined elements [start,
// start+n) in row-major order, a piece of a decoded block at a time,
// without copying them: fn must not keep or change the slice.
func (m *Matrix) Indices(start, n uint64, fn func(idx []uint64) error) error {
	if start > m.nnz || n > m.nnz-start {
		return fmt.Errorf("sparsecoo: elements [%d, %d) outside the %d defined elements: %w", start, start+n, m.nnz, io.ErrUnexpectedEOF)
	}
	for done := uint64(0); done < n; {
		e := start + done
		bi := m.blockOf(e)
		b, err := m.get(bi, partIdx)
		if err != nil {
			return err
		}
		off := e - m.blocks[bi].first
		k := min(n-done, uint64(len(b.idx))-off)
		if err := fn(b.idx[off : off+k]); err != nil {
			return err
		}
		done += k
	}
	return nil
}

// Each calls fn for every defined element in row-major order with its
// coordinates (reused between calls) and packed value.
func (m *Matrix) Each(fn func(coord []uint64, value []byte) error) error {
	coord := make([]uint64, len(m.shape))
	es := m.elemSize
	for i := range m.blocks {
		b, err := m.get(i, partIdx|partVals)
		if err != nil {
			return err
		}
		for k, x := range b.idx {
			m.Coords(x, coord)
			if err := fn(coord, b.vals[k*es:(k+1)*es]); err != nil {
				return err
			}
		}
	}
	return nil
}

// EachBlock calls fn with every block's linear indices and packed values,
// in row-major order; the slices are only valid during the call.
func (m *Matrix) EachBlock(fn func(idx []uint64, vals []byte) error) error {
	for i := range m.blocks {
		b, err := m.get(i, partIdx|partVals)
		if err != nil {
			return err
		}
		if err := fn(b.idx, b.vals); err != nil {
			return err
		}
	}
	return nil
}

// RowPtr returns the CSR row pointer of row r of a two-dimensional
// matrix: the number of defined elements in rows before r (r may be the
// row count). Only the block holding row r is decoded, without values.
func (m *Matrix) RowPtr(r uint64) (uint64, error) {
	if len(m.shape) != 2 {
		return 0, fmt.Errorf("sparsecoo: CSR needs two dimensions, the array has %d", len(m.shape))
	}
	if r >= m.shape[0] {
		return m.nnz, nil
	}
	if m.rowPtr != nil {
		return m.rowPtr[r], nil
	}
	bi := sort.Search(len(m.blocks), func(i int) bool { return m.blocks[i].r1 > r })
	if bi == len(m.blocks) {
		return m.nnz, nil
	}
	meta := m.blocks[bi]
	if r <= meta.r0 {
		return meta.first, nil
	}
	b, err := m.get(bi, partIdx)
	if err != nil {
		return 0, err
	}
	lim := r * m.shape[1]
	k, _ := slices.BinarySearch(b.idx, lim)
	return meta.first + uint64(k), nil
}

// sortBlock orders a block's elements by linear index (point selections
// and several chunks per chunk row leave them unordered).
func sortBlock(b *block, es int) {
	if slices.IsSorted(b.idx) {
		return
	}
	perm := make([]int32, len(b.idx))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(x, y int32) int {
		a, c := b.idx[x], b.idx[y]
		switch {
		case a < c:
			return -1
		case a > c:
			return 1
		}
		return 0
	})
	idx := make([]uint64, len(b.idx))
	for i, p := range perm {
		idx[i] = b.idx[p]
	}
	b.idx = idx
	if b.vals != nil {
		vals := make([]byte, len(b.vals))
		for i, p := range perm {
			copy(vals[i*es:(i+1)*es], b.vals[int(p)*es:(int(p)+1)*es])
		}
		b.vals = vals
	}
}
