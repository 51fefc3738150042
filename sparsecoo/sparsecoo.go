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
	"cmp"
	"encoding/binary"
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

// part says which parts of a block are wanted or held: the positions,
// the values or both.
type part uint8

const (
	partIdx part = 1 << iota
	partVals
)

// block is a decoded block: its defined elements as runs of elements
// consecutive along the last dimension, in row-major order (nil when not
// read), and their packed values (nil when not read). Run k starts at
// the global row-major linear index starts[k] and holds the block's
// elements [ends[k-1], ends[k]) (from 0 for the first). A block of one
// chunk of a matrix may hold its runs in place instead (enc), and lists
// them in starts and ends only when a reader other than PutCoords needs
// them (listed).
type block struct {
	i      int
	has    part
	starts []uint64
	ends   []uint64
	vals   []byte
	enc    *inPlace
}

// len returns the number of elements of the block's runs.
func (b *block) len() uint64 {
	if b.enc != nil {
		return b.enc.n
	}
	if len(b.ends) == 0 {
		return 0
	}
	return b.ends[len(b.ends)-1]
}

// run returns the run holding element e of the block (e < len) and the
// block's element at which it starts.
func (b *block) run(e uint64) (k int, first uint64) {
	b.listed()
	k = sort.Search(len(b.ends), func(k int) bool { return b.ends[k] > e })
	if k > 0 {
		first = b.ends[k-1]
	}
	return k, first
}

// indices fills dst with the linear indices of the block's elements from
// e on (dst no longer than what remains).
func (b *block) indices(e uint64, dst []uint64) {
	k, first := b.run(e)
	for len(dst) > 0 {
		x := b.starts[k] + e - first
		n := min(uint64(len(dst)), b.ends[k]-e)
		for j := range dst[:n] {
			dst[j] = x + uint64(j)
		}
		dst, e, first = dst[n:], b.ends[k], b.ends[k]
		k++
	}
}

