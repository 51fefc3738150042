package sparsecoo

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// readModel reads a sparse dataset's extent and elements with h5core.
func readModel(path, name, dtype string) (model, error) {
	f, err := h5core.Open(path)
	if err != nil {
		return model{}, err
	}
	defer f.Close()
	o, err := f.Open(name)
	if err != nil {
		return model{}, err
	}
	ds, err := o.Dataset()
	if err != nil {
		return model{}, err
	}
	mx, err := Open(ds)
	if err != nil {
		return model{}, err
	}
	m := model{shape: slices.Clone(ds.Shape()), elems: map[string]float64{}}
	err = mx.Each(func(c []uint64, v []byte) error {
		m.elems[key(c)] = value(dtype, v)
		return nil
	})
	return m, err
}

func sameModel(a, b model) bool {
	return slices.Equal(a.shape, b.shape) && maps.Equal(a.elems, b.elems)
}

// sparseCommit is the transaction the crash test replays: defines that
// grow the extent, overwrites and erases (one chunk emptied) in one
// Writer commit.
func sparseCommit(rw *h5core.RW, name string, old model, dtype string) error {
	w, err := NewWriter(rw, name)
	if err != nil {
		return err
	}
	keys := slices.Sorted(maps.Keys(old.elems))
	for i, k := range keys {
		c := parseKey(k)
		if i%2 == 0 {
			if err := w.Erase(c); err != nil {
				return err
			}
		} else if err := w.Define(c, encodeValue(dtype, 99)); err != nil {
			return err
		}
	}
	grow := slices.Clone(old.shape)
	for i := range grow {
		grow[i] = min(grow[i]+3, w.max[i]) - 1
	}
	if err := w.Define(grow, encodeValue(dtype, 42)); err != nil {
		return err
	}
	return w.Commit()
}

// sparseCrashCases are the datasets TestWriterCrashReplay commits to:
// an extensible array growing and a filtered fixed array.
var sparseCrashCases = []struct{ file, name, dtype string }{
	{"sparse_2d_float64_ea.h5", "/float64_ea_unlim0", "<f8"},
	{"sparse_2d_int32_fa.h5", "/int32_fa_filtered", "<i4"},
}

// TestWriterCrashReplay records a Writer commit and replays every crash
// state: after h5core's recovery the dataset holds exactly the old or the
// new elements (read by h5core, and for each distinct file by the
// independent decoder), and before recovery libhdf5 still opens the
// file.
func TestWriterCrashReplay(t *testing.T) {
	for _, c := range sparseCrashCases {
		t.Run(c.name, func(t *testing.T) {
			if err := replaySparseCommit(t, c.file, c.name, c.dtype, &crashtest.Recorder{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWriterCrashReplayCatchesMissingSync replays the growing commit of
// the extensible array with the journal's fsyncs dropped from the
// record, as if the code forgot them: some crash state then loses the
// journal after in-place writes reached the file, a mix of old and new
// that recovery cannot undo, and the harness must find it.
func TestWriterCrashReplayCatchesMissingSync(t *testing.T) {
	c := sparseCrashCases[0]
	rec := &crashtest.Recorder{DropSync: func(name string) bool { return strings.HasSuffix(name, "-journal") }}
	err := replaySparseCommit(t, c.file, c.name, c.dtype, rec)
	if err == nil {
		t.Fatal("a commit whose journal is never fsynced passed the crash replay")
	}
	t.Logf("caught: %v", err)
}

// replaySparseCommit commits sparseCommit to a copy of the fixture file
// through rec and replays every crash state it recorded. It returns the
// first crash state that breaks the promise (after recovery the old or
// the new dataset, the same for h5core and the independent decoder;
// before recovery libhdf5 opens what it did before); setup failures are
// fatal.
func replaySparseCommit(t *testing.T, file, name, dtype string, rec *crashtest.Recorder) error {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+".orig", b, 0o644); err != nil {
		t.Fatal(err)
	}
	oldM, err := readModel(p, name, dtype)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := crashtest.Take(p, h5core.JournalPath(p))
	if err != nil {
		t.Fatal(err)
	}
	rw, err := h5core.OpenRWWith(p, h5core.RWOptions{FS: rec})
	if err != nil {
		t.Fatal(err)
	}
	if err := sparseCommit(rw, name, oldM, dtype); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	newM, err := readModel(p, name, dtype)
	if err != nil {
		t.Fatal(err)
	}
	if sameModel(oldM, newM) {
		t.Fatal("the commit changed nothing")
	}
	ops := rec.Ops()
	crashes, err := crashtest.Replay(snap, ops, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// after recovery: the old or the new dataset, read by h5core; the
	// independent decoder reads a few of each kind
	decoded := map[bool]int{}
	err = sparsetest.CheckCrashes(crashes, p, p+".orig", func(_ crashtest.Crash, cp string) error {
		got, err := readModel(cp, name, dtype)
		if err != nil {
			return fmt.Errorf("after recovery: %v", err)
		}
		isNew := sameModel(got, newM)
		if !isNew && !sameModel(got, oldM) {
			return fmt.Errorf("after recovery neither the old nor the new dataset (%d elements, shape %v)", len(got.elems), got.shape)
		}
		if decoded[isNew] < 2 {
			decoded[isNew]++
			dec, err := verifyDecoder(cp, name, dtype)
			if err != nil {
				return err
			}
			if !sameModel(dec, got) {
				return fmt.Errorf("the independent decoder reads %d elements, h5core %d", len(dec.elems), len(got.elems))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	t.Logf("%d operations, %d crash states, recovered to old/new: decoded %v", len(ops), len(crashes), decoded)
	return nil
}

// verifyDecoder reads a sparse dataset with the independent decoder.
func verifyDecoder(path, name, dtype string) (model, error) {
	dec, err := sparsetest.Decode(path, name, dtype)
	if err != nil {
		return model{}, err
	}
	m := model{shape: dec.Shape, elems: map[string]float64{}}
	for _, row := range dec.COO {
		c := make([]uint64, len(row)-1)
		for i := range c {
			c[i] = uint64(row[i])
		}
		m.elems[key(c)] = row[len(row)-1]
	}
	return m, nil
}
