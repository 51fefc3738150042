package h5core

import (
	"encoding/json"
	"os/exec"
	"testing"
)

// runH5pyGen runs the generator testdata/script with Debian's h5py, which
// writes its files into dir and prints as JSON what libhdf5 reads from
// them, and decodes that JSON into want.
func runH5pyGen(t testing.TB, script, dir string, want any) {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "testdata/"+script, dir).Output()
	if err != nil {
		t.Fatalf("%s (needs Debian's python3-h5py, installed by scripts/test.sh): %v", script, err)
	}
	if err := json.Unmarshal(out, want); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
}

// openDataset opens the dataset at path of f, failing t.
func openDataset(t *testing.T, f *File, path string) *Dataset {
	t.Helper()
	o, err := f.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
