package sparsetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Expected is what a sparse fixture's .expected.json (written beside the
// .h5 file by the independent writer of the shared corpus) says of it.
type Expected struct {
	// Path is the .expected.json file read (not part of the JSON).
	Path     string            `json:"-"`
	File     string            `json:"file"`
	Datasets []ExpectedDataset `json:"datasets"`
}

// H5 returns the path of the HDF5 file the description belongs to.
func (e *Expected) H5() string { return strings.TrimSuffix(e.Path, ".expected.json") + ".h5" }

// ExpectedDataset is one dataset of an Expected file.
type ExpectedDataset struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"` // "sparse" or "dense"
	Shape      []uint64 `json:"shape"`
	ChunkShape []uint64 `json:"chunk_shape"`
	Dtype      string   `json:"dtype"`
	Fill       float64  `json:"fill_value"`
	IndexType  string   `json:"index_type"`
	SecFilters map[string][]struct {
		ID uint16   `json:"id"`
		CD []uint32 `json:"cd_values"`
	} `json:"section_filters"`
	NNZ uint64 `json:"nnz"`
	// COO holds one row per defined element: its coordinates, then its
	// value.
	COO    [][]float64 `json:"coo"`
	Chunks []struct {
		Scaled    []uint64 `json:"scaled"`
		Selection string   `json:"selection"`
		Version   int      `json:"selection_version"`
		Regular   bool     `json:"regular_hyperslab"`
		NValues   uint64   `json:"nvalues"`
		Address   uint64   `json:"address"`
		NBytes    uint64   `json:"nbytes"`
	} `json:"chunks_stored"`
	CSR *struct {
		Indptr  []int64   `json:"indptr"`
		Indices []int64   `json:"indices"`
		Data    []float64 `json:"data"`
	} `json:"csr"`
}

// ReadExpected reads one .expected.json file.
func ReadExpected(path string) (*Expected, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	e := &Expected{Path: path}
	if err := json.Unmarshal(b, e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}

// ReadExpectedDir reads every .expected.json file of a fixture directory,
// in name order; it is an error when there is none.
func ReadExpectedDir(dir string) ([]*Expected, error) {
	names, _ := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no .expected.json files", dir)
	}
	var out []*Expected
	for _, n := range names {
		e, err := ReadExpected(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
