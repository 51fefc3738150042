package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLsNetCDFDimension: a netCDF-4 dimension without a variable (a
// dimension scale of 2^31 never-written elements, named as netCDF names it;
// written by h5py as netCDF-4 lays it out) is listed with its full extent
// and marked as such, in text and JSON.
func TestLsNetCDFDimension(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nc.h5")
	script := `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("lat", shape=(2**31,), dtype="<f4")
    d.attrs["CLASS"] = np.bytes_(b"DIMENSION_SCALE")
    d.attrs["NAME"] = np.bytes_(b"This is a netCDF dimension but not a netCDF variable.  2147483648")
    f["temp"] = np.zeros(3, dtype="<f4")
`
	if out, err := exec.Command("/usr/bin/python3", "-c", script, file).CombinedOutput(); err != nil {
		t.Fatalf("h5py (Debian's python3-h5py, installed by scripts/test.sh): %v\n%s", err, out)
	}
	var text bytes.Buffer
	if err := runLs([]string{file}, &text); err != nil {
		t.Fatal(err)
	}
	if got := text.String(); strings.Count(got, "netCDF:    a dimension without a variable") != 1 || !strings.Contains(got, "{2147483648/2147483648}") {
		t.Errorf("ls output does not mark /lat (only) as a netCDF dimension:\n%s", got)
	}
	var js bytes.Buffer
	if err := runLs([]string{"--json", file}, &js); err != nil {
		t.Fatal(err)
	}
	var listing struct {
		Objects []struct {
			Path string `json:"path"`
			Dim  bool   `json:"netcdf_dimension"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(js.Bytes(), &listing); err != nil || len(listing.Objects) != 3 {
		t.Fatalf("%v\n%s", err, js.String())
	}
	for _, e := range listing.Objects {
		if e.Dim != (e.Path == "/lat") {
			t.Errorf("%s: netcdf_dimension %v", e.Path, e.Dim)
		}
	}
}
