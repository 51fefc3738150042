package arrowexport

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// SparseMeta is the content of a sparse dataset's .meta.json.
type SparseMeta struct {
	Shape      []uint64          `json:"shape"`
	ChunkShape []uint64          `json:"chunk_shape"`
	Dtype      string            `json:"dtype"`
	Datatype   string            `json:"datatype"`
	Fill       any               `json:"fill_value"`
	FillSet    bool              `json:"fill_value_defined"`
	NNZ        uint64            `json:"nnz"`
	Index      string            `json:"chunk_index"`
	Chunks     int               `json:"chunks_stored"`
	Allocated  uint64            `json:"allocated_bytes"`
	Logical    int64             `json:"logical_bytes"`
	Sections   []SparseSection   `json:"sections"`
	Density    float64           `json:"density"`
	Views      map[string]string `json:"views"`
}

// SparseSection describes one section of the dataset's structured chunks:
// its filters and its sizes summed over the stored chunks.
type SparseSection struct {
	Section    int            `json:"section"`
	Content    string         `json:"content"`
	Filters    []SparseFilter `json:"filters"`
	Stored     uint64         `json:"stored_bytes"`
	Unfiltered uint64         `json:"unfiltered_bytes"`
}

// SparseFilter is one filter of a section's pipeline.
type SparseFilter struct {
	ID         uint16   `json:"id"`
	Name       string   `json:"name,omitempty"`
	Flags      uint16   `json:"flags"`
	ClientData []uint32 `json:"cd_values"`
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
	meta := SparseMeta{
		Shape: ds.Shape(), ChunkShape: ds.ChunkShape(), Dtype: dtype, Datatype: ds.Type.String(),
		Fill: fv, FillSet: set, NNZ: m.NNZ(), Index: ds.ChunkIndexKind().String(),
		Chunks: len(chunks), Logical: ds.Size(),
		Views: map[string]string{},
	}
	if n := ds.NumElements(); n > 0 {
		meta.Density = float64(m.NNZ()) / float64(n)
	}
	for _, c := range chunks {
		meta.Allocated += c.StoredSize
		for i, s := range c.Sections {
			for len(meta.Sections) <= i {
				meta.Sections = append(meta.Sections, SparseSection{Section: len(meta.Sections), Content: [...]string{"selection", "values", "variable-length"}[min(len(meta.Sections), 2)], Filters: []SparseFilter{}})
			}
			meta.Sections[i].Stored += s.StoredSize
			meta.Sections[i].Unfiltered += s.UnfilteredSize
		}
	}
	for i, p := range ds.SectionFilters {
		for len(meta.Sections) <= i {
			meta.Sections = append(meta.Sections, SparseSection{Section: len(meta.Sections), Content: [...]string{"selection", "values", "variable-length"}[min(len(meta.Sections), 2)], Filters: []SparseFilter{}})
		}
		for _, f := range p {
			meta.Sections[i].Filters = append(meta.Sections[i].Filters, SparseFilter{ID: f.ID, Name: f.DisplayName(), Flags: f.Flags, ClientData: f.ClientData})
		}
	}
	for _, name := range SparseViewNames(len(ds.Shape())) {
		meta.Views[name] = sparseViewDoc[name]
	}
	return json.MarshalIndent(meta, "", "  ")
}
