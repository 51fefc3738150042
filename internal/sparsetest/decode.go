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

// listingScript opens each file named on the command line with h5py and
// prints, per file, every link reachable from the root with "ok" when
// its object opens (datasets read whole) or libhdf5's error.
const listingScript = `
import h5py, json, sys
res = {}
for path in sys.argv[1:]:
    out = {}
    def walk(g, prefix):
        for name in g:
            p = prefix + "/" + name
            try:
                o = g[name]
                if isinstance(o, h5py.Group):
                    out[p] = "ok"
                    walk(o, p)
                else:
                    o[()]
                    out[p] = "ok"
            except Exception as e:
                out[p] = str(e)
    try:
        with h5py.File(path, "r") as f:
            walk(f, "")
        res[path] = out
    except Exception as e:
        res[path] = {"": "cannot open: %s" % e}
print(json.dumps(res))
`

// Libhdf5Listing opens each file with Debian's h5py (libhdf5 1.10) in one
// process and returns, per file, every link reachable from the root with
// "ok" when its object opens and reads, or libhdf5's error (sparse
// datasets fail with "bad version number for layout message"; nothing
// else may). A file that does not open maps "" to the error.
func Libhdf5Listing(paths ...string) (map[string]map[string]string, error) {
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", listingScript}, paths...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("h5py listing: %v\n%s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("h5py listing: %w", err)
	}
	var m map[string]map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("h5py listing: %w", err)
	}
	return m, nil
}

// SameListing reports how listing b differs from a (nil when it does
// not): the same links, each opening as before, sparse datasets failing
// as before.
func SameListing(a, b map[string]string) error {
	if len(a) != len(b) {
		return fmt.Errorf("libhdf5 lists %d links, before %d: %v", len(b), len(a), b)
	}
	for p, v := range a {
		w, ok := b[p]
		switch {
		case !ok:
			return fmt.Errorf("libhdf5 no longer lists %s", p)
		case v == "ok" && w != "ok":
			return fmt.Errorf("libhdf5 no longer opens %s: %s", p, w)
		case v != "ok" && w != "ok" && v != w:
			return fmt.Errorf("libhdf5 fails differently on %s: %s (was %s)", p, w, v)
		}
	}
	return nil
}
