package fuse_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/internal/sparsetest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// readSparseExpected reads the .expected.json beside the sparse test file
// fn.
func readSparseExpected(t *testing.T, fn string) *sparsetest.Expected {
	t.Helper()
	exp, err := sparsetest.ReadExpected(strings.TrimSuffix(fn, ".h5") + ".expected.json")
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

// sparseScript rebuilds a mounted rank-2 sparse matrix with scipy twice —
// from matrix.mtx and from the CSR npy files — and prints both as sorted
// COO triples, with the row-major COO of coo.csv.
const sparseScript = `
import json, sys
import numpy as np, scipy.io, scipy.sparse
d = sys.argv[1]
shape = tuple(json.loads(sys.argv[2]))
def triples(m):
    m = scipy.sparse.coo_matrix(m)
    return sorted([int(r), int(c), v.item()] for r, c, v in zip(m.row, m.col, m.data))
mtx = scipy.io.mmread(d + "/matrix.mtx")
csr = scipy.sparse.csr_matrix((np.load(d + "/csr/data.npy", mmap_mode="r"),
    np.load(d + "/csr/indices.npy", mmap_mode="r"), np.load(d + "/csr/indptr.npy", mmap_mode="r")), shape=shape)
coo = np.genfromtxt(d + "/coo.csv", delimiter=",", skip_header=1, ndmin=2)
print(json.dumps({"mtx": triples(mtx), "csr": triples(csr), "shape": list(mtx.shape),
    "coo": [[int(r), int(c), v.item()] for r, c, v in coo]}))
`

// TestSparseScipy mounts every sparse test file and has scipy rebuild each
// rank-2 sparse dataset from matrix.mtx and from csr/*.npy through the
// kernel; both must hold exactly the expected defined elements, as must
// coo.csv (in row-major order).
func TestSparseScipy(t *testing.T) {
	if _, err := exec.Command("/usr/bin/python3", "-c", "import scipy").CombinedOutput(); err != nil {
		t.Skip("Debian's python3-scipy is not installed (scripts/test.sh installs it)")
	}
	files, _ := filepath.Glob("../../sparsecoo/testdata/*.h5")
	if len(files) == 0 {
		t.Fatal("no sparse test files")
	}
	checked := 0
	for _, fn := range files {
		exp := readSparseExpected(t, fn)
		mp := fusetest.Mount(t, fn, nil)
		for _, ds := range exp.Datasets {
			if ds.Kind != "sparse" || len(ds.Shape) != 2 {
				continue
			}
			shape, _ := json.Marshal(ds.Shape)
			out, err := exec.Command("/usr/bin/python3", "-W", "ignore", "-c", sparseScript, filepath.Join(mp, ds.Name), string(shape)).Output()
			if err != nil {
				t.Errorf("%s %s: scipy: %v", fn, ds.Name, err)
				continue
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v: %s", ds.Name, err, out)
			}
			want, _ := json.Marshal(ds.COO)
			for _, k := range []string{"mtx", "csr", "coo"} {
				var g [][]float64
				json.Unmarshal(got[k], &g)
				if gb, _ := json.Marshal(g); string(gb) != string(want) {
					t.Errorf("%s %s: %s through the mount differs from the expected elements", filepath.Base(fn), ds.Name, k)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no rank-2 sparse dataset checked")
	}
	t.Logf("scipy rebuilt %d sparse matrices through the mount", checked)
}
