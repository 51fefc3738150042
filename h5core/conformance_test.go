package h5core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// h5pyDigest is one dataset as h5py reads it (testdata/h5py_digest.py).
type h5pyDigest struct {
	Shape  []uint64 `json:"shape"`
	Dtype  string   `json:"dtype"`
	SHA256 string   `json:"sha256_le"`
	Skip   string   `json:"skip"`
	Error  string   `json:"error"`
}

// conformanceFiles lists the HDF5 files compared with h5py: the package's
// own test data and, when present, the shared corpora written by libhdf5.
func conformanceFiles(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"testdata/*/*.h5", "../../shared/fixtures/hep001/*.h5", "../../shared/fixtures/sparse/*.h5"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if _, err := os.Stat("../../shared/fixtures"); err != nil {
		t.Log("../shared/fixtures is absent: comparing the package's own test data only")
	}
	sort.Strings(files)
	return files
}

// runH5pyDigest runs the reference reader over files.
func runH5pyDigest(t *testing.T, files []string) map[string]map[string]json.RawMessage {
	if _, err := exec.Command("/usr/bin/python3", "-c", "import h5py").CombinedOutput(); err != nil {
		t.Skip("Debian's /usr/bin/python3 with h5py is not installed (scripts/test.sh installs it)")
	}
	out, err := exec.Command("/usr/bin/python3", append([]string{"testdata/h5py_digest.py"}, files...)...).Output()
	if err != nil {
		t.Fatalf("h5py_digest.py: %v", err)
	}
	var res map[string]map[string]json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestH5pyIdentity reads every dataset h5py can read with h5core and
// requires the raw bytes (packed little-endian, as `h5fs dump --raw`
// writes them) and the shape to be identical.
func TestH5pyIdentity(t *testing.T) {
	files := conformanceFiles(t)
	ref := runH5pyDigest(t, files)
	compared := 0
	for _, fn := range files {
		f, err := Open(fn)
		if err != nil {
			for _, raw := range ref[fn] {
				var d h5pyDigest
				if json.Unmarshal(raw, &d) == nil && d.SHA256 != "" {
					t.Errorf("%v (h5py reads it)", err)
					break
				}
			}
			continue
		}
		for path, raw := range ref[fn] {
			var want h5pyDigest
			if json.Unmarshal(raw, &want) != nil || want.SHA256 == "" {
				continue
			}
			compared++
			t.Run(filepath.Base(fn)+path, func(t *testing.T) {
				o, err := f.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				ds, err := o.Dataset()
				if err != nil {
					t.Fatal(err)
				}
				if got := ds.Shape(); len(got) != len(want.Shape) {
					t.Fatalf("shape %v, h5py %v", got, want.Shape)
				} else {
					for i := range got {
						if got[i] != want.Shape[i] {
							t.Fatalf("shape %v, h5py %v", got, want.Shape)
						}
					}
				}
				h := sha256.New()
				err = ds.DumpPacked(h)
				if errors.Is(err, ErrUnsupported) {
					t.Skipf("not implemented in h5core: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
					t.Errorf("raw bytes differ from h5py's (%s %s)", ds.Type, want.Dtype)
				}
			})
		}
		f.Close()
	}
	t.Logf("compared %d datasets in %d files with h5py", compared, len(files))
}
