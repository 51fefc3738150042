package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnsupportedFilter: a dataset whose chunks need a filter h5fs cannot
// decode (sz, 32017: libhdf5 keeps an optional filter it lacks in the
// pipeline, and h5py writes the chunk directly) is listed with its filters,
// the missing one marked, and reading it fails naming the filter by id and
// registered name; its neighbour still reads.
func TestUnsupportedFilter(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sz.h5")
	script := `import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((4,))
    dcpl.set_filter(32017, h5py.h5z.FLAG_OPTIONAL, (1, 2))
    d = h5py.h5d.create(f.id, b"sz", h5py.h5t.STD_I32LE, h5py.h5s.create_simple((4,)), dcpl=dcpl)
    d.write_direct_chunk((0,), b"not really sz data", filter_mask=0)
    f["plain"] = np.arange(3, dtype="<i2")
`
	if out, err := exec.Command("/usr/bin/python3", "-c", script, file).CombinedOutput(); err != nil {
		t.Fatalf("h5py (Debian's python3-h5py, installed by scripts/test.sh): %v\n%s", err, out)
	}
	var out bytes.Buffer
	if err := runLs([]string{"-r", file}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "sz(32017) [1 2] (not supported by h5fs)") {
		t.Errorf("ls -r does not mark the filter:\n%s", out.String())
	}
	out.Reset()
	err := runDump([]string{"--raw", file, "/sz"}, &out)
	if err == nil || !strings.Contains(err.Error(), "filter 32017 (sz) not supported") {
		t.Errorf("dump of /sz: %v, want an error naming filter 32017 (sz)", err)
	}
	out.Reset()
	if err := runDump([]string{"--raw", file, "/plain"}, &out); err != nil || out.Len() != 6 {
		t.Errorf("dump of /plain: %d bytes, %v", out.Len(), err)
	}
}
