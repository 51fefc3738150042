package sparsecoo

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/h5fs/h5fs/h5core"
)

// datasetSource reads a structured-chunk sparse dataset one chunk row
// (the chunks sharing their first scaled coordinate) at a time.
type datasetSource struct {
	ds   *h5core.Dataset
	rows [][]h5core.ChunkInfo // stored chunks of each non-empty chunk row
	nnz  []uint64             // defined elements of each chunk row
	// direct marks the chunk rows of one chunk whose stored values are
	// the row's values in row-major order: a hyperslab or "all"
	// selection wholly inside the extent
	direct []bool
	shape  []uint64
	es     int

	kept *keptRows
}

// keptBudget bounds the memory of the selections that Open keeps (see
// keptRows), over all the matrices of the process.
const keptBudget = 64 << 20

// keptTotal is the memory of the selections kept now.
var keptTotal atomic.Int64

// keptRows holds the chunks (selections, not values) of each chunk row
// that Open read and verified, for the row's first decode, which takes
// them rather than reading and verifying section 0 again. Rows are kept
// from the first on while keptBudget allows; a row's memory is given back
// when it is taken, the rest when the matrix is collected.
type keptRows struct {
	mu    sync.Mutex
	rows  [][]*h5core.SparseChunk // nil: not kept, or taken
	bytes []int64                 // memory of each row kept
}

// keep keeps rows from the first on while the budget allows.
func (k *keptRows) keep(rows [][]*h5core.SparseChunk) {
	k.rows, k.bytes = rows, make([]int64, len(rows))
	for i, row := range rows {
		var n int64
		for _, c := range row {
			n += int64(c.Selection.HeldBytes())
		}
		if keptTotal.Add(n) > keptBudget {
			keptTotal.Add(-n)
			clear(rows[i:])
			return
		}
		k.bytes[i] = n
	}
}

// take returns the chunks kept of chunk row i, or nil (then or later:
// each is taken once, so that memory only shrinks).
func (k *keptRows) take(i int) []*h5core.SparseChunk {
	k.mu.Lock()
	defer k.mu.Unlock()
	r := k.rows[i]
	k.rows[i] = nil
	keptTotal.Add(-k.bytes[i])
	k.bytes[i] = 0
	return r
}

// release gives back the memory of every row still kept.
func (k *keptRows) release() {
	for i := range k.rows {
		k.take(i)
	}
}

