package arrowexport

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// SparseMeta is the content of a sparse dataset's .meta.json: the
// dataset's Description and SparseStorage, with its fill value, the
// NumPy type of its values' views, its density and its views.
type SparseMeta struct {
	*Description
	NumpyDtype string `json:"numpy_dtype"`
	Fill       any    `json:"fill_value"`
	FillSet    bool   `json:"fill_value_defined"`
	SparseStorage
	Density float64           `json:"density"`
	Views   map[string]string `json:"views"`
}

// SparseMetaJSON builds the .meta.json content of a sparse dataset opened
// as m: shape, chunk shape, datatype, fill value, nnz (from the
// selections), index kind, and per-section filters and sizes.
func SparseMetaJSON(ds *h5core.Dataset, m *sparsecoo.Matrix) ([]byte, error) {
	chunks, err := ds.SparseChunks()
	if err != nil {
		return nil, err
	}
	dtype, err := npyDescr(ds.Type)
	if err != nil {
		dtype = ""
	}
	fill, set := ds.FillValue()
	fv, err := ds.File().ElementValue(ds.Type, fill)
	if err != nil {
		return nil, err
	}
	if f, ok := fv.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		fv = fmt.Sprint(f)
	}
	meta := SparseMeta{Description: Describe(ds), NumpyDtype: dtype, Fill: fv, FillSet: set,
		SparseStorage: DescribeSparse(ds, chunks), Views: map[string]string{}}
	meta.NNZ = m.NNZ()
	if n := ds.NumElements(); n > 0 {
		meta.Density = float64(m.NNZ()) / float64(n)
	}
	for _, name := range SparseViewNames(len(ds.Shape())) {
		meta.Views[name] = sparseViewDoc[name]
	}
	return json.MarshalIndent(meta, "", "  ")
}
