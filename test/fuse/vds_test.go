package fuse_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestVirtualDatasetMount mounts gen_vds.py's virtual datasets (frames
// stacked from several files with one missing, strided, irregular and
// partial mappings, a source in a subfolder, unlimited and printf-style
// mappings) as `h5fs mount FILE` does, and compares each one's .raw view
// (bytes and size), the data of its .npy view and `h5fs dump --raw` with
// what libhdf5 reads.
func TestVirtualDatasetMount(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command(python, "../../h5core/testdata/gen_vds.py", dir).Output()
	if err != nil {
		t.Fatalf("gen_vds.py (needs python3-h5py, which scripts/test.sh installs): %v", err)
	}
	var want map[string]struct {
		Raw string `json:"raw"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 8 {
		t.Fatalf("gen_vds.py described %d virtual datasets, want 8", len(want))
	}
	name := filepath.Join(dir, "vds.h5")
	mp := fusetest.MountFile(t, name, nil)
	bin := fusetest.Binary(t)
	for p, w := range want {
		t.Run(p[1:], func(t *testing.T) {
			raw, err := hex.DecodeString(w.Raw)
			if err != nil || len(raw) == 0 {
				t.Fatalf("libhdf5's bytes %q: %v", w.Raw, err)
			}
			view := fusetest.MountPath(mp, p)
			got, err := os.ReadFile(view + ".raw")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, raw) {
				t.Errorf("%s.raw: %x\nlibhdf5:  %x", p, got, raw)
			}
			if st, err := os.Stat(view + ".raw"); err != nil || st.Size() != int64(len(raw)) {
				t.Errorf("%s.raw: stat %v, %v; want size %d", p, st, err, len(raw))
			}
			npy, err := os.ReadFile(view + ".npy")
			if err != nil || !bytes.HasPrefix(npy, []byte("\x93NUMPY")) || !bytes.HasSuffix(npy, raw) {
				t.Errorf("%s.npy (%d bytes, %v) does not end with libhdf5's data", p, len(npy), err)
			}
			dump, err := exec.Command(bin, "dump", "--raw", name, p).Output()
			if err != nil || !bytes.Equal(dump, raw) {
				t.Errorf("h5fs dump --raw %s: %x (%v)\nlibhdf5: %x", p, dump, err, raw)
			}
		})
	}
}
