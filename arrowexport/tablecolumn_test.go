package arrowexport

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// TestHEP001Tables renders the HEP001 table of testdata/datasets.h5
// (written by testdata/gen.py with h5py) through every view.
func TestHEP001Tables(t *testing.T) {
	f, err := h5core.Open("testdata/datasets.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, path := range []string{"/events"} {
		tt, err := table.Open(f, path, table.Lenient)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		tbl := FromTable(tt)
		cv, err := NewCSVView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cb := checkView(t, cv)
		recs, err := csv.NewReader(bytes.NewReader(cb)).ReadAll()
		if err != nil || int64(len(recs)) != tt.NRows+1 {
			t.Fatalf("%s: CSV has %d records (%v), want %d", path, len(recs), err, tt.NRows+1)
		}
		pandasCSV(t, cb)
		av, err := NewArrowView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkArrowFile(t, tbl, checkView(t, av))
		pv, err := NewParquetView(tbl, Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		checkParquetFile(t, tbl, checkView(t, pv))
		for _, c := range tbl.Columns {
			one := &Table{Columns: []ColumnSource{c}}
			cv, _ := NewCSVView(one, Options{})
			checkView(t, cv)
			if a, err := ColumnArray(c); err == nil {
				rv, _ := NewRawView(a)
				nv, _ := NewNpyView(a)
				checkView(t, rv)
				checkView(t, nv)
			}
		}
	}
}

// pandasCSV has pandas read the events CSV and compare it with h5py.
func pandasCSV(t *testing.T, b []byte) {
	needPython(t, "pandas", "h5py")
	p := filepath.Join(t.TempDir(), "events.csv")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(debianPython, "testdata/check_csv.py", "testdata/datasets.h5", p).CombinedOutput()
	if err != nil {
		t.Fatalf("check_csv.py: %v\n%s", err, out)
	}
}

// hideStats hides a column's ChunkStats, forcing the data pass.
type hideStats struct{ ColumnSource }

// TestTableMinMaxStats checks that Parquet and Arrow views of columns with
// a CHUNK_MINMAX index are identical whether their layout comes from the
// index or from the data.
func TestTableMinMaxStats(t *testing.T) {
	f, err := h5core.Open("testdata/datasets.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tt, err := table.Open(f, "/events", table.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	c := TableColumn(tt.Column("count"))
	if s, ok := c.(ChunkStatsSource).ChunkStats(3); !ok || s.Min == nil || s.Nulls != 0 {
		t.Fatalf("count: chunk 3 stats %+v, %v", s, ok)
	}
	withIdx := &Table{Columns: []ColumnSource{c}}
	r, _ := newParquetRenderer(withIdx)
	if _, ok := r.knownMinMax(); !ok {
		t.Fatal("count: the index does not give the Parquet layout")
	}
	for _, mk := range []func(*Table, Options) (View, error){NewParquetView, NewArrowView} {
		a, _ := mk(withIdx, Options{})
		b, _ := mk(&Table{Columns: []ColumnSource{hideStats{c}}}, Options{})
		if !bytes.Equal(checkView(t, a), checkView(t, b)) {
			t.Fatalf("%s: layout from the index differs from the data pass", a.Ext())
		}
	}
}
