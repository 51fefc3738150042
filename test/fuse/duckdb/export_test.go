package duckdb_test

import (
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDuckDBExport runs h5fs export (in parts of about 1000 rows) on every
// fixture and has DuckDB read each table's directory of Parquet files as
// one dataset: the same schema, and the same rows (as a multiset) as the
// mount's <table>.parquet.
func TestDuckDBExport(t *testing.T) {
	bin := fusetest.Binary(t)
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
			dest := t.TempDir()
			if out, err := exec.Command(bin, "export", "--part-rows", "1000", name, dest).CombinedOutput(); err != nil {
				t.Fatalf("h5fs export: %v\n%s", err, out)
			}
			mp := fusetest.Mount(t, name, nil)
			for _, tb := range exp.Tables {
				view := sqlString(fusetest.WholeTable(mp, tb.Path, "parquet"))
				parts := sqlString(strings.TrimSuffix(fusetest.WholeTable(dest, tb.Path, "x"), ".x") + "/*.parquet")
				var files, rows int64
				q := fmt.Sprintf("SELECT (SELECT count(*) FROM glob(%s)), count(*) FROM read_parquet(%s)", parts, parts)
				if err := db.QueryRow(q).Scan(&files, &rows); err != nil {
					t.Errorf("%s: %v", q, err)
					continue
				}
				if rows != tb.NRows || files < 1 {
					t.Errorf("%s = %d files, %d rows; want %d rows in one file or more", q, files, rows, tb.NRows)
				}
				for _, q := range []string{
					fmt.Sprintf("SELECT count(*) FROM ((DESCRIBE SELECT * FROM read_parquet(%s)) EXCEPT ALL (DESCRIBE SELECT * FROM read_parquet(%s)))", parts, view),
					fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM read_parquet(%s) EXCEPT ALL SELECT * FROM read_parquet(%s))", parts, view),
					fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM read_parquet(%s) EXCEPT ALL SELECT * FROM read_parquet(%s))", view, parts),
				} {
					var n int64
					if err := db.QueryRow(q).Scan(&n); err != nil {
						t.Errorf("%s: %v", q, err)
					} else if n != 0 {
						t.Errorf("%s = %d, want 0", q, n)
					}
				}
			}
		})
	}
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
