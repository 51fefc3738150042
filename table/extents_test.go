package table

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/h5fs/h5fs/h5core"
)

// TestUnequalExtents opens tampered.h5's /bad_extent (column a of extent
// 100, b of 90) under several NROWS: the state of a table caught in an
// append between the extension of two columns (§11.2 steps 2-4), or left
// so by a producer that crashed there, which §11.2 says readers use
// without cleanup. With every extent at least NROWS the table opens with
// NROWS rows and a §12 error finding (a checker reports the unequal
// extents); a column shorter than NROWS is missing rows and refuses the
// table.
func TestUnequalExtents(t *testing.T) {
	for _, c := range []struct {
		nrows int64
		open  bool
	}{
		{90, true},
		{0, true},
		{37, true},
		{91, false},
		{100, false},
	} {
		t.Run("", func(t *testing.T) {
			name := copyFile(t, filepath.Join("testdata", "tampered.h5"))
			rw, err := h5core.OpenRW(name)
			if err != nil {
				t.Fatal(err)
			}
			defer rw.Close()
			tx, err := rw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.SetAttribute("/bad_extent", "NROWS", binary.LittleEndian.AppendUint64(nil, uint64(c.nrows))); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			tb, err := Open(rw.File(), "/bad_extent", Lenient)
			if !c.open {
				if err == nil || !strings.Contains(err.Error(), "< NROWS") {
					t.Fatalf("NROWS=%d over a column of 90 rows: opened (%v)", c.nrows, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NROWS=%d: %v", c.nrows, err)
			}
			if tb.NRows != c.nrows || len(tb.Columns) != 2 {
				t.Fatalf("NROWS=%d: %d rows, %d columns", c.nrows, tb.NRows, len(tb.Columns))
			}
			if !hasFinding(tb.Findings, SevError, "/bad_extent", "§12") {
				t.Errorf("no §12 finding for the unequal extents in %v", tb.Findings)
			}
			for _, col := range tb.Columns {
				a, err := col.Read(0, tb.NRows)
				if err != nil {
					t.Fatal(err)
				}
				v := a.(*array.Int32)
				for i := range v.Len() {
					if v.Value(i) != int32(i) {
						t.Fatalf("%s row %d = %d", col.Name, i, v.Value(i))
					}
				}
				a.Release()
				if _, err := col.Read(0, tb.NRows+1); err == nil {
					t.Errorf("%s: read past NROWS", col.Name)
				}
			}
		})
	}
}
