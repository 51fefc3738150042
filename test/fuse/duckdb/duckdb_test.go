// Package duckdb_test runs DuckDB over the whole-table Parquet and CSV
// files, and ordinary datasets' CSV files, of kernel mounts. It is a
// module of its own so that the DuckDB library stays out of the h5fs
// module and binary.
package duckdb_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDuckDB runs SELECT count(*), count(x), sum(x) over <table>.parquet
// and <table>.csv for every table of every fixture, x its first plain
// numeric column.
func TestDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range fusetest.FixtureFiles(t) {
		exp, ok := fusetest.LoadExpected(t, name)
		if !ok || exp.Kind != "hep001" || len(exp.Tables) == 0 {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			mp := fusetest.Mount(t, name, nil)
			for _, tb := range exp.Tables {
				// count(*) always; count and sum of the first plain numeric
				// column when there is one (large tables give no full values)
				col, n, sum := "NULL", int64(0), 0.0
				var num *fusetest.ExpectedColumn
				for i, c := range tb.Columns {
					if cn, cs, ok := c.Numeric(); ok && cn > 0 {
						col, n, sum, num = `"`+strings.ReplaceAll(c.Name, `"`, `""`)+`"`, cn, cs, &tb.Columns[i]
						break
					}
				}
				for _, ext := range []string{"parquet", "csv"} {
					p := fusetest.WholeTable(mp, tb.Path, ext)
					q := fmt.Sprintf("SELECT count(*), count(%s), sum(%s)::DOUBLE FROM read_%s('%s')", col, col, ext, strings.ReplaceAll(p, "'", "''"))
					var rows, cnt int64
					var got sql.NullFloat64
					if err := db.QueryRow(q).Scan(&rows, &cnt, &got); err != nil {
						t.Errorf("%s: %v", q, err)
						continue
					}
					if rows != tb.NRows || cnt != n || (num != nil && !num.SumNear(got.Float64)) {
						t.Errorf("%s = %d, %d, %v; want %d, %d, %g", q, rows, cnt, got.Float64, tb.NRows, n, sum)
					}
				}
			}
		})
	}
}
