package arrowexport

import (
	"io"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestFillRunSize checks the CSV size of datasets whose storage is partly
// or never written (written by testdata/gen_fill.py at test time, as its
// views are too big for the tests that read every view of testdata): the
// size, computed arithmetically for the fill runs, is the length of the
// rendered file, and 2^32 rows never written are sized without a pass
// over them (one would take many minutes).
func TestFillRunSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fill.h5")
	if out, err := exec.Command("/usr/bin/python3", "testdata/gen_fill.py", p).CombinedOutput(); err != nil {
		t.Fatalf("testdata/gen_fill.py (needs python3-h5py, which scripts/test.sh installs): %v\n%s", err, out)
	}
	f, err := h5core.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		name string
		want int64 // the exact size; 0: the length of the rendering
	}{
		{name: "gaps"},
		{name: "never2"},
		{name: "contig"},
		{name: "never_big", want: int64(len("never_big\n")) + 1<<32*int64(len("2.5\n"))},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := fillCSV(t, f, c.name)
			if err := v.Finalize(); err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want == 0 {
				b, err := io.ReadAll(io.NewSectionReader(v, 0, 1<<40))
				if err != nil {
					t.Fatal(err)
				}
				want = int64(len(b))
			}
			if v.Size() != want {
				t.Errorf("size %d, want %d", v.Size(), want)
			}
		})
	}
}

// fillCSV returns the CSV view of dataset name of f, with no cache.
func fillCSV(t *testing.T, f *h5core.File, name string) *CSVView {
	t.Helper()
	o, err := f.Open("/" + name)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := DatasetTable(ds)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewCSVView(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}
