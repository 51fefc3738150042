package duckdb_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestSoakDuckDB is the soak test of DuckDB (see test/fuse's TestSoak):
// a directory mount of corpus files by the h5fs binary, 8 readers, each a
// DuckDB connection, querying every Parquet and CSV view (row count and
// a hash of every row) for H5FS_SOAK_SECONDS (default 60): every query
// succeeds with the first one's answer, and the mount's resident memory
// does not grow after the first pass.
func TestSoakDuckDB(t *testing.T) {
	_, pid, all := fusetest.SoakMount(t, []string{
		filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"),
		"../../../sparsecoo/testdata/sparse_2d_float64_ea.h5",
	})
	var files []string
	for _, f := range all {
		if strings.HasSuffix(f, ".parquet") || (strings.HasSuffix(f, ".csv") && !strings.Contains(f, "SEARCH_INDEXES")) {
			files = append(files, f)
		}
	}
	if len(files) < 20 {
		t.Fatalf("%d Parquet and CSV views, want the corpus's", len(files))
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fusetest.Soak(t, pid, files, 8, func() (fusetest.SoakReader, func()) {
		return func(f string) map[string]string {
			ext := strings.TrimPrefix(filepath.Ext(f), ".")
			q := fmt.Sprintf("SELECT count(*), coalesce(sum(hash(t)), 0)::VARCHAR FROM read_%s(%s) t", ext, sqlString(f))
			var n int64
			var h string
			if err := db.QueryRow(q).Scan(&n, &h); err != nil {
				return map[string]string{"duckdb": "error: " + err.Error()}
			}
			return map[string]string{"duckdb": fmt.Sprint(n, " ", h)}
		}, func() {}
	})
}
