package h5core_test

import (
	"encoding/binary"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// TestSparseEdgeChunksRefiltered grows a filtered sparse dataset whose
// layout has the "don't filter partial edge chunks" flag so that its
// partial edge chunks become whole: they were stored unfiltered, and
// SetExtent must store them through their pipelines, since readers
// (h5core and the independent decoder) tell an unfiltered chunk by the
// extent and the flag (sparse-structured-chunk-format.md §4).
func TestSparseEdgeChunksRefiltered(t *testing.T) {
	const name = "/float64_ea_unlim1" // 10 x 27, maximum 10 x unlimited, both sections filtered
	b, err := os.ReadFile(filepath.Join("..", "sparsecoo", "testdata", "sparse_2d_float64_ea.h5"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "edge.h5")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	before, chunk := edgeElements(t, path, name)
	if len(before) == 0 || 27%chunk[1] == 0 {
		t.Fatalf("fixture: %d elements, chunk %v: want elements and a partial edge chunk along dimension 1", len(before), chunk)
	}
	edgeCol := 27 / chunk[1]
	grown := (edgeCol + 1) * chunk[1] // the edge chunk whole, the next one partial
	if grown%chunk[1] == 0 {
		grown++
	}

	// set the flag, storing the edge chunks unfiltered as it asks
	edgeTx(t, path, func(tx *h5core.Tx) {
		if err := h5core.SetDontFilterPartial(tx, name); err != nil {
			t.Fatal(err)
		}
	})
	if got := edgeStoredPlain(t, path, name, edgeCol); !got {
		t.Fatal("with the flag set the partial edge chunks are stored filtered")
	}
	edgeTx(t, path, func(tx *h5core.Tx) {
		if err := tx.SetExtent(name, []uint64{10, grown}); err != nil {
			t.Fatal(err)
		}
	})
	if edgeStoredPlain(t, path, name, edgeCol) {
		t.Error("after the growth the former edge chunks are still stored unfiltered")
	}
	after, _ := edgeElements(t, path, name)
	if !maps.Equal(before, after) {
		t.Errorf("after the growth h5core reads %d elements, want the %d before", len(after), len(before))
	}
	dec, err := sparsetest.Decode(path, name, "<f8")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dec.Shape, []uint64{10, grown}) || len(dec.COO) != len(before) {
		t.Fatalf("the independent decoder reads shape %v and %d elements, want [10 %d] and %d", dec.Shape, len(dec.COO), grown, len(before))
	}
	for _, row := range dec.COO {
		if v, ok := before[[2]uint64{uint64(row[0]), uint64(row[1])}]; !ok || v != row[2] {
			t.Errorf("the independent decoder reads %v, want %v", row, v)
		}
	}
}

// edgeTx runs fn in one committed transaction on the file at path.
func edgeTx(t *testing.T, path string, fn func(tx *h5core.Tx)) {
	t.Helper()
	rw, err := h5core.OpenRW(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	fn(tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// edgeDataset opens dataset name of the file at path.
func edgeDataset(t *testing.T, path, name string) (*h5core.Dataset, func()) {
	t.Helper()
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	return ds, func() { f.Close() }
}

// edgeElements reads the elements of the rank-2 float64 sparse dataset
// and its chunk shape.
func edgeElements(t *testing.T, path, name string) (map[[2]uint64]float64, []uint64) {
	t.Helper()
	ds, done := edgeDataset(t, path, name)
	defer done()
	chunks, err := ds.SparseChunks()
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]uint64]float64{}
	for _, c := range chunks {
		sc, err := ds.ReadSparseChunk(c, true)
		if err != nil {
			t.Fatal(err)
		}
		err = sc.Runs(func(start []uint64, n uint64, vals []byte) error {
			for k := range n {
				out[[2]uint64{start[0], start[1] + k}] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*k:]))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out, slices.Clone(ds.ChunkShape())
}

// edgeStoredPlain reports whether every stored chunk in chunk column col
// is stored unfiltered (its stored size the sum of its unfiltered
// section sizes); it fails when there is none.
func edgeStoredPlain(t *testing.T, path, name string, col uint64) bool {
	t.Helper()
	ds, done := edgeDataset(t, path, name)
	defer done()
	chunks, err := ds.SparseChunks()
	if err != nil {
		t.Fatal(err)
	}
	n, plain := 0, true
	for _, c := range chunks {
		if c.Offset[1]/ds.ChunkShape()[1] != col {
			continue
		}
		n++
		var sum uint64
		for _, s := range c.Sections {
			sum += s.UnfilteredSize
		}
		plain = plain && sum == c.StoredSize
	}
	if n == 0 {
		t.Fatalf("no stored chunk in chunk column %d", col)
	}
	return plain
}
