package h5core

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// growSWMR runs testdata/grow_swmr.py with Debian's h5py.
func growSWMR(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("/usr/bin/python3", append([]string{"testdata/grow_swmr.py"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("grow_swmr.py %v (needs Debian's python3-h5py, installed by scripts/test.sh): %v\n%s", args, err, out)
	}
}

// TestFileGrowsUnderneath opens a file, has a libhdf5 SWMR writer append
// to it (chunks and index blocks past the end the File was opened with,
// the chunk index updated in place), and reads datasets whose headers are
// first read after the append, as a mount does that opens a view after
// the file has changed: every element of the new state is read. A copy
// cut back to the old size, whose structures point past its real end,
// still fails, naming the dataset.
func TestFileGrowsUnderneath(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "grow.h5")
	growSWMR(t, "create", name)
	f, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := f.Size()
	growSWMR(t, "append", name, "100")
	paths := []string{"/plain", "/gzip"}
	for _, path := range paths {
		ds := openDataset(t, f, path)
		b := make([]byte, ds.Size())
		if n, err := ds.ReadAt(b, 0); n != 110*8 || err != nil {
			t.Fatalf("%s: read %d bytes (%v); want 110 elements", path, n, err)
		}
		for i := range 110 {
			if v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])); v != float64(i)*0.5 {
				t.Fatalf("%s[%d] = %g; want %g", path, i, v, float64(i)*0.5)
			}
		}
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if after := f.Size(); after <= before || after > int64(len(b)) {
		t.Errorf("size %d -> %d; the file has %d bytes", before, after, len(b))
	}
	cut := filepath.Join(dir, "cut.h5")
	if err := os.WriteFile(cut, b[:before], 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := Open(cut)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, path := range paths {
		o, err := g.Open(path)
		var ds *Dataset
		if err == nil {
			ds, err = o.Dataset()
		}
		if err == nil {
			_, err = ds.ReadAt(make([]byte, ds.Size()), 0)
		}
		if err == nil || !strings.Contains(err.Error(), "beyond the end of the file") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s of the cut file: %v; want an error naming it, beyond the end of the file", path, err)
		}
	}
}
