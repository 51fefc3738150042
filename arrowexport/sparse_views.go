package arrowexport

import (
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// sparseViewDoc describes each view of a sparse dataset.
var sparseViewDoc = map[string]string{
	"coo.csv":         "defined elements, one line each, row-major: coordinates then value",
	"coo.arrow":       "defined elements as an Arrow IPC file: int64 coordinates, value",
	"coo.parquet":     "defined elements as Parquet: int64 coordinates, value",
	"csr/indptr.npy":  "CSR row pointers, int64, rows+1",
	"csr/indices.npy": "CSR column indices, int64, nnz",
	"csr/data.npy":    "CSR values, nnz",
	"matrix.mtx":      "Matrix Market coordinate file, 1-based",
	"pattern.png":     "spy plot: black where an element is defined, one pixel per bin of rows and columns (at most 2048 per side)",
	"dense.npy":       "the whole array, fill value where undefined",
}

// SparseViewNames lists the view names of a sparse dataset of the given
// rank, in display order.
func SparseViewNames(rank int) []string {
	names := []string{"coo.csv", "coo.arrow", "coo.parquet"}
	if rank == 2 {
		names = append(names, "csr/indptr.npy", "csr/indices.npy", "csr/data.npy", "matrix.mtx", "pattern.png")
	}
	return append(names, "dense.npy")
}

// SparseViews returns the views of a sparse dataset opened as m, by the
// names SparseViewNames gives (without dense.npy when ds is nil: a matrix
// stored as data/indices/indptr arrays). COO and Matrix Market sizes become exact
// with Finalize; the npy views are exact at once.
func SparseViews(ds *h5core.Dataset, m *sparsecoo.Matrix, opts Options) (map[string]View, error) {
	views := map[string]View{}
	t, err := SparseCOOTable(m)
	if err != nil {
		return nil, err
	}
	if views["coo.csv"], err = NewCSVView(t, opts); err != nil {
		return nil, err
	}
	if views["coo.arrow"], err = NewArrowView(t, opts); err != nil {
		return nil, err
	}
	if views["coo.parquet"], err = NewParquetView(t, opts); err != nil {
		return nil, err
	}
	if len(m.Shape()) == 2 {
		p, i, d, err := SparseCSR(m)
		if err != nil {
			return nil, err
		}
		for name, src := range map[string]ArraySource{"csr/indptr.npy": p, "csr/indices.npy": i, "csr/data.npy": d} {
			if views[name], err = NewNpyView(src); err != nil {
				return nil, err
			}
		}
		if views["matrix.mtx"], err = NewMatrixMarketView(m); err != nil {
			return nil, err
		}
		name := "sparse matrix"
		if ds != nil {
			name = ds.Path
		}
		if pv, err := NewPatternView(m, name, opts); err == nil {
			views["pattern.png"] = pv
		}
	}
	if ds == nil {
		return views, nil // a matrix stored as arrays (anndata): no dense form
	}
	dense, err := DatasetArray(ds)
	if err != nil {
		return nil, err
	}
	if views["dense.npy"], err = NewNpyView(dense); err != nil {
		return nil, err
	}
	return views, nil
}
