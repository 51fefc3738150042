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
	path := filepath.Join(t.TempDir(), "random.h5")
	if err := sparsetest.WriteFile(path, sparsetest.RandomMatrix(2000, 300, 0.1, 3), 100); err != nil {
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

// TestKeptSelections checks the selections Open keeps for the first
// decode of each chunk row: every row kept within the budget, their
// memory given back as the rows are read, by a matrix collected unread,
// and nothing kept over the budget.
func TestKeptSelections(t *testing.T) {
	base := keptTotal.Load()
	m := openRandom(t)
	kept := m.src.(*datasetSource).kept
	if held := keptTotal.Load() - base; held <= 0 {
		t.Fatalf("Open keeps %d bytes", held)
	}
	for i, r := range kept.rows {
		if r == nil {
			t.Fatalf("chunk row %d not kept", i)
		}
	}
	if err := m.PutCoords(0, 1, make([]byte, 8*m.NNZ())); err != nil {
		t.Fatal(err)
	}
	if held := keptTotal.Load() - base; held != 0 {
		t.Errorf("%d bytes still kept after every row was read", held)
	}

	openRandom(t) // unreachable at once
	for deadline := time.Now().Add(10 * time.Second); keptTotal.Load() != base; {
		if time.Now().After(deadline) {
			t.Fatalf("a collected matrix still keeps %d bytes", keptTotal.Load()-base)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}

	keptTotal.Add(keptBudget)
	m = openRandom(t)
	keptTotal.Add(-keptBudget)
	for i, r := range m.src.(*datasetSource).kept.rows {
		if r != nil {
			t.Fatalf("chunk row %d kept over the budget", i)
		}
	}
	if err := m.PutCoords(0, 1, make([]byte, 8*m.NNZ())); err != nil {
		t.Fatal(err)
	}
	if keptTotal.Load() != base {
		t.Errorf("kept memory %d after reading a matrix that kept nothing, want %d", keptTotal.Load(), base)
	}
}
