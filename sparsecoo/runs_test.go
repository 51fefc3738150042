package sparsecoo

import (
	"slices"
	"testing"
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
