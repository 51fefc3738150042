package arrowexport

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// labelsOf returns a with every dictionary replaced by its labels: the
// form CSVParser gives.
func labelsOf(t *testing.T, a arrow.Array) arrow.Array {
	t.Helper()
	d, ok := a.(*array.Dictionary)
	if !ok {
		a.Retain()
		return a
	}
	idx := make([]int32, d.Len())
	valid := make([]bool, d.Len())
	for i := range idx {
		if valid[i] = d.IsValid(i) && d.Dictionary().IsValid(d.GetValueIndex(i)); valid[i] {
			idx[i] = int32(d.GetValueIndex(i))
		}
	}
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	defer ib.Release()
	ib.AppendValues(idx, valid)
	ia := ib.NewArray()
	defer ia.Release()
	out, err := takeLabels(d.Dictionary(), ia.(*array.Int32))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// takeLabels builds dict[idx[i]] (null where idx is null).
func takeLabels(dict arrow.Array, idx *array.Int32) (arrow.Array, error) {
	b := array.NewBuilder(memory.DefaultAllocator, dict.DataType())
	defer b.Release()
	for i := range idx.Len() {
		if idx.IsNull(i) {
			b.AppendNull()
			continue
		}
		if err := b.AppendValueFromString(dict.ValueStr(int(idx.Value(i)))); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// parseView renders tbl's CSV view and parses it back, fed in pieces of
// the given size.
func parseView(t *testing.T, tbl *Table, piece int) []arrow.Array {
	t.Helper()
	v, err := NewCSVView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := checkView(t, v)
	p, err := NewCSVParser(tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	for len(text) > 0 {
		k := min(piece, len(text))
		if err := p.Write(text[:k]); err != nil {
			t.Fatal(err)
		}
		text = text[k:]
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	arrs, _ := takeRows(t, p)
	return arrs
}

// takeRows returns the rows p parsed (NewBatches) as one array per
// column, and their lines.
func takeRows(t testing.TB, p *CSVParser) ([]arrow.Array, []int64) {
	t.Helper()
	bs := p.NewBatches()
	out := make([]arrow.Array, len(p.types))
	var lines []int64
	for j, typ := range p.types {
		var parts []arrow.Array
		for _, b := range bs {
			parts = append(parts, b.Arrays[j])
		}
		if len(parts) == 0 {
			bld := array.NewBuilder(memory.DefaultAllocator, typ)
			out[j] = bld.NewArray()
			bld.Release()
			continue
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		out[j] = a
	}
	for _, b := range bs {
		lines = append(lines, b.Lines...)
		for _, a := range b.Arrays {
			a.Release()
		}
	}
	return out, lines
}

// TestCSVParseRoundTrip: every line the CSV views of the test tables
// serve (every logical kind: compounds, opaque, float16, enums,
// categoricals, fixed and variable strings with quotes and line breaks,
// missing values, pandas timestamps) parses back to the values shown.
func TestCSVParseRoundTrip(t *testing.T) {
	cases := []struct{ file, path string }{
		{"../table/testdata/hep_tables.h5", "/run/events"},
		{"../table/testdata/hep_tables.h5", "/run/prealloc"},
		{"../table/testdata/hep_tables.h5", "/one"},
		{"../table/testdata/pandas.h5", "/frame/table"},
	}
	for _, tc := range cases {
		f, err := h5core.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		tt, err := table.Open(f, tc.path, table.Lenient)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		tbl := FromTable(tt)
		views := []*Table{tbl} // the table's and each column's (<col>.csv)
		for _, c := range tbl.Columns {
			views = append(views, &Table{Columns: []ColumnSource{c}})
		}
		for _, view := range views {
			for _, piece := range []int{1 << 20, 7} {
				got := parseView(t, view, piece)
				for j, c := range view.Columns {
					want, err := c.Read(0, c.Len())
					if err != nil {
						t.Fatal(err)
					}
					wl := labelsOf(t, want)
					if !array.Equal(wl, got[j]) && !sameText(wl, got[j]) {
						t.Errorf("%s:%s column %q of %d (piece %d):\n got %v\nwant %v", tc.file, tc.path, c.Field().Name, len(view.Columns), piece, got[j], wl)
					}
					wl.Release()
					want.Release()
					got[j].Release()
				}
			}
		}
		f.Close()
	}
}

// sameText compares arrays by their values' text: NaNs, which
// array.Equal never finds equal, compare as text.
func sameText(a, b arrow.Array) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) || (a.IsValid(i) && a.ValueStr(i) != b.ValueStr(i)) {
			return false
		}
	}
	return true
}

// emptyTable returns a table of columns of the given fields and no rows:
// what a parser needs.
func emptyTable(fields []arrow.Field) *Table {
	tbl := &Table{}
	for _, f := range fields {
		b := array.NewBuilder(memory.DefaultAllocator, f.Type)
		tbl.Columns = append(tbl.Columns, &memColumn{field: f, arr: b.NewArray(), chunkRows: 4})
		b.Release()
	}
	return tbl
}

// TestCSVParseErrors: a malformed line is refused with its line and
// column named.
func TestCSVParseErrors(t *testing.T) {
	fields := []arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	tbl := emptyTable(fields)
	cases := []struct {
		text, want string
	}{
		{"1,2,x\n", ""},
		{"i8,f,s\n1,nan,\"a,\"\"b\"\"\nc\"\n-2,-inf,\n", ""},
		{"1,2\n", `line 1: 2 fields, the table has 3 columns`},
		{"1,2,x\n128,2,x\n", `line 2, column "i8": 128 is outside the range of int8`},
		{"1,1e39,x\n", `line 1, column "f": 1e39 is outside the range of float`},
		{"1,abc,x\n", `line 1, column "f": "abc" is not a float`},
		{"1,2,\"x\n", `line 1: field 3: quote not closed`},
		{"1,2,x\"y\n", `line 1: field 3: quote inside an unquoted field`},
		{"1,2,\"x\"y\n", `line 1: field 3: text after the closing quote`},
		{"i8,f,s\ni8,f,s\n", `line 2, column "i8": "i8" is not a int8`},
	}
	for _, tc := range cases {
		p, err := NewCSVParser(tbl)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Write([]byte(tc.text))
		if err == nil {
			err = p.Flush()
		}
		var ce *CSVError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.want != "" && (err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
		p.Release()
	}
}

// FuzzCSVParser: no input makes the parser panic, and what it accepts
// has whole rows in every column.
func FuzzCSVParser(f *testing.F) {
	fields := []arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "h", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
			arrow.Field{Name: "b", Type: &arrow.FixedSizeBinaryType{ByteWidth: 2}, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.FixedSizeListOf(2, arrow.FixedWidthTypes.Boolean), Nullable: true},
	}
	tbl := emptyTable(fields)
	f.Add([]byte("i,h,l\n1,\"{\"\"x\"\":\"\"NaN\"\",\"\"b\"\":\"\"AAE=\"\"}\",\"[true,false]\"\n,,\n"))
	f.Add([]byte("-5,null,[null,true]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := NewCSVParser(tbl)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release()
		if p.Write(b) != nil || p.Flush() != nil {
			return
		}
		rows := p.Rows()
		arrs, lines := takeRows(t, p)
		if len(lines) != rows {
			t.Fatalf("%d rows parsed, %d line numbers", rows, len(lines))
		}
		for _, a := range arrs {
			if a.Len() != rows {
				t.Fatalf("%d rows parsed, a column has %d", rows, a.Len())
			}
			a.Release()
		}
	})
}

// BenchmarkCSVParser parses the lines of P6's table (bench/append_bench.sh):
// int64, float64, int32, float32 and uint8 columns.
func BenchmarkCSVParser(b *testing.B) {
	fields := []arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "e", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
	}
	tbl := emptyTable(fields)
	// values as bench/append_bench_gen.py writes them
	rng := rand.New(rand.NewPCG(6, 6))
	var text []byte
	for i := range 10000 {
		b := math.Round(rng.NormFloat64()*1e6) / 1e6
		d := float32(math.Round(rng.NormFloat64()*1e3) / 1e3)
		text = fmt.Appendf(text, "%d,%s,%d,%s,%d\n", i*7, strconv.FormatFloat(b, 'g', -1, 64), rng.Int32N(2e9)-1e9,
			strconv.FormatFloat(float64(d), 'f', -1, 32), rng.IntN(200))
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := NewCSVParser(tbl)
		if err != nil {
			b.Fatal(err)
		}
		for s := text; len(s) > 0; {
			k := min(128<<10, len(s))
			if err := p.Write(s[:k]); err != nil {
				b.Fatal(err)
			}
			s = s[k:]
			for _, bt := range p.NewBatches() {
				for _, a := range bt.Arrays {
					a.Release()
				}
			}
		}
		p.Release()
	}
}

// parseBoth parses text on one lane, fed in pieces of 3 bytes, and on
// four lanes of at least 1 byte, in one Write: the rows, their lines
// and the error must be the same. It returns the error's text.
func parseBoth(t *testing.T, tbl *Table, text []byte) string {
	t.Helper()
	type result struct {
		arrs  []arrow.Array
		lines []int64
		err   string
	}
	run := func(lanes, minLane, piece int) result {
		p, err := NewCSVParser(tbl)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release()
		p.lanes, p.minLane = make([]*csvLane, lanes), minLane
		var r result
		for s := text; len(s) > 0 && err == nil; {
			k := min(piece, len(s))
			err, s = p.Write(s[:k]), s[k:]
		}
		if err == nil {
			err = p.Flush()
		}
		if err != nil {
			r.err = err.Error()
		}
		r.arrs, r.lines = takeRows(t, p)
		return r
	}
	one, four := run(1, minLaneBytes, 3), run(4, 1, len(text))
	defer func() {
		for j := range one.arrs {
			one.arrs[j].Release()
			four.arrs[j].Release()
		}
	}()
	if one.err != four.err {
		t.Fatalf("%q: error on one lane %q, on four %q", text, one.err, four.err)
	}
	if one.err != "" {
		return one.err // the rows before a bad line are not taken
	}
	if fmt.Sprint(one.lines) != fmt.Sprint(four.lines) {
		t.Fatalf("%q: lines on one lane %v, on four %v", text, one.lines, four.lines)
	}
	for j := range one.arrs {
		if !sameText(one.arrs[j], four.arrs[j]) {
			t.Fatalf("%q: column %d on one lane %v, on four %v", text, j, one.arrs[j], four.arrs[j])
		}
	}
	return ""
}

// laneFields are the columns of the lane tests: a string column takes
// quoted fields with commas, quotes and line ends.
var laneFields = []arrow.Field{
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
}

// TestCSVParseLanes: lines parsed on several lanes at once give the rows,
// line numbers and errors of one lane, wherever the runs are split —
// inside quoted fields that hold line ends too.
func TestCSVParseLanes(t *testing.T) {
	tbl := emptyTable(laneFields)
	var text []byte
	for i := range 3000 {
		switch i % 7 {
		case 0:
			text = fmt.Appendf(text, "%d,\"a\nb,\"\"c\"\"\n\",%g\n", i, float32(i)/3)
		case 3:
			text = fmt.Appendf(text, "%d,,\r\n", i)
		default:
			text = fmt.Appendf(text, "%d,x%d,%d.5\n", i, i, i)
		}
	}
	for _, ok := range [][]byte{append([]byte("i,s,f\n"), text...), text[:len(text)-1]} { // header; no last line end
		if err := parseBoth(t, tbl, ok); err != "" {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"1,2\n", "x,y,z\n", "1,\"open,2\n", "1,a\"b,2\n"} {
		at := len(text) * 2 / 3
		at += bytes.IndexByte(text[at:], '\n') + 1
		for text[at-2] == '"' || text[at-2] == '\n' { // not inside a quoted field
			at += bytes.IndexByte(text[at:], '\n') + 1
		}
		line := 1 // of the bad one
		for b := text[:at]; len(b) > 0; line++ {
			b = b[lineEnd(b, false)+1:]
		}
		err := parseBoth(t, tbl, append(append(append([]byte(nil), text[:at]...), bad...), text[at:]...))
		if want := fmt.Sprintf("line %d", line); !strings.HasPrefix(err, want) {
			t.Errorf("inserting %q: error %q, want one at %s", bad, err, want)
		}
	}
}

// FuzzCSVParseLanes: any input parses on several lanes as on one.
func FuzzCSVParseLanes(f *testing.F) {
	tbl := emptyTable(laneFields)
	f.Add([]byte("i,s,f\n1,\"a\n\"\"b\",2\n3,,\n4,x,nan\n"))
	f.Add([]byte("1,\"\n\n\",1\n2,\"\",\r\n3,y"))
	f.Add([]byte("1,2\n\"\n1,a,1\n"))
	f.Fuzz(func(t *testing.T, b []byte) { _ = parseBoth(t, tbl, b) })
}
