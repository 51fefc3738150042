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
			Name   string `json:"name"`
			Object *struct {
				Kind string `json:"kind"`
				Dim  bool   `json:"netcdf_dimension"`
			} `json:"object"`
		} `json:"links"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	seen := 0
	for _, l := range meta.Links {
		if l.Object == nil || l.Object.Kind != "dataset" {
			continue
		}
		seen++
		if l.Object.Dim != (l.Name == "lat") {
			t.Errorf(".meta.json: %s has netcdf_dimension %v\n%s", l.Name, l.Object.Dim, b)
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

// TestNetCDF4LibraryMount mounts a file the netCDF-4 library itself wrote
// (Debian's python3-netcdf4 over libnetcdf 4.9): dimensions without a
// variable (2^31 elements, and an unlimited one of none) are marked in
// .meta.json, a coordinate variable and a data variable are not; lat.csv
// opens with its exact size (2^31 lines "0") and ends as it should, and
// lat.raw's far end reads as the fill.
func TestNetCDF4LibraryMount(t *testing.T) {
	name := filepath.Join(t.TempDir(), "lib.nc")
	script := `
import sys, netCDF4, numpy as np
with netCDF4.Dataset(sys.argv[1], "w") as d:
    d.createDimension("lat", 2**31)
    d.createDimension("time", None)
    d.createVariable("temp", "f4", ("time",))[:] = np.arange(3)
    d.createDimension("x", 5)
    d.createVariable("x", "i4", ("x",))[:] = np.arange(5)
`
	if out, err := exec.Command("/usr/bin/python3", "-c", script, name).CombinedOutput(); err != nil {
		t.Fatalf("netCDF4 (Debian's python3-netcdf4, installed by scripts/test.sh): %v\n%s", err, out)
	}
	mp := fusetest.MountFile(t, name, nil)
	b, err := os.ReadFile(filepath.Join(mp, ".meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Links []struct {
			Name   string `json:"name"`
			Object *struct {
				Kind string `json:"kind"`
				Dim  bool   `json:"netcdf_dimension"`
			} `json:"object"`
		} `json:"links"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	want := map[string]bool{"lat": true, "time": true, "temp": false, "x": false}
	for _, l := range meta.Links {
		if w, ok := want[l.Name]; ok && l.Object != nil && l.Object.Kind == "dataset" {
			if l.Object.Dim != w {
				t.Errorf(".meta.json: %s has netcdf_dimension %v, want %v", l.Name, l.Object.Dim, w)
			}
			delete(want, l.Name)
		}
	}
	if len(want) != 0 {
		t.Errorf(".meta.json does not describe %v:\n%s", want, b)
	}
	lat := fusetest.MountPath(mp, "/lat")
	openedSize(t, lat+".csv", int64(len("lat\n"))+2<<31)
	fh, err := os.Open(lat + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	tail := make([]byte, 6)
	if _, err := fh.ReadAt(tail, int64(len("lat\n"))+2<<31-6); err != nil || string(tail) != "0\n0\n0\n" {
		t.Errorf("end of lat.csv: %q, %v", tail, err)
	}
	raw, err := os.Open(lat + ".raw")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	p := make([]byte, 1<<16)
	if n, err := raw.ReadAt(p, 4<<31-int64(len(p))); err != nil || n != len(p) || !bytes.Equal(p, make([]byte, len(p))) {
		t.Errorf("last %d bytes of lat.raw: %d, %v (want fill zeros)", len(p), n, err)
	}
}
