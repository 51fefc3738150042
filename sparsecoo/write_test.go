package sparsecoo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// encodeValue packs v as one element of the fixture dtype.
func encodeValue(dtype string, v float64) []byte {
	switch dtype {
	case "|u1":
		return []byte{byte(v)}
	case "<i4":
		return binary.LittleEndian.AppendUint32(nil, uint32(int32(v)))
	case "<f8":
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
	}
	panic("dtype " + dtype)
}

// model is the expected content of a sparse dataset: its extent and its
// defined elements by coordinates.
type model struct {
	shape []uint64
	elems map[string]float64
}

func key(c []uint64) string { return fmt.Sprint(c) }

// TestWriterFixtures defines, overwrites and erases elements of the
// independently written fixture datasets in two commits (the second
// erases a whole chunk), growing the extent where the maximum allows,
// and reads every result back with Matrix and with the independent
// decoder.
func TestWriterFixtures(t *testing.T) { writeFixtures(t, "testdata") }

// TestWriterSharedFixtures does the same to copies of the shared corpus's
// sparse files (../shared/fixtures/sparse beside the repository), which
// the repository's testdata copied once.
func TestWriterSharedFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "fixtures", "sparse")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no shared corpus beside the repository (%v)", err)
	}
	writeFixtures(t, dir)
}

// writeFixtures runs checkWriter on every sparse dataset of the fixture
// directory dir.
func writeFixtures(t *testing.T, dir string) {
	n := 0
	for _, ef := range loadExpectedIn(t, dir) {
		for _, ed := range ef.Datasets {
			if ed.Kind != "sparse" {
				continue
			}
			n++
			t.Run(ef.File+"/"+ed.Name, func(t *testing.T) { checkWriter(t, filepath.Join(dir, ef.File), ed) })
		}
	}
	if n == 0 {
		t.Fatal("no fixture dataset to write")
	}
}

