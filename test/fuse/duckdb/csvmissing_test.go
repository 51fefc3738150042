package duckdb_test

import (
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// makeStrings writes a HEP001 table t whose string column s holds "a",
// "", the fill value "?" (missing) and "b".
const makeStrings = `
import sys
import h5py, numpy as np
def str_attr(obj, name, value):
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(len(value) + 1)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(value.encode(), dtype="S%d" % (len(value) + 1)))
with h5py.File(sys.argv[1], "w") as f:
    g = f.create_group("t")
    str_attr(g, "CLASS", "COLUMN_TABLE")
    str_attr(g, "VERSION", "1.0")
    g.attrs.create("NROWS", np.uint64(4))
    g.create_dataset("s", data=np.array([b"a", b"", b"?", b"b"], dtype="S4"), fillvalue=np.bytes_(b"?"), maxshape=(None,), chunks=(4,))
`

// TestDuckDBEmptyStringCSV reads a string column holding an empty string
// and a missing value through <table>.csv and <col>.csv with DuckDB told
// that "" is a string (allow_quoted_nulls=false): both files keep them
// apart.
func TestDuckDBEmptyStringCSV(t *testing.T) {
	name := filepath.Join(t.TempDir(), "strings.h5")
	if out, err := exec.Command("/usr/bin/python3", "-c", makeStrings, name).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	mp := fusetest.Mount(t, name, nil)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, file := range []string{"t.csv", "t/s.csv"} {
		q := fmt.Sprintf("SELECT s FROM read_csv(%s, header=true, columns={'s': 'VARCHAR'}, allow_quoted_nulls=false)", sqlString(filepath.Join(mp, file)))
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var got []string
		for rows.Next() {
			var s sql.NullString
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			if s.Valid {
				got = append(got, fmt.Sprintf("%q", s.String))
			} else {
				got = append(got, "NULL")
			}
		}
		rows.Close()
		if want := `["a" "" NULL "b"]`; fmt.Sprint(got) != want {
			t.Errorf("%s: %v, want %s", file, got, want)
		}
	}
}