// runsOf returns the runs (see block) of ascending linear indices idx in
// an array whose last dimension is line long.
func runsOf(idx []uint64, line uint64) (starts, ends []uint64) {
	var end uint64 // the linear index ending the current run's line
	for i, x := range idx {
		if n := len(starts); n > 0 && x == idx[i-1]+1 && x < end {
			ends[n-1]++
			continue
		}
		end = (x/line + 1) * line
		starts, ends = append(starts, x), append(ends, uint64(i)+1)
	}
	return starts, ends
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
func (m *Matrix) Coords(idx uint64, dst []uint64) { coordsOf(m.shape, idx, dst) }

// coordsOf converts a row-major linear index of an array of the given
// shape into coordinates (into dst).
func coordsOf(shape []uint64, idx uint64, dst []uint64) {
	for i := len(shape) - 1; i >= 0; i-- {
		d := shape[i]
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
		case has&partIdx != 0 && f.b.len() != nnz:
			f.b, f.err = nil, fmt.Errorf("sparsecoo: block %d holds %d elements, its selections count %d", i, f.b.len(), nnz)
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
		k := min(n-done, b.len()-off)
		b.indices(off, idx[done:done+k])
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
// A large read is split between the cores.
func (m *Matrix) ReadValues(start uint64, vals []byte) error {
	es := uint64(m.elemSize)
	n := uint64(len(vals)) / es
	if start > m.nnz || n > m.nnz-start {
		return fmt.Errorf("sparsecoo: elements [%d, %d) outside the %d defined elements: %w", start, start+n, m.nnz, io.ErrUnexpectedEOF)
	}
	return split(n, func(lo, hi uint64) error { return m.readValues(start+lo, vals[lo*es:hi*es]) })
}

// readValues is ReadValues of one part.
func (m *Matrix) readValues(start uint64, vals []byte) error {
	es := uint64(m.elemSize)
	n := uint64(len(vals)) / es
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

// PutCoords fills dst with coordinate dim of the defined elements from
// element start on, in row-major order, as little-endian int64
// (len(dst)/8 of them): the coordinate columns of COO and the CSR column
// indices, written run by run from the blocks' runs. A large read is
// split between the cores.
func (m *Matrix) PutCoords(start uint64, dim int, dst []byte) error {
	n := uint64(len(dst) / 8)
	if start > m.nnz || n > m.nnz-start {
		return fmt.Errorf("sparsecoo: elements [%d, %d) outside the %d defined elements: %w", start, start+n, m.nnz, io.ErrUnexpectedEOF)
	}
	if dim < 0 || dim >= len(m.shape) {
		return fmt.Errorf("sparsecoo: coordinate %d of an array of rank %d", dim, len(m.shape))
	}
	return split(n, func(lo, hi uint64) error { return m.putCoords(start+lo, dim, dst[8*lo:8*hi]) })
}

// putCoords is PutCoords of one part.
func (m *Matrix) putCoords(start uint64, dim int, dst []byte) error {
	n := uint64(len(dst) / 8)
	if dim == 0 && m.rowPtr != nil {
		m.putRows(start, dst)
		return nil
	}
	var step uint64
	if dim == len(m.shape)-1 {
		step = 1 // along a run
	}
	at := newStepper(m.shape)
	for done := uint64(0); done < n; {
		e := start + done
		bi := m.blockOf(e)
		b, err := m.get(bi, partIdx)
		if err != nil {
			return err
		}
		off := e - m.blocks[bi].first
		if b.enc != nil {
			done += b.enc.put(off, dim, dst[8*done:])
			continue
		}
		k, first := b.run(off)
		if len(m.shape) == 2 {
			done += b.put2(k, off-first, dim, m.shape[1], dst[8*done:])
			continue
		}
		for ; k < len(b.starts) && done < n; k++ {
			c := min(b.ends[k]-off, n-done)
			v := at.coords(b.starts[k] + off - first)[dim]
			putSeq(dst[8*done:8*(done+c)], v, step)
			done += c
			off, first = b.ends[k], b.ends[k]
		}
	}
	return nil
}

// putRows fills dst with the rows (coordinate 0) of the defined elements
// of a matrix from element start on, from its CSR row pointers (rowPtr),
// as little-endian int64, decoding nothing.
func (m *Matrix) putRows(start uint64, dst []byte) {
	end := start + uint64(len(dst)/8)
	// the first row ending after start
	r := sort.Search(len(m.rowPtr)-1, func(r int) bool { return m.rowPtr[r+1] > start })
	for e := start; e < end; r++ {
		next := min(m.rowPtr[r+1], end)
		putSeq(dst[8*(e-start):8*(next-start)], uint64(r), 0)
		e = next
	}
}

// putRun writes the c little-endian int64 v, v+step, ..., v+(c-1)*step
// at dst[p:] (which holds them). A short run is written as 8 values
// whatever its length, the next runs writing over the rest, when dst has
// room: runs of varying lengths then need no loop whose end the processor
// would mispredict (coordinates of runs of 1 to 9 elements in half the
// time).
func putRun(dst []byte, p int, c, v, step uint64) {
	if c <= 8 && p+64 <= len(dst) {
		put8((*[64]byte)(dst[p:p+64]), v, step)
		return
	}
	putSeq(dst[p:p+8*int(c)], v, step)
}

// put8 fills dst with 8 little-endian int64: v, v+step, ..., v+7*step.
func put8(dst *[64]byte, v, step uint64) {
	le := binary.LittleEndian
	le.PutUint64(dst[0:], v)
	le.PutUint64(dst[8:], v+step)
	le.PutUint64(dst[16:], v+2*step)
	le.PutUint64(dst[24:], v+3*step)
	le.PutUint64(dst[32:], v+4*step)
	le.PutUint64(dst[40:], v+5*step)
	le.PutUint64(dst[48:], v+6*step)
	le.PutUint64(dst[56:], v+7*step)
}

// putSeq fills dst with len(dst)/8 little-endian int64: v, v+step,
// v+2*step...
func putSeq(dst []byte, v, step uint64) {
	for j := 0; j+8 <= len(dst); j += 8 {
		binary.LittleEndian.PutUint64(dst[j:j+8], v)
		v += step
	}
}

// put2 writes coordinate dim of the block's elements of a matrix (two
// dimensions, cols columns) from element skip of run k on into dst, as
// little-endian int64, until dst is full or the block ends, and returns
// how many it wrote. Rows are stepped, not divided, from run to run.
func (b *block) put2(k int, skip uint64, dim int, cols uint64, dst []byte) uint64 {
	if k >= len(b.starts) {
		return 0
	}
	row := b.starts[k] / cols
	base := row * cols
	p := 0
	for ; k < len(b.starts) && p < len(dst); k++ {
		x := b.starts[k]
		for x-base >= cols { // runs do not cross rows
			if x-base >= 8*cols { // far ahead: divide
				row = x / cols
				base = row * cols
				break
			}
			row++
			base += cols
		}
		var prev uint64
		if k > 0 {
			prev = b.ends[k-1]
		}
		c := min(b.ends[k]-prev-skip, uint64(len(dst)-p)/8)
		if dim == 0 {
			putRun(dst, p, c, row, 0)
		} else {
			putRun(dst, p, c, x-base+skip, 1)
		}
		p += 8 * int(c)
		skip = 0
	}
	return uint64(p / 8)
}

// Each calls fn for every defined element in row-major order with its
// coordinates (reused between calls) and packed value.
func (m *Matrix) Each(fn func(coord []uint64, value []byte) error) error {
	at := newStepper(m.shape)
	last := len(m.shape) - 1
	es := uint64(m.elemSize)
	for i := range m.blocks {
		b, err := m.get(i, partIdx|partVals)
		if err != nil {
			return err
		}
		b.listed()
		var e uint64
		for k, x := range b.starts {
			coord := at.coords(x)
			for ; e < b.ends[k]; e++ {
				if err := fn(coord, b.vals[e*es:(e+1)*es]); err != nil {
					return err
				}
				coord[last]++
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
		idx := make([]uint64, b.len())
		b.indices(0, idx)
		if err := fn(idx, b.vals); err != nil {
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
	b.listed()
	// runs do not cross rows
	lim := r * m.shape[1]
	k := sort.Search(len(b.starts), func(k int) bool { return b.starts[k] >= lim })
	if k == 0 {
		return meta.first, nil
	}
	return meta.first + b.ends[k-1], nil
}

// newBlock returns the block of the elements at linear indices idx, with
// their values vals (unless nil), in an array whose last dimension is line
// long, ordering them first (point selections and several chunks per
// chunk row leave them unordered).
func newBlock(idx []uint64, vals []byte, es int, line uint64) *block {
	if !slices.IsSorted(idx) {
		idx, vals = sortElements(idx, vals, es)
	}
	b := &block{vals: vals}
	b.starts, b.ends = runsOf(idx, line)
	return b
}

// sortElements orders elements by linear index, keeping the order of
// equal ones.
func sortElements(idx []uint64, vals []byte, es int) ([]uint64, []byte) {
	perm := make([]int32, len(idx))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(x, y int32) int { return cmp.Compare(idx[x], idx[y]) })
	sorted := make([]uint64, len(idx))
	for i, p := range perm {
		sorted[i] = idx[p]
	}
	if vals == nil {
		return sorted, nil
	}
	out := make([]byte, len(vals))
	for i, p := range perm {
		copy(out[i*es:(i+1)*es], vals[int(p)*es:(int(p)+1)*es])
	}
	return sorted, out
}

// stepper converts ascending linear indices into coordinates, stepping
// along the rows of a matrix rather than dividing each index.
type stepper struct {
	shape []uint64
	coord []uint64
	base  uint64 // linear index of the row's first element (rank 2)
	ok    bool   // coord holds a row (rank 2)
}

func newStepper(shape []uint64) *stepper {
	return &stepper{shape: shape, coord: make([]uint64, len(shape))}
}

// coords returns the coordinates of linear index x, not below the last
// index given (reused between calls).
func (s *stepper) coords(x uint64) []uint64 {
	if len(s.shape) != 2 {
		coordsOf(s.shape, x, s.coord)
		return s.coord
	}
	cols := s.shape[1]
	for k := 0; !s.ok || x-s.base >= cols; k++ {
		if !s.ok || k == 4 { // far ahead: divide
			s.coord[0] = x / cols
			s.base, s.ok = s.coord[0]*cols, true
			break
		}
		s.coord[0]++
		s.base += cols
	}
	s.coord[1] = x - s.base
	return s.coord
}