// checkWriter copies the fixture file src to a temporary directory and
// writes to its dataset ed there.
func checkWriter(t *testing.T, src string, ed sparsetest.ExpectedDataset) {
	file := filepath.Base(src)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(t.TempDir(), "orig.h5")
	if err := os.WriteFile(orig, b, 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() {
		listings, err := sparsetest.Libhdf5Listing(orig, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := sparsetest.SameListing(listings[orig], listings[path]); err != nil {
			t.Error(err)
		}
	}()
	name := "/" + ed.Name
	m := model{shape: slices.Clone(ed.Shape), elems: map[string]float64{}}
	for _, row := range ed.COO {
		c := make([]uint64, len(row)-1)
		for i := range c {
			c[i] = uint64(row[i])
		}
		m.elems[key(c)] = row[len(row)-1]
	}
	rng := rand.New(rand.NewPCG(uint64(len(ed.Name)), uint64(ed.NNZ)))
	rank := len(ed.Shape)
	randomPoint := func(limit []uint64) []uint64 {
		p := make([]uint64, rank)
		for i := range p {
			p[i] = rng.Uint64N(limit[i])
		}
		return p
	}

	// commit 1: defines (new and overwriting), erases, growth
	rw, err := h5core.OpenRW(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(rw, name)
	if err != nil {
		t.Fatal(err)
	}
	define := func(p []uint64, v float64) {
		if err := w.Define(p, encodeValue(ed.Dtype, v)); err != nil {
			t.Fatal(err)
		}
		m.elems[key(p)] = v
		for i, c := range p {
			m.shape[i] = max(m.shape[i], c+1)
		}
	}
	erase := func(p []uint64) {
		if err := w.Erase(p); err != nil {
			t.Fatal(err)
		}
		delete(m.elems, key(p))
	}
	for i := range 12 {
		define(randomPoint(ed.Shape), float64(1+rng.IntN(200)))
		if i%3 == 0 && len(ed.COO) > 0 {
			row := ed.COO[rng.IntN(len(ed.COO))]
			p := make([]uint64, rank)
			for k := range p {
				p[k] = uint64(row[k])
			}
			if i%2 == 0 {
				erase(p)
			} else {
				define(p, float64(1+rng.IntN(200)))
			}
		}
	}
	erase(randomPoint(ed.Shape))
	maxShape := w.max
	grown := false
	for d := range rank {
		if maxShape[d] > ed.Shape[d] {
			p := randomPoint(ed.Shape)
			p[d] = min(maxShape[d]-1, ed.Shape[d]+ed.ChunkShape[d]+1)
			define(p, 7)
			grown = true
		}
	}
	outside := slices.Clone(maxShape)
	for i := range outside {
		if outside[i] == h5core.Unlimited {
			outside[i] = 0
		}
	}
	if slices.Contains(maxShape, h5core.Unlimited) {
		outside = nil
	}
	if outside != nil {
		if err := w.Define(outside, encodeValue(ed.Dtype, 1)); !errors.Is(err, ErrOutside) {
			t.Fatalf("define at the maximum extent %v: %v", outside, err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	verify(t, path, name, ed.Dtype, m, false)
	t.Logf("grown: %v, %d elements", grown, len(m.elems))

	// commit 2: erase every element of one chunk
	rw, err = h5core.OpenRW(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if w, err = NewWriter(rw, name); err != nil {
		t.Fatal(err)
	}
	var victim []uint64
	for k := range m.elems {
		c := parseKey(k)
		s := make([]uint64, rank)
		for i := range c {
			s[i] = c[i] / ed.ChunkShape[i]
		}
		if victim == nil || slices.Compare(s, victim) < 0 {
			victim = s
		}
	}
	if victim == nil {
		return
	}
	for k := range m.elems {
		c := parseKey(k)
		in := true
		for i := range c {
			in = in && c[i]/ed.ChunkShape[i] == victim[i]
		}
		if in {
			erase(c)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	got := verify(t, path, name, ed.Dtype, m, true)
	for _, c := range got.Chunks {
		if slices.Equal(c.Scaled, victim) {
			t.Errorf("chunk %v erased entirely is still stored (%d elements)", victim, c.N)
		}
	}
}

func parseKey(k string) []uint64 {
	var out []uint64
	var v uint64
	digits := false
	for _, r := range k {
		if r >= '0' && r <= '9' {
			v, digits = v*10+uint64(r-'0'), true
			continue
		}
		if digits {
			out = append(out, v)
		}
		v, digits = 0, false
	}
	return out
}

// verify reads the dataset with Matrix and, if independent is set, with
// the independent decoder, and compares what they read with the model.
func verify(t *testing.T, path, name, dtype string, want model, independent bool) *sparsetest.Decoded {
	t.Helper()
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := f.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Shape(), want.shape) {
		t.Fatalf("shape %v, want %v", ds.Shape(), want.shape)
	}
	mx, err := Open(ds)
	if err != nil {
		t.Fatal(err)
	}
	if mx.NNZ() != uint64(len(want.elems)) {
		t.Errorf("h5fs reads %d elements, want %d", mx.NNZ(), len(want.elems))
	}
	err = mx.Each(func(c []uint64, v []byte) error {
		if w, ok := want.elems[key(c)]; !ok || w != value(dtype, v) {
			return fmt.Errorf("h5fs reads %v = %v, want %v (defined %v)", c, value(dtype, v), w, ok)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !independent {
		return nil
	}
	dec, err := sparsetest.Decode(path, name, dtype)
	if err != nil {
		t.Fatal(err)
	}
	if len(dec.COO) != len(want.elems) {
		t.Errorf("the independent decoder reads %d elements, want %d", len(dec.COO), len(want.elems))
	}
	for _, row := range dec.COO {
		c := make([]uint64, len(row)-1)
		for i := range c {
			c[i] = uint64(row[i])
		}
		if w, ok := want.elems[key(c)]; !ok || w != row[len(row)-1] {
			t.Fatalf("the independent decoder reads %v = %v, want %v (defined %v)", c, row[len(row)-1], w, ok)
		}
	}
	return dec
}
