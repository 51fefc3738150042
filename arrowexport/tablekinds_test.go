package arrowexport

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// TestTableKinds renders the tables of package table's test file, whose
// columns cover every logical kind (structs, fixed-size binary, float16,
// enums, preallocated tails, empty tables), through the table views.
func TestTableKinds(t *testing.T) {
	f, err := h5core.Open("../table/testdata/hep_tables.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, path := range []string{"/run/events", "/run/prealloc", "/empty", "/one"} {
		tt, err := table.Open(f, path, table.Lenient)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		tbl := FromTable(tt)
		cv, _ := NewCSVView(tbl, Options{})
		recs, err := csv.NewReader(bytes.NewReader(checkView(t, cv))).ReadAll()
		if err != nil || int64(len(recs)) != tt.NRows+1 {
			t.Fatalf("%s: CSV has %d records (%v)", path, len(recs), err)
		}
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
	}
}
