package duckdb_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDuckDBDirMount runs one DuckDB query over the events table of every
// run file of a directory mount (a glob across the files' directories).
func TestDuckDBDirMount(t *testing.T) {
	const runs = 30
	mp, _ := fusetest.MountDir(t, fusetest.MakeRuns(t, runs), fsnode.DirOptions{MaxOpen: 8}, nil)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := fmt.Sprintf("SELECT run, count(*), min(filename) FROM read_parquet('%s/run*/events.parquet', filename=true) GROUP BY ALL ORDER BY run", mp)
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	n := 0
	for ; rows.Next(); n++ {
		var run, count int64
		var file string
		if err := rows.Scan(&run, &count, &file); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%s/run%04d.h5/events.parquet", mp, run); run != int64(n) || count != 10+run%7 || file != want {
			t.Errorf("row %d: run %d, %d rows, from %s; want run %d, %d rows, from %s", n, run, count, file, n, 10+n%7, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != runs {
		t.Errorf("%s: %d runs; want %d", q, n, runs)
	}
	// The whole mount, the broken file's directory included.
	q = fmt.Sprintf("SELECT count(DISTINCT run), sum(energy) FROM read_parquet('%s/*/events.parquet')", strings.ReplaceAll(mp, "'", "''"))
	var distinct int64
	var sum float64
	if err := db.QueryRow(q).Scan(&distinct, &sum); err != nil {
		t.Errorf("%s: %v", q, err)
	} else if distinct != runs+1 {
		t.Errorf("%s: %d runs; want %d (with ub.h5)", q, distinct, runs+1)
	}
}
