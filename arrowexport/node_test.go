package arrowexport

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// TestArrowNode reads the Arrow view of the HEP001 test table with npm's
// apache-arrow, a second implementation. It runs when NODE_PATH names a
// node_modules directory holding apache-arrow (for example after
// `npm install apache-arrow@21` in a temporary directory).
func TestArrowNode(t *testing.T) {
	mods := os.Getenv("NODE_PATH")
	if _, err := os.Stat(filepath.Join(mods, "apache-arrow")); mods == "" || err != nil {
		t.Skip("NODE_PATH has no apache-arrow")
	}
	f, err := h5core.Open("testdata/datasets.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tt, err := table.Open(f, "/events", table.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	tbl := FromTable(tt)
	v, err := NewArrowView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "events.arrow")
	if err := os.WriteFile(p, checkView(t, v), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", "testdata/check_arrow.js", p).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Rows, Batches int
		Cols          []struct {
			Name   string
			Nulls  int
			Values []*string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	_, unit, _ := checkTable(tbl)
	if int64(got.Rows) != tt.NRows || got.Batches != numUnits(tt.NRows, unit) || len(got.Cols) != len(tbl.Columns) {
		t.Fatalf("node read %d rows in %d batches, %d columns", got.Rows, got.Batches, len(got.Cols))
	}
	for j, c := range tbl.Columns {
		a, err := c.Read(0, tt.NRows)
		if err != nil {
			t.Fatal(err)
		}
		gc := got.Cols[j]
		if gc.Name != c.Field().Name || gc.Nulls != a.NullN() {
			t.Fatalf("column %s: node sees %s with %d nulls, want %d", c.Field().Name, gc.Name, gc.Nulls, a.NullN())
		}
		for i, s := range gc.Values {
			if (s == nil) != a.IsNull(i) {
				t.Fatalf("column %s row %d: node null %v", gc.Name, i, s == nil)
			}
			if s == nil {
				continue
			}
			want := *s
			switch a := a.(type) {
			case *array.Dictionary:
				want = a.Dictionary().ValueStr(a.GetValueIndex(i))
			case *array.String, *array.Int64, *array.Uint16:
				want = a.ValueStr(i)
			}
			if *s != want {
				t.Fatalf("column %s row %d: node reads %q, want %q", gc.Name, i, *s, want)
			}
		}
		a.Release()
	}
}
