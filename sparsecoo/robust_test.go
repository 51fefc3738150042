package sparsecoo

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestMutatedFixtures flips random bytes of every sparse fixture and reads
// every dataset in every way (chunk list, selections, COO, CSR row
// pointers, dense read): errors are fine, panics and hangs are not.
func TestMutatedFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.h5")
	rng := rand.New(rand.NewPCG(11, 12))
	iters := 150
	if testing.Short() {
		iters = 20
	}
	for _, fn := range files {
		orig, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		for range iters {
			b := bytes.Clone(orig)
			for range 1 + rng.IntN(4) {
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			}
			readAll(b)
		}
	}
}

// readAll opens b and exercises every dataset of its root group.
func readAll(b []byte) {
	f, err := h5core.NewFile(bytes.NewReader(b), int64(len(b)), "m.h5", h5core.Options{MaxChunkBytes: 1 << 22})
	if err != nil {
		return
	}
	defer f.Close()
	root, err := f.Root()
	if err != nil {
		return
	}
	links, err := root.Links()
	if err != nil {
		return
	}
	for _, l := range links {
		o, err := root.OpenLink(l)
		if err != nil {
			continue
		}
		ds, err := o.Dataset()
		if err != nil || !ds.IsSparse() {
			continue
		}
		ds.NNZ()
		if ds.Size() < 1<<20 {
			ds.ReadAt(make([]byte, ds.Size()), 0)
		}
		m, err := Open(ds)
		if err != nil {
			continue
		}
		m.Each(func([]uint64, []byte) error { return nil })
		if len(m.Shape()) == 2 {
			for r := uint64(0); r <= m.Shape()[0] && r < 100; r++ {
				m.RowPtr(r)
			}
		}
	}
}
