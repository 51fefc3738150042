package arrowexport

import (
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// sparseMeta is the content of a sparse dataset's .meta.json: the
// dataset's Object, its storage counted, and its views.
type sparseMeta struct {
	*Object
	Views map[string]string `json:"views"`
}

// CountSparse returns the storage of sparse dataset ds opened as m, with
// its stored chunks' sizes and counts, its defined elements (from the
// selections) and its density.
func CountSparse(ds *h5core.Dataset, m *sparsecoo.Matrix) (*SparseStorage, error) {
	chunks, err := ds.SparseChunks()
	if err != nil {
		return nil, err
	}
	s := DescribeSparse(ds)
	s.StoredChunks, s.LogicalBytes, s.NNZ = len(chunks), ds.Size(), m.NNZ()
	for _, c := range chunks {
		s.AllocatedBytes += c.StoredSize
		for i, sec := range c.Sections {
			s.section(i).StoredBytes += sec.StoredSize
			s.section(i).UnfilteredBytes += sec.UnfilteredSize
		}
	}
	if n := ds.NumElements(); n > 0 {
		s.Density = float64(s.NNZ) / float64(n)
	}
	return s, nil
}

// SparseMetaJSON builds the .meta.json content of the sparse dataset o,
// opened as m: its description (shape, chunk shape, datatype, fill value,
// index kind, attributes), its storage counted (CountSparse) and its
// views.
func SparseMetaJSON(o *h5core.Object, ds *h5core.Dataset, m *sparsecoo.Matrix) ([]byte, error) {
	s, err := CountSparse(ds, m)
	if err != nil {
		return nil, err
	}
	meta := sparseMeta{Object: DescribeObject(o), Views: map[string]string{}}
	meta.Sparse = s
	for _, name := range SparseViewNames(len(ds.Shape())) {
		meta.Views[name] = sparseViewDoc[name]
	}
	return MarshalDescription(meta)
}
