package sparsetest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Decoded is what the independent decoder (testdata/sparse_decode.py,
// written from the format document without h5core) reads from a sparse
// dataset.
type Decoded struct {
	Shape    []uint64  `json:"shape"`
	MaxShape []*uint64 `json:"maxshape"` // nil: unlimited
	Chunk    []uint64  `json:"chunk"`
	Index    int       `json:"index"` // 1 single, 3 fixed array, 4 extensible array, 5 v2 B-tree
	Chunks   []struct {
		Scaled []uint64 `json:"scaled"`
		Kind   string   `json:"kind"` // none, all, points, hyper
		N      int      `json:"n"`
	} `json:"chunks"`
	// COO holds one row per defined element inside the extent: the
	// coordinates then the value, sorted row-major.
	COO [][]float64 `json:"coo"`
}

// Decode runs the independent decoder on dataset path of file with the
// numpy dtype dtype (e.g. "<f8") under Debian's python3 (h5py finds the
// dataset's object header; libhdf5 1.10 cannot open the dataset itself).
func Decode(file, path, dtype string) (*Decoded, error) {
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "testdata", "sparse_decode.py")
	out, err := exec.Command("/usr/bin/python3", script, file, path, dtype).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("sparse_decode.py %s %s: %v\n%s", file, path, err, ee.Stderr)
		}
		return nil, fmt.Errorf("sparse_decode.py: %w", err)
	}
	var d Decoded
	if err := json.Unmarshal(out, &d); err != nil {
		return nil, fmt.Errorf("sparse_decode.py %s %s: %w", file, path, err)
	}
	return &d, nil
}
