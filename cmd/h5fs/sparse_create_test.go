package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// h5pyEqual has h5py (libhdf5 1.10) compare two datasets of file
// element by element, listing the root group on the way (libhdf5 1.10
// cannot open the sparse datasets themselves).
func h5pyEqual(t *testing.T, file, a, b string) {
	t.Helper()
	script := `import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
names = list(f.keys())
x, y = f[sys.argv[2]], f[sys.argv[3]]
assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
assert np.array_equal(x[()], y[()]), (x[()], y[()])
print(len(names), y.chunks, y.compression)
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, file, a, b).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py comparing %s and %s: %v\n%s", a, b, err, out)
	}
	t.Logf("h5py: %s", out)
}

// TestSparsifyDensifyCreate makes a new sparse dataset from a dense one
// (chunk shape and section filters given), checks it through the
// independent decoder, `h5fs dump --sparse` and its coo.csv view, turns it back into a
// new dense dataset, and has h5py find that equal to the source.
func TestSparsifyDensifyCreate(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"plain", []string{"--chunk", "3x4"}},
		{"filtered", []string{"--chunk", "2x5", "--filter-selection", "deflate=6", "--filter-data", "shuffle,deflate=4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, _ := sparseFixture(t, "sparse_2d_int32_fa.h5", "/int32_fa")
			want := map[string]float64{} // the nonzero elements (zero is the fill value)
			for k, v := range denseInt32(t, path, "/dense_ref") {
				if v != 0 {
					want[k] = float64(v)
				}
			}
			if err := runSparsify(append([]string{path, "/dense_ref", "/made"}, c.args...), io.Discard); err != nil {
				t.Fatal(err)
			}
			checkDecoded(t, path, "/made", "<i4", want)
			var dump bytes.Buffer
			if err := runDump([]string{"--sparse", path, "/made"}, &dump); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(dump.String(), fmt.Sprint(len(want))) {
				t.Errorf("h5fs dump --sparse does not count %d elements:\n%s", len(want), dump.String())
			}
			var coo bytes.Buffer // the mount's COO view, through fsnode and arrowexport
			if err := runCat([]string{path, "made/coo.csv"}, &coo); err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, l := range strings.Split(strings.TrimSpace(coo.String()), "\n")[1:] {
				var r, c int
				var v float64
				if _, err := fmt.Sscanf(l, "%d,%d,%g", &r, &c, &v); err != nil {
					t.Fatalf("coo.csv line %q: %v", l, err)
				}
				got[fmt.Sprintf("%v,%v", r, c)] = v
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("coo.csv holds %v, want %v", got, want)
			}
			if err := runDensify([]string{path, "/made", "/back"}, io.Discard); err != nil {
				t.Fatal(err)
			}
			h5pyEqual(t, path, "/dense_ref", "/back")
			if err := runDensify([]string{"--filter", "shuffle,deflate=4", path, "/made", "/back_gz"}, io.Discard); err != nil {
				t.Fatal(err)
			}
			h5pyEqual(t, path, "/dense_ref", "/back_gz")
		})
	}
}

// denseInt32 returns every element of a 2-D int32 dataset ("r,c" ->
// value).
func denseInt32(t *testing.T, path, name string) map[string]int32 {
	t.Helper()
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := openDataset(f, name)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, ds.Size())
	if _, err := ds.ReadAt(raw, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	shape := ds.Shape()
	out := map[string]int32{}
	for i := uint64(0); i < shape[0]*shape[1]; i++ {
		out[fmt.Sprintf("%v,%v", i/shape[1], i%shape[1])] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// TestImportMTXCreate builds a new sparse dataset from a Matrix Market
// file, in a file h5py wrote (symbol-table groups), and refuses what
// cannot be created, changing nothing.
func TestImportMTXCreate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.h5")
	if out, err := exec.Command("/usr/bin/python3", "-c", `import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_group("g")["x"] = np.arange(6.0)`, file).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mtx := filepath.Join(dir, "m.mtx")
	if err := os.WriteFile(mtx, []byte("%%MatrixMarket matrix coordinate real general\n% c\n4 5 3\n1 1 1.5\n4 5 -2\n2 3 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runImportMTX([]string{file, "/g/m", mtx}, io.Discard); err == nil || !strings.Contains(err.Error(), "--chunk") {
		t.Errorf("creating without --chunk: %v", err)
	}
	if err := runImportMTX([]string{file, "/g/m", mtx, "--chunk", "2x2", "--filter-data", "nope"}, io.Discard); err == nil {
		t.Error("an unknown filter was accepted")
	}
	if err := runImportMTX([]string{file, "/g/m", mtx, "--chunk", "2x2", "--filter-data", "deflate=5"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"0,0": 1.5, "3,4": -2, "1,2": 7}
	checkDecoded(t, file, "/g/m", "<f8", want)
	if err := runImportMTX([]string{file, "/g/m", mtx, "--chunk", "2x2"}, io.Discard); err == nil {
		t.Error("--chunk on an existing dataset was accepted")
	}
	if err := runDensify([]string{file, "/g/m", "/g/x"}, io.Discard); !errors.Is(err, h5core.ErrExists) {
		t.Errorf("densify onto an existing name: %v", err)
	}
	if err := runDensify([]string{file, "/g/m", "/g/dense"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", "-c", `import sys, h5py
f = h5py.File(sys.argv[1], "r")
print(sorted(f["g"].keys()), f["g/dense"][()].tolist(), f["g/x"][()].tolist())`, file).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	wantOut := "['dense', 'm', 'x'] [[1.5, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 7.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -2.0]] [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]"
	if strings.TrimSpace(string(out)) != wantOut {
		t.Errorf("h5py reads\n%s\nwant\n%s", out, wantOut)
	}
}
