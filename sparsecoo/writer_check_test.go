package sparsecoo

import (
	"testing"

	"github.com/h5fs/h5fs/internal/sparsetest"
)

// TestWrittenFile round-trips a small matrix through the test writer:
// COO order, CSR row pointers and values.
func TestWrittenFile(t *testing.T) {
	want := sparsetest.RandomMatrix(57, 300, 0.1, 7)
	m := writeAndOpen(t, want, 8)
	if m.NNZ() != uint64(len(want.Data)) {
		t.Fatalf("nnz %d, want %d", m.NNZ(), len(want.Data))
	}
	for r := range want.Indptr {
		if p, err := m.RowPtr(uint64(r)); err != nil || int64(p) != want.Indptr[r] {
			t.Fatalf("indptr[%d] = %d, %v; want %d", r, p, err, want.Indptr[r])
		}
	}
	k := 0
	err := m.Each(func(c []uint64, v []byte) error {
		if int64(c[1]) != want.Indices[k] || value("<f8", v) != want.Data[k] {
			t.Fatalf("element %d: %v %v, want col %d %v", k, c, value("<f8", v), want.Indices[k], want.Data[k])
		}
		k++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
