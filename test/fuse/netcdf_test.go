package fuse_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestNetCDFDimensionMount mounts a file laid out as netCDF-4 lays out a
// dimension without a variable (a dimension scale of 2^31 never-written
// float32 elements, written by h5py) through the kernel: its directory's
// .meta.json marks it (and not the variable beside it), its .raw view has
// the full 8 GiB size, and a read at its far end gives fill bytes.
func TestNetCDFDimensionMount(t *testing.T) {
	name := filepath.Join(t.TempDir(), "nc.h5")
	script := `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("lat", shape=(2**31,), dtype="<f4")
    d.attrs["CLASS"] = np.bytes_(b"DIMENSION_SCALE")
    d.attrs["NAME"] = np.bytes_(b"This is a netCDF dimension but not a netCDF variable.  2147483648")
    f["temp"] = np.arange(3, dtype="<f4")
`
	if out, err := exec.Command("/usr/bin/python3", "-c", script, name).CombinedOutput(); err != nil {
		t.Fatalf("h5py (Debian's python3-h5py, installed by scripts/test.sh): %v\n%s", err, out)
	}
	mp := fusetest.MountFile(t, name, nil)
	b, err := os.ReadFile(filepath.Join(mp, ".meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Links []struct {
			Name    string `json:"name"`
			Dataset *struct {
				Shape []uint64 `json:"shape"`
				Dim   bool     `json:"netcdf_dimension"`
			} `json:"dataset"`
		} `json:"links"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	seen := 0
	for _, l := range meta.Links {
		if l.Dataset == nil {
			continue
		}
		seen++
		if l.Dataset.Dim != (l.Name == "lat") {
			t.Errorf(".meta.json: %s has netcdf_dimension %v\n%s", l.Name, l.Dataset.Dim, b)
		}
	}
	if seen != 2 {
		t.Fatalf(".meta.json describes %d datasets, want 2:\n%s", seen, b)
	}
	raw := fusetest.MountPath(mp, "/lat") + ".raw"
	st, err := os.Stat(raw)
	if err != nil || st.Size() != 4<<31 {
		t.Fatalf("lat.raw: %v, %v; want %d bytes", st, err, int64(4)<<31)
	}
	fh, err := os.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	p := make([]byte, 1<<16)
	if n, err := fh.ReadAt(p, st.Size()-int64(len(p))); err != nil || n != len(p) || !bytes.Equal(p, make([]byte, len(p))) {
		t.Fatalf("last %d bytes of lat.raw: %d, %v (want fill zeros)", len(p), n, err)
	}
}
