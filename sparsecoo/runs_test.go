package sparsecoo

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/h5fs/h5fs/internal/sparsetest"
)

// TestStepper checks the row stepping of stepper against division,
// across empty rows and far jumps, and the division of other ranks.
func TestStepper(t *testing.T) {
	for _, tc := range []struct {
		shape []uint64
		idx   []uint64
	}{
		{[]uint64{1 << 62, 1000}, []uint64{5, 999, 1000, 1001, 2500, 4999, 5000, 1 << 40, 1<<40 + 3, 1<<62 + 7}},
		{[]uint64{200, 1}, []uint64{0, 1, 2, 7, 8, 100}},
		{[]uint64{20, 7}, []uint64{13, 14, 20, 21, 22, 70}},
		{[]uint64{5, 4, 3}, []uint64{0, 2, 3, 11, 12, 59}},
		{[]uint64{9}, []uint64{0, 4, 8}},
	} {
		s := newStepper(tc.shape)
		want := make([]uint64, len(tc.shape))
		for _, x := range tc.idx {
			coordsOf(tc.shape, x, want)
			if got := s.coords(x); !slices.Equal(got, want) {
				t.Errorf("shape %v index %d: %v, want %v", tc.shape, x, got, want)
			}
		}
	}
}

// TestRowPtrFromRuns checks the row pointers found in decoded blocks
// (as for matrices of more rows than Open counts) against those Open
// counts, for every two-dimensional sparse fixture.
func TestRowPtrFromRuns(t *testing.T) {
	for _, ef := range loadExpected(t) {
		for _, e := range ef.Datasets {
			if e.Kind != "sparse" || len(e.Shape) != 2 {
				continue
			}
			m, err := Open(openDataset(t, ef.File, e.Name))
			if err != nil {
				t.Fatal(err)
			}
			counted := m.rowPtr
			m.rowPtr = nil
			for r := range uint64(len(counted)) {
				if got, err := m.RowPtr(r); err != nil || got != counted[r] {
					t.Errorf("%s %s row %d: %d, %v; want %d", ef.File, e.Name, r, got, err, counted[r])
				}
			}
		}
	}
}

// TestPutCoords checks every coordinate PutCoords writes, for windows
// starting anywhere (inside runs and blocks, across them) and of every
// length from one element to the whole, against Read's linear indices,
// for every sparse fixture and a matrix with empty rows, far jumps and
// chunk rows of several blocks' worth of runs; rows from the row pointers
// Open counts and, without them, from the blocks (as for matrices of more
// rows than Open counts).
func TestPutCoords(t *testing.T) {
	var ms []*Matrix
	var names []string
	for _, ef := range loadExpected(t) {
		for _, e := range ef.Datasets {
			if e.Kind != "sparse" {
				continue
			}
			m, err := Open(openDataset(t, ef.File, e.Name))
			if err != nil {
				t.Fatal(err)
			}
			ms, names = append(ms, m), append(names, ef.File+" "+e.Name)
		}
	}
	src := sparsetest.RandomMatrix(3000, 70, 0.05, 7)
	rm := &sparsetest.Matrix{Rows: src.Rows, Cols: src.Cols, Indptr: []int64{0}}
	for r := range 3000 {
		if r < 1000 || r >= 2900 { // rows 1000-2899 empty: far jumps
			rm.Indices = append(rm.Indices, src.Indices[src.Indptr[r]:src.Indptr[r+1]]...)
			rm.Data = append(rm.Data, src.Data[src.Indptr[r]:src.Indptr[r+1]]...)
		}
		rm.Indptr = append(rm.Indptr, int64(len(rm.Indices)))
	}
	m := writeAndOpen(t, rm, 256)
	if m.NNZ() != uint64(len(rm.Indices)) {
		t.Fatalf("random matrix: %d defined elements, want %d", m.NNZ(), len(rm.Indices))
	}
	ms, names = append(ms, m), append(names, "random")
	for mi, m := range ms {
		nnz := m.NNZ()
		idx := make([]uint64, nnz)
		if err := m.Read(0, idx, nil); err != nil {
			t.Fatal(names[mi], err)
		}
		rank := len(m.Shape())
		want := make([]uint64, rank*int(nnz)) // element-major
		for e, x := range idx {
			m.Coords(x, want[e*rank:(e+1)*rank])
		}
		lens := []uint64{1, 2, 3, 7, 64, 1000, nnz}
		counted := m.rowPtr
		for dim := range rank + 1 {
			if dim == rank { // rows again, from the blocks
				if counted == nil {
					break
				}
				m.rowPtr, dim = nil, 0
			}
			for _, n := range lens {
				for start := uint64(0); start+n <= nnz; start += max(1, n/3+1) {
					dst := make([]byte, 8*n)
					if err := m.PutCoords(start, dim, dst); err != nil {
						t.Fatalf("%s: dim %d [%d, %d): %v", names[mi], dim, start, start+n, err)
					}
					for j := range n {
						if got, w := binary.LittleEndian.Uint64(dst[8*j:]), want[int(start+j)*rank+dim]; got != w {
							t.Fatalf("%s: dim %d [%d, %d): element %d is %d, want %d", names[mi], dim, start, start+n, start+j, got, w)
						}
					}
				}
			}
		}
	}
}
