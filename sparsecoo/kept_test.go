package sparsecoo

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// openRandom writes a random 2000 x 300 matrix in chunks of 100 rows and
// opens it.
func openRandom(t *testing.T) *Matrix {
	t.Helper()
	return writeAndOpen(t, sparsetest.RandomMatrix(2000, 300, 0.1, 3), 100)
}

// writeAndOpen writes mat with the test writer in chunks of chunkRows rows
// and opens it; the file is closed when the test ends.
func writeAndOpen(t *testing.T, mat *sparsetest.Matrix, chunkRows uint64) *Matrix {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.h5")
	if err := sparsetest.WriteFile(path, mat, chunkRows); err != nil {
		t.Fatal(err)
	}
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	o, err := f.Open("/X")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(ds)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// keptBytes returns the memory a matrix keeps and whether every chunk row
// is kept.
func keptBytes(m *Matrix) (n int64, all bool) {
	k := m.src.(*datasetSource).kept
	k.mu.Lock()
	defer k.mu.Unlock()
	all = true
	for i, r := range k.rows {
		n += k.bytes[i]
		all = all && r != nil
	}
	return n, all
}

// TestKeptSelections checks the selections Open keeps for the first
// decode of each chunk row: every row kept within the budget, their
// memory given back as the rows are read, by a matrix collected unread,
// and nothing kept over the budget. (Other matrices of the process only
// give memory back meanwhile: the checks hold whatever they do.)
func TestKeptSelections(t *testing.T) {
	m := openRandom(t)
	if n, all := keptBytes(m); n <= 0 || !all || keptTotal.Load() < n {
		t.Fatalf("Open keeps %d bytes (all rows: %v), %d kept in all", n, all, keptTotal.Load())
	}
	if err := m.PutCoords(0, 1, make([]byte, 8*m.NNZ())); err != nil {
		t.Fatal(err)
	}
	if n, _ := keptBytes(m); n != 0 {
		t.Errorf("%d bytes still kept after every row was read", n)
	}

	m = openRandom(t)
	n, _ := keptBytes(m)
	before := keptTotal.Load()
	m = nil // collected unread
	for deadline := time.Now().Add(10 * time.Second); keptTotal.Load() > before-n; {
		if time.Now().After(deadline) {
			t.Fatalf("kept memory %d after collecting a matrix keeping %d of %d", keptTotal.Load(), n, before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}

	keptTotal.Add(keptBudget)
	m = openRandom(t)
	keptTotal.Add(-keptBudget)
	if n, _ := keptBytes(m); n != 0 {
		t.Fatalf("%d bytes kept over the budget", n)
	}
	for i, r := range m.src.(*datasetSource).kept.rows {
		if r != nil {
			t.Fatalf("chunk row %d kept over the budget", i)
		}
	}
	if err := m.PutCoords(0, 1, make([]byte, 8*m.NNZ())); err != nil {
		t.Fatal(err)
	}
}
