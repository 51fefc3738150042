package arrowexport

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// TestFillRunSize checks the CSV size of datasets whose storage is partly
// or never written (written by testdata/gen_fill.py at test time, as its
// views are too big for the tests that read every view of testdata): the
// size, computed arithmetically for the fill runs, is the length of the
// rendered file, and 2^32 rows never written are sized without a pass
// over them (one would take many minutes).
func TestFillRunSize(t *testing.T) {
	f := fillFile(t)
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

// newCSV is NewCSVView as a View.
func newCSV(t *Table, opts Options) (View, error) { return NewCSVView(t, opts) }

// fillFile writes testdata/gen_fill.py's file and opens it for the test.
func fillFile(t *testing.T) *h5core.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fill.h5")
	if out, err := exec.Command("/usr/bin/python3", "testdata/gen_fill.py", p).CombinedOutput(); err != nil {
		t.Fatalf("testdata/gen_fill.py (needs python3-h5py, which scripts/test.sh installs): %v\n%s", err, out)
	}
	f, err := h5core.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
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

// TestFillRunTable checks that the CSV, Arrow and Parquet views of a table
// whose columns are mostly never written (tfill of testdata/gen_fill.py),
// and the CSV view of each column, laid out from the never-written rows'
// first row, are byte for byte the views laid out from every row.
func TestFillRunTable(t *testing.T) {
	f := fillFile(t)
	tt, err := table.Open(f, "/tfill", table.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	whole := FromTable(tt)
	for _, c := range whole.Columns { // rows 16384-24575 were never written
		if a, err := fillArray(c, 16384, 8192); a == nil || err != nil {
			t.Errorf("%s: never-written rows not known as such (%v)", c.Field().Name, err)
		} else {
			a.Release()
		}
	}
	views := map[string][]func(*Table, Options) (View, error){"tfill": {newCSV, NewArrowView, NewParquetView}}
	tables := map[string]*Table{"tfill": whole}
	for _, c := range whole.Columns {
		tables[c.Field().Name] = &Table{Columns: []ColumnSource{c}}
		views[c.Field().Name] = []func(*Table, Options) (View, error){newCSV}
	}
	for name, tb := range tables {
		hidden := &Table{Metadata: tb.Metadata}
		for _, c := range tb.Columns {
			hidden.Columns = append(hidden.Columns, hideStats{c})
		}
		for _, mk := range views[name] {
			a, err := mk(tb, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := mk(hidden, Options{})
			if !bytes.Equal(checkView(t, a), checkView(t, b)) {
				t.Errorf("%s.%s: the layout from never-written rows differs from the data pass", name, a.Ext())
			}
		}
	}
}
