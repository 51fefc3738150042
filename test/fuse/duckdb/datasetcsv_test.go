package duckdb_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDuckDBDatasetCSV runs DuckDB's read_csv over ordinary datasets'
// CSV files of a kernel mount of arrowexport's dataset test file, with
// DuckDB's own detection of the header and column types.
func TestDuckDBDatasetCSV(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mp := fusetest.Mount(t, "../../../arrowexport/testdata/dscsv.h5", nil)
	wideSum := 0 // column 999 of wide_u1: (i+999) % 7
	for i := range 2500 {
		wideSum += (i + 999) % 7
	}
	for _, c := range []struct {
		file, col string
		rows      int64
		sum       float64
	}{
		{"chunk_gz.csv", "chunk_gz", 140000, 3*139999*140000/2 - 7*140000},
		{"cmp1.csv", "id", 5, 100},
		{"m2_i4.csv", "c4", 4, 4 + 9 + 14 + 19},
		{"wide_u1.csv", "c999", 2500, float64(wideSum)},
	} {
		q := fmt.Sprintf("SELECT count(*), sum(%s)::DOUBLE FROM read_csv('%s')", c.col, filepath.Join(mp, c.file))
		var rows int64
		var sum float64
		if err := db.QueryRow(q).Scan(&rows, &sum); err != nil {
			t.Errorf("%s: %v", q, err)
		} else if rows != c.rows || sum != c.sum {
			t.Errorf("%s = %d, %g; want %d, %g", q, rows, sum, c.rows, c.sum)
		}
	}
}
