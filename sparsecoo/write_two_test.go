package sparsecoo

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestTwoWriters interleaves two Writers of one dataset (an extensible
// array, unlimited along dimension 0): each collects defines, erases and
// extent growth while the other commits, over several rounds. The
// extent ends as the largest either asked for, every element holds the
// value of the last commit that touched it, and h5core and the
// independent decoder read the file alike.
func TestTwoWriters(t *testing.T) {
	const file, name, dtype = "sparse_2d_float64_ea.h5", "/float64_ea_unlim0", "<f8"
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := readModel(path, name, dtype)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := h5core.OpenRW(path)
	if err != nil {
		t.Fatal(err)
	}
	var ws [2]*Writer
	for i := range ws {
		if ws[i], err = NewWriter(rw, name); err != nil {
			t.Fatal(err)
		}
	}
	// pending[i]: writer i's edits not yet committed (nil value: erase)
	type change struct {
		p []uint64
		v *float64
	}
	var pending [2][]change
	rng := rand.New(rand.NewPCG(9, 9))
	rows := m.shape[0]
	for round := range 6 {
		for i, w := range ws {
			for range 8 {
				p := []uint64{rng.Uint64N(rows + 4), rng.Uint64N(m.shape[1])}
				if rng.IntN(4) == 0 {
					if err := w.Erase(p); err != nil {
						t.Fatal(err)
					}
					pending[i] = append(pending[i], change{p, nil})
					continue
				}
				v := float64(100*round + 10*i + rng.IntN(10))
				if err := w.Define(p, encodeValue(dtype, v)); err != nil {
					t.Fatal(err)
				}
				pending[i] = append(pending[i], change{p, &v})
			}
			rows += 3 // the next writer reaches further
		}
		// commit in turn, the later writer first every other round
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			if err := ws[i].Commit(); err != nil {
				t.Fatalf("round %d: writer %d: %v", round, i, err)
			}
			for _, c := range pending[i] {
				if c.v == nil {
					delete(m.elems, key(c.p))
					continue
				}
				m.elems[key(c.p)] = *c.v
				m.shape[0] = max(m.shape[0], c.p[0]+1)
			}
			pending[i] = nil
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	verify(t, path, name, dtype, m, true)
}
