package duckdb_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDuckDBEmptyAndMissing reads the string column of a table holding
// both empty strings and missing values (test/fuse/testdata/
// empty_strings.py) from <table>.csv and <col>.csv with DuckDB's
// read_csv(allow_quoted_nulls=false): in both, a missing value is NULL
// and an empty string ”, every other row what h5py reads.
func TestDuckDBEmptyAndMissing(t *testing.T) {
	name := filepath.Join(t.TempDir(), "empty_strings.h5")
	if out, err := exec.Command("/usr/bin/python3", "../testdata/empty_strings.py", name).CombinedOutput(); err != nil {
		t.Fatalf("empty_strings.py: %v\n%s", err, out)
	}
	// the words as h5py reads them, null where missing (the fill value)
	out, err := exec.Command("/usr/bin/python3", "-c", `
import json, sys, h5py
ds = h5py.File(sys.argv[1], "r")["t/word"]
print(json.dumps([None if w == ds.fillvalue else w.decode() for w in ds[()]]))`, name).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []*string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mp := fusetest.Mount(t, name, nil)
	for _, view := range []string{"t.csv", "t/word.csv"} {
		q := fmt.Sprintf("SELECT word FROM read_csv('%s', allow_quoted_nulls=false)", filepath.Join(mp, view))
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var got []sql.NullString
		for rows.Next() {
			var s sql.NullString
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got = append(got, s)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", view, len(got), len(want))
		}
		for i, w := range want {
			if (w == nil) != !got[i].Valid || w != nil && *w != got[i].String {
				t.Errorf("%s row %d: %+v, want %v", view, i, got[i], w)
			}
		}
	}
}
