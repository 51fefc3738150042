package h5core_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// copySparseFixture copies a committed sparse fixture (written by an
// independent writer) to a temporary file.
func copySparseFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "sparsecoo", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sparseElements reads every defined element of a sparse dataset with
// h5core: global row-major linear index -> value byte.
func sparseElements(t *testing.T, ds *h5core.Dataset) map[uint64]byte {
	t.Helper()
	chunks, err := ds.SparseChunks()
	if err != nil {
		t.Fatal(err)
	}
	shape := ds.Shape()
	out := map[uint64]byte{}
	for _, c := range chunks {
		sc, err := ds.ReadSparseChunk(c, true)
		if err != nil {
			t.Fatal(err)
		}
		err = sc.Runs(func(start []uint64, n uint64, vals []byte) error {
			var base uint64
			for i, v := range start {
				base = base*shape[i] + v
			}
			for k := uint64(0); k < n; k++ {
				out[base+k] = vals[k]
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestWriteSparseChunkSingle rewrites and erases single-chunk sparse
// datasets of an independently written file (unfiltered, filtered,
// empty, full) and reads the result back with h5core, with the
// independent decoder and with h5py (every other object still opens).
func TestWriteSparseChunkSingle(t *testing.T) {
	path := copySparseFixture(t, "sparse_2d_uint8_single.h5")
	orig := path + ".orig.h5"
	if b, err := os.ReadFile(path); err != nil || os.WriteFile(orig, b, 0o644) != nil {
		t.Fatal("copy", err)
	}
	cases := []struct {
		ds  string
		idx []uint64
	}{
		{"/uint8_single_points", []uint64{0, 1, 2, 7, 20, 83}},
		{"/uint8_single_filtered", []uint64{5, 6, 7, 8, 11, 12, 13, 14, 40}},
		{"/uint8_single_empty", []uint64{3, 4, 5}},
		{"/uint8_single_dense", nil},
	}
	rw, err := h5core.OpenRW(path)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		vals := make([]byte, len(c.idx))
		for i, p := range c.idx {
			vals[i] = byte(p + 100)
		}
		if err := tx.WriteSparseChunk(c.ds, []uint64{0, 0}, c.idx, vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.WriteSparseChunk("/uint8_single_points", []uint64{0, 0}, []uint64{84}, []byte{1}); err == nil {
		t.Error("position outside the extent: no error")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range cases {
		o, err := f.Open(c.ds)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := o.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		got := sparseElements(t, ds)
		dec, err := sparsetest.Decode(path, c.ds, "u1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.idx) || len(dec.COO) != len(c.idx) {
			t.Fatalf("%s: h5core reads %d elements, the independent decoder %d, wrote %d", c.ds, len(got), len(dec.COO), len(c.idx))
		}
		cols := ds.Shape()[1]
		for i, p := range c.idx {
			row := dec.COO[i]
			if got[p] != byte(p+100) || uint64(row[0])*cols+uint64(row[1]) != p || row[2] != float64(byte(p+100)) {
				t.Fatalf("%s: element %d: h5core %d, decoder %v", c.ds, p, got[p], row)
			}
		}
	}
	listings, err := sparsetest.Libhdf5Listing(orig, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sparsetest.SameListing(listings[orig], listings[path]); err != nil {
		t.Error(err)
	}
}
