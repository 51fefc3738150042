package arrowexport

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// cellText is what the CSV must hold for row i of a (nil for missing).
func cellText(t *testing.T, a arrow.Array, i int) *string {
	if a.IsNull(i) {
		return nil
	}
	var s string
	switch a := a.(type) {
	case *array.Int64:
		s = strconv.FormatInt(a.Value(i), 10)
	case *array.Uint16:
		s = strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Float64:
		s = string(appendFloat(nil, a.Value(i), 64))
	case *array.Float32:
		s = string(appendFloat(nil, float64(a.Value(i)), 32))
	case *array.Boolean:
		s = strconv.FormatBool(a.Value(i))
	case *array.String:
		s = a.Value(i)
	case *array.Dictionary:
		s = a.Dictionary().(*array.String).Value(a.GetValueIndex(i))
	default:
		t.Fatalf("no expectation for %T", a)
	}
	return &s
}

func TestCSVTable(t *testing.T) {
	for _, rows := range []int{0, 1, 10007} {
		tbl, _ := testTable(rows)
		v, err := NewCSVView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := checkView(t, v)
		r := csv.NewReader(bytes.NewReader(b))
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != rows+1 {
			t.Fatalf("%d records, want %d", len(recs), rows+1)
		}
		for j, c := range tbl.Columns {
			if recs[0][j] != c.Field().Name {
				t.Fatalf("header %q, want %q", recs[0][j], c.Field().Name)
			}
			a, _ := c.Read(0, int64(rows))
			for i := range rows {
				got, want := recs[i+1][j], cellText(t, a, i)
				if want == nil && got != "" || want != nil && got != *want {
					t.Fatalf("row %d column %s: %q, want %v", i, c.Field().Name, got, want)
				}
			}
		}
		// unquoted empty fields are missing; a quoted empty field is an
		// empty string
		if rows > 100 && !bytes.Contains(b, []byte(`,"",`)) {
			t.Errorf("no quoted empty string")
		}
	}
}

func TestCSVEstimateIsUpperBound(t *testing.T) {
	// numbers and fixed-width strings have bounded widths
	_, cols := testTable(5000)
	extreme := &memColumn{field: arrow.Field{Name: "e", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, chunkRows: 100}
	b := array.NewFloat64Builder(memory.NewGoAllocator())
	for i := range 5000 {
		b.Append(-math.SmallestNonzeroFloat64 * float64(i%3+1) * 1e17)
	}
	extreme.arr = b.NewArray()
	tbl := &Table{Columns: []ColumnSource{cols["id"], cols["x"], cols["f32"], cols["flag"], cols["u16"], extreme}}
	v, err := NewCSVView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	est := v.Size()
	if err := v.Finalize(); err != nil {
		t.Fatal(err)
	}
	if v.Size() > est {
		t.Fatalf("estimate %d below exact size %d", est, v.Size())
	}
}

func TestCSVOneColumnMissing(t *testing.T) {
	_, cols := testTable(100)
	v, err := NewCSVView(&Table{Columns: []ColumnSource{cols["x"]}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := checkView(t, v)
	if bytes.Contains(b, []byte("\n\n")) {
		t.Fatalf("blank line in a one-column CSV")
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) != 101 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if recs[4][0] != "" {
		t.Fatalf("row 3 (missing) reads %q", recs[4][0])
	}
}

// TestCSVEachColumn checks the one-column view of every kind of column
// (floats with nulls and special values, float32, categoricals, strings)
// over several blocks: the sizing pass measures without rendering what it
// can, and must agree with the rendered bytes.
func TestCSVEachColumn(t *testing.T) {
	tbl, _ := testTable(3*csvBlockRows + 17)
	for _, c := range tbl.Columns {
		v, err := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(checkView(t, v))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		a, _ := c.Read(0, c.Len())
		if len(recs) != a.Len()+1 {
			t.Fatalf("column %s: %d records for %d rows", c.Field().Name, len(recs), a.Len())
		}
		for i := range a.Len() {
			want := ""
			if s := cellText(t, a, i); s != nil {
				want = *s
			}
			if recs[i+1][0] != want {
				t.Fatalf("column %s row %d: %q, want %q", c.Field().Name, i, recs[i+1][0], want)
			}
		}
	}
}

func TestCSVCache(t *testing.T) {
	dir := t.TempDir()
	cache, err := NewCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl, cols := testTable(3000)
	opts := Options{Cache: cache, Key: FileID{Path: "/x.h5", Size: 1}.Key("/t")}
	v, _ := NewCSVView(tbl, opts)
	first := checkView(t, v)
	reads := cols["x"].reads.Load()

	v2, _ := NewCSVView(tbl, opts)
	if !v2.Exact() || v2.Size() != int64(len(first)) {
		t.Fatalf("cached view: exact %v size %d, want %d", v2.Exact(), v2.Size(), len(first))
	}
	if err := v2.Finalize(); err != nil || cols["x"].reads.Load() != reads {
		t.Fatalf("Finalize with a cached layout read data (%v)", err)
	}
	// another file identity misses the cache
	v3, _ := NewCSVView(tbl, Options{Cache: cache, Key: FileID{Path: "/x.h5", Size: 2}.Key("/t")})
	if v3.Exact() {
		t.Fatalf("a changed file hit the cache")
	}
}
