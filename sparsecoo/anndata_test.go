package sparsecoo

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// TestAnndataGroups writes the CSR arrays of a fixture as anndata-style
// csr_matrix and csc_matrix groups with h5py (int32 indices, unsorted
// columns in one row) and reads them back as the fixture's COO list.
func TestAnndataGroups(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import h5py, scipy").Run(); err != nil {
		t.Skip("/usr/bin/python3 has no h5py or scipy")
	}
	var e sparsetest.ExpectedDataset
	for _, ef := range loadExpected(t) {
		for _, d := range ef.Datasets {
			if d.Name == "int32_fa" {
				e = d
			}
		}
	}
	path := filepath.Join(t.TempDir(), "anndata.h5")
	script := `
import sys, json, h5py, numpy as np, scipy.sparse
exp = next(d for d in json.load(open(sys.argv[2]))["datasets"] if d["name"] == "int32_fa")
csr = exp["csr"]
m = scipy.sparse.csr_matrix((np.array(csr["data"], dtype="<i4"), np.array(csr["indices"], dtype="<i4"), np.array(csr["indptr"], dtype="<i8")), shape=exp["shape"])
with h5py.File(sys.argv[1], "w") as f:
    for name, x in (("csr", m), ("csc", m.tocsc())):
        g = f.create_group(name)
        g.attrs["encoding-type"] = name + "_matrix"
        g.attrs["shape"] = np.array(exp["shape"], dtype=np.int64)
        idx = x.indices.copy()
        if name == "csr":  # a row with its columns out of order
            r = int(np.argmax(np.diff(x.indptr) > 1)); a, b = x.indptr[r], x.indptr[r+1]
            idx[a:b] = idx[a:b][::-1]; data = x.data.copy(); data[a:b] = data[a:b][::-1]
        else:
            data = x.data
        g["data"], g["indices"], g["indptr"] = data, idx, x.indptr
    f.create_group("plain")
`
	if out, err := exec.Command("/usr/bin/python3", "-c", script, path, "testdata/sparse_2d_int32_fa.expected.json").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{"/csr", "/csc"} {
		o, err := f.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if !IsSparseGroup(o) {
			t.Fatalf("%s: not a sparse group", name)
		}
		m, err := OpenGroup(o)
		if err != nil {
			t.Fatal(err)
		}
		if m.NNZ() != e.NNZ {
			t.Fatalf("%s: nnz %d, want %d", name, m.NNZ(), e.NNZ)
		}
		k := 0
		err = m.Each(func(c []uint64, v []byte) error {
			w := e.COO[k]
			if float64(c[0]) != w[0] || float64(c[1]) != w[1] || value("<i4", v) != w[2] {
				t.Fatalf("%s: element %d = %v %v, want %v", name, k, c, value("<i4", v), w)
			}
			k++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for r, want := range e.CSR.Indptr {
			if p, err := m.RowPtr(uint64(r)); err != nil || int64(p) != want {
				t.Fatalf("%s: indptr[%d] = %d, %v; want %d", name, r, p, err, want)
			}
		}
	}
	if o, err := f.Open("/plain"); err != nil || IsSparseGroup(o) {
		t.Fatalf("plain group: %v", err)
	}
}
