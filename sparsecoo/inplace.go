package sparsecoo

import (
	"sort"
	"sync"

	"github.com/h5fs/h5fs/h5core"
)

// markRuns is how many runs of a block held in place lie between two of
// its marks.
const markRuns = 64

// inPlace is the runs of a block of one chunk of a matrix, read in place
// from the chunk's encoded selection: PutCoords writes coordinates
// straight from them, and the runs are listed (block.listed) only for
// the other readers.
type inPlace struct {
	runs h5core.Runs2
	// marks[j] is the number of elements of runs [0, j*markRuns): where
	// a read from element e on starts looking
	marks []uint64
	n     uint64 // elements of all the runs
	cols  uint64 // the matrix's
	list  sync.Once
}

// inPlaceBlock returns the block of the runs r of one chunk of a matrix
// of cols columns and its packed values vals (nil when not read).
func inPlaceBlock(r h5core.Runs2, cols uint64, vals []byte) *block {
	e := &inPlace{runs: r, cols: cols, marks: make([]uint64, 0, r.Len()/markRuns+1)}
	for k := range r.Len() {
		if k%markRuns == 0 {
			e.marks = append(e.marks, e.n)
		}
		_, _, c := r.At(k)
		e.n += c
	}
	return &block{enc: e, vals: vals}
}

// put writes coordinate dim (0 row, 1 column) of the block's elements
// from element off on into dst, as little-endian int64, until dst is full
// or the block ends, and returns how many it wrote.
func (e *inPlace) put(off uint64, dim int, dst []byte) uint64 {
	j := sort.Search(len(e.marks), func(j int) bool { return e.marks[j] > off }) - 1
	if j < 0 {
		return 0
	}
	skip := off - e.marks[j]
	p := 0
	for k, n := j*markRuns, e.runs.Len(); k < n && p+8 <= len(dst); k++ {
		row, col, c := e.runs.At(k)
		if c <= skip {
			skip -= c
			continue
		}
		c = min(c-skip, uint64(len(dst)-p)/8)
		if dim == 0 {
			putRun(dst, p, c, row, 0)
		} else {
			putRun(dst, p, c, col+skip, 1)
		}
		p += 8 * int(c)
		skip = 0
	}
	return uint64(p / 8)
}

// listed makes sure the block's runs are listed in starts and ends (they
// are unless the block holds them in place), for the readers other than
// PutCoords.
func (b *block) listed() {
	e := b.enc
	if e == nil {
		return
	}
	e.list.Do(func() { b.starts, b.ends = e.runs.AppendRuns(nil, nil, e.cols) })
}
