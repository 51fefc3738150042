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
		cells := oneColumnCells(t, checkView(t, v))
		a, _ := c.Read(0, c.Len())
		if len(cells) != a.Len()+1 {
			t.Fatalf("column %s: %d lines for %d rows", c.Field().Name, len(cells), a.Len())
		}
		for i := range a.Len() {
			want := cellText(t, a, i)
			if want == nil && !hasEmptyValue(a.DataType()) {
				want = new(string) // "", since a blank line would be skipped
			}
			if got := cells[i+1]; (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("column %s row %d: %v, want %v", c.Field().Name, i, quoted(got), quoted(want))
			}
		}
	}
}

// oneColumnCells returns the cells of a one-column CSV, the header
// first: nil for a blank line (a missing string), else the field as
// encoding/csv reads it (which would skip the blank lines).
func oneColumnCells(t *testing.T, b []byte) []*string {
	t.Helper()
	var out []*string
	for len(b) > 0 {
		if b[0] == '\n' {
			out, b = append(out, nil), b[1:]
			continue
		}
		r := csv.NewReader(bytes.NewReader(b))
		rec, err := r.Read()
		if err != nil || len(rec) != 1 {
			t.Fatalf("line %d: %v, %v", len(out)+1, rec, err)
		}
		out, b = append(out, &rec[0]), b[r.InputOffset():]
	}
	return out
}

// quoted shows a cell of oneColumnCells.
func quoted(s *string) string {
	if s == nil {
		return "(blank line)"
	}
	return strconv.Quote(*s)
}

// TestCSVOneColumnStrings: in a one-column CSV a missing string is a
// blank line and an empty string "", as in a table's CSV (an empty field
// and ""), both sized exactly and parsed back apart; a missing number is
// "" (no blank line for readers to skip).
func TestCSVOneColumnStrings(t *testing.T) {
	mem := memory.DefaultAllocator
	strs := array.NewStringBuilder(mem)
	strs.AppendValues([]string{"a", "", "", "", "", "b,c"}, []bool{true, true, false, true, false, true})
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	labels := array.NewStringBuilder(mem)
	labels.AppendValues([]string{"", "x"}, nil)
	idx := array.NewInt8Builder(mem)
	idx.AppendValues([]int8{1, 0, 0, 1}, []bool{true, true, false, true})
	nums := array.NewInt32Builder(mem)
	nums.AppendValues([]int32{1, 0, 2}, []bool{true, false, true})
	for _, c := range []struct {
		field arrow.Field
		arr   arrow.Array
		want  string
	}{
		{arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, strs.NewArray(), "s\na\n\"\"\n\n\"\"\n\n\"b,c\"\n"},
		{arrow.Field{Name: "cat", Type: dt, Nullable: true}, array.NewDictionaryArray(dt, idx.NewArray(), labels.NewArray()), "cat\nx\n\"\"\n\nx\n"},
		{arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, nums.NewArray(), "n\n1\n\"\"\n2\n"},
	} {
		tbl := &Table{Columns: []ColumnSource{&memColumn{field: c.field, arr: c.arr, chunkRows: 2}}}
		v, err := NewCSVView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(checkView(t, v)); got != c.want {
			t.Errorf("%s: %q, want %q", c.field.Name, got, c.want)
		}
		got := parseView(t, tbl, 3)[0]
		want := labelsOf(t, c.arr)
		if !array.Equal(got, want) {
			t.Errorf("%s: parsed back as %v, want %v", c.field.Name, got, want)
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