// Open reads the chunk index and every chunk's selection (not the values)
// of a sparse dataset, so that NNZ and every block's size are known.
func Open(ds *h5core.Dataset) (*Matrix, error) {
	if !ds.IsSparse() {
		return nil, fmt.Errorf("sparsecoo: %s is not a sparse dataset", ds.Path)
	}
	if !ds.Type.IsFixedSize() {
		return nil, fmt.Errorf("sparsecoo: %s: %s elements are not fixed-size: %w", ds.Path, ds.Type, h5core.ErrUnsupported)
	}
	chunks, err := ds.SparseChunks()
	if err != nil {
		return nil, err
	}
	shape := ds.Shape()
	src := &datasetSource{ds: ds, shape: shape, es: ds.Type.PackedSize()}
	m := &Matrix{shape: shape, typ: ds.Type, elemSize: src.es, src: src}
	counts := make([]uint64, len(chunks))
	direct := make([]bool, len(chunks))
	decoded := make([]*h5core.SparseChunk, len(chunks))
	var kept [][]*h5core.SparseChunk // per chunk row
	// per-row counts give CSR row pointers without decoding (rank 2)
	var rowCounts []uint64
	if len(shape) == 2 && shape[0] <= maxRowCounts {
		rowCounts = make([]uint64, shape[0]+1)
	}
	var mu sync.Mutex
	err = parallel(len(chunks), func(i int) error {
		c, err := ds.ReadSparseChunk(chunks[i], false)
		if err == nil {
			decoded[i] = c
			counts[i] = c.NNZ()
			direct[i] = c.Selection.Kind != h5core.SelectPoints && c.Selection.Len() == counts[i]
			if rowCounts != nil {
				// the only chunk of its chunk row counts rows no other
				// chunk counts
				alone := (i == 0 || chunks[i-1].Offset[0] != c.Offset[0]) && (i+1 == len(chunks) || chunks[i+1].Offset[0] != c.Offset[0])
				if !alone {
					mu.Lock()
					defer mu.Unlock()
				}
				c.Selection.CountRows(c.Limit(), c.Offset[0], rowCounts[1:])
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	chunk := ds.ChunkShape()
	for i, c := range chunks {
		if counts[i] == 0 {
			continue
		}
		n := len(m.blocks)
		if n == 0 || c.Offset[0] != m.blocks[n-1].r0 {
			r1 := min(c.Offset[0]+chunk[0], shape[0])
			m.blocks = append(m.blocks, blockMeta{first: m.nnz, r0: c.Offset[0], r1: r1})
			src.rows = append(src.rows, nil)
			kept = append(kept, nil)
			src.nnz = append(src.nnz, 0)
			src.direct = append(src.direct, direct[i])
			n++
		} else {
			src.direct[n-1] = false
		}
		m.blocks[n-1].nnz += counts[i]
		src.rows[n-1] = append(src.rows[n-1], c)
		kept[n-1] = append(kept[n-1], decoded[i])
		src.nnz[n-1] += counts[i]
		m.nnz += counts[i]
	}
	src.kept = &keptRows{}
	src.kept.keep(kept)
	runtime.AddCleanup(m, (*keptRows).release, src.kept)
	if rowCounts != nil {
		for r := 1; r < len(rowCounts); r++ {
			rowCounts[r] += rowCounts[r-1]
		}
		m.rowPtr = rowCounts
	}
	return m, nil
}

// maxRowCounts bounds the rows for which Open keeps CSR row pointers
// (8 bytes a row); larger matrices decode selections in RowPtr.
const maxRowCounts = 1 << 24

func (s *datasetSource) valuesAt(i int, off uint64, dst []byte) (bool, error) {
	if !s.direct[i] || !s.ds.Type.IsPackedLE() {
		return false, nil
	}
	return s.ds.ReadSparseValuesAt(s.rows[i][0], s.nnz[i], off, dst)
}

func (s *datasetSource) decode(i int, want part) (*block, part, error) {
	if want == partVals && s.direct[i] {
		vals, err := s.ds.ReadSparseValues(s.rows[i][0], s.nnz[i])
		if err != nil {
			return nil, 0, err
		}
		if t := s.ds.Type; !t.IsPackedLE() {
			vals = t.AppendPackedLE(nil, vals, int(s.nnz[i]))
		}
		return &block{vals: vals}, partVals, nil
	}
	values := want&partVals != 0
	b, err := s.decodeRow(i, values)
	return b, want | partIdx, err
}

// decodeRow decodes chunk row i: the selections and, if values is set,
// the values.
func (s *datasetSource) decodeRow(i int, values bool) (*block, error) {
	chunks := s.rows[i]
	decoded := s.kept.take(i)
	read := decoded == nil
	if read {
		decoded = make([]*h5core.SparseChunk, len(chunks))
	}
	err := parallel(len(chunks), func(k int) error {
		if read {
			c, err := s.ds.ReadSparseChunk(chunks[k], values)
			decoded[k] = c
			return err
		}
		if !values {
			return nil
		}
		// the selection verified by Open, and the values alone
		c := *decoded[k]
		vals, err := s.ds.ReadSparseValues(chunks[k], c.Selection.Len())
		c.Values, decoded[k] = vals, &c
		return err
	})
	if err != nil {
		return nil, err
	}
	if c := decoded[0]; len(decoded) == 1 && c.Selection.Kind != h5core.SelectPoints && c.Selection.Len() == s.nnz[i] {
		// one chunk, all of it inside the extent: its elements are the
		// row's in row-major order
		vals := c.Values
		if t := s.ds.Type; values && !t.IsPackedLE() {
			vals = t.AppendPackedLE(nil, c.Values, int(s.nnz[i]))
		}
		if r, ok := c.Runs2(); ok {
			return inPlaceBlock(r, s.shape[1], vals), nil
		}
		b := &block{vals: vals}
		b.starts, b.ends = c.AppendRuns(nil, nil, s.shape)
		return b, nil
	}
	if b, ok, err := s.fillRows(i, decoded, values); ok || err != nil {
		return b, err
	}
	idx := make([]uint64, 0, s.nnz[i])
	var vals []byte
	if values {
		vals = make([]byte, 0, s.nnz[i]*uint64(s.es))
	}
	rank := len(s.shape)
	t := s.ds.Type
	packedLE := t.IsPackedLE()
	for _, c := range decoded {
		err := c.Runs(func(start []uint64, n uint64, v []byte) error {
			var base uint64
			for d := 0; d < rank; d++ {
				base = base*s.shape[d] + start[d]
			}
			for k := uint64(0); k < n; k++ {
				idx = append(idx, base+k)
			}
			if values {
				if packedLE {
					vals = append(vals, v...)
				} else {
					vals = t.AppendPackedLE(vals, v, int(n))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return newBlock(idx, vals, s.es, s.shape[rank-1]), nil
}

// maxRowCursors bounds the cursors (one per chunk and row of the chunk
// row) with which fillRows places a chunk row's elements.
const maxRowCursors = 1 << 22

// fillRows builds block i of a matrix from its decoded chunks (in order
// of their column) without sorting: it counts each chunk's elements of
// every row from the selections, gives each chunk's part of each row its
// place (rows in order, a row's chunks in column order) and fills every
// chunk's indices and values into their final places, the chunks in
// parallel. It reports false when the chunks are not of a matrix whose
// selections list their positions row-major (point selections), or
// need too many cursors.
func (s *datasetSource) fillRows(i int, chunks []*h5core.SparseChunk, values bool) (*block, bool, error) {
	if len(s.shape) != 2 {
		return nil, false, nil
	}
	for _, c := range chunks {
		if c.Selection.Kind == h5core.SelectPoints {
			return nil, false, nil
		}
	}
	rows, cols := chunks[0].Limit()[0], s.shape[1]
	if rows*uint64(len(chunks)) > maxRowCursors {
		return nil, false, nil
	}
	// at[k*rows+r] is where chunk k's next element of row r goes
	at := make([]uint64, uint64(len(chunks))*rows)
	for k, c := range chunks {
		c.Selection.CountRows(c.Limit(), 0, at[uint64(k)*rows:uint64(k+1)*rows])
	}
	var n uint64
	for r := range rows {
		for k := range chunks {
			p := &at[uint64(k)*rows+r]
			*p, n = n, n+*p
		}
	}
	if n != s.nnz[i] {
		return nil, true, fmt.Errorf("sparsecoo: %s: chunk row %d holds %d elements, its selections count %d", s.ds.Path, i, n, s.nnz[i])
	}
	all := make([]uint64, n)
	es := uint64(s.es)
	var vals []byte
	if values {
		vals = make([]byte, n*es)
	}
	t := s.ds.Type
	packedLE := t.IsPackedLE()
	err := parallel(len(chunks), func(k int) error {
		c := chunks[k]
		next := at[uint64(k)*rows : uint64(k+1)*rows]
		r0 := c.Offset[0]
		return c.Runs(func(start []uint64, m uint64, v []byte) error {
			r := start[0] - r0
			p := next[r]
			if p+m > n {
				return fmt.Errorf("sparsecoo: %s: chunk %v: runs exceed the elements its selection counts", s.ds.Path, c.Offset)
			}
			next[r] += m
			x := start[0]*cols + start[1]
			idx := all[p : p+m]
			for j := range idx {
				idx[j] = x + uint64(j)
			}
			if values {
				if packedLE {
					copy(vals[p*es:], v)
				} else { // converted in place: appended within capacity
					t.AppendPackedLE(vals[p*es:p*es], v, int(m))
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, true, err
	}
	b := &block{vals: vals}
	b.starts, b.ends = runsOf(all, cols)
	return b, true, nil
}
