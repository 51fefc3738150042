package arrowexport

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvCells renders one column as CSV and returns its cells.
func csvCells(t *testing.T, f arrow.Field, a arrow.Array) []string {
	t.Helper()
	tbl := &Table{Columns: []ColumnSource{&memColumn{field: f, arr: a, chunkRows: 3}}}
	v, err := NewCSVView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(checkView(t, v))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs[1:] {
		out = append(out, r[0])
	}
	return out
}

// Float16 cells are exact, subnormals too (arrow-go's Float16.Float32
// scales subnormals wrongly: 2^-24 came out as 1.148e-41).
func TestCSVFloat16(t *testing.T) {
	bits := []uint16{0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3555, 0x7c00, 0xfc00, 0x7e00, 0x8000}
	want := []float64{math.Ldexp(1, -24), -math.Ldexp(1, -24), math.Ldexp(1023, -24), math.Ldexp(1, -14), 65504, -65504,
		0.333251953125, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1)}
	b := array.NewFloat16Builder(memory.DefaultAllocator)
	for _, x := range bits {
		b.Append(float16.FromBits(x))
	}
	a := b.NewArray()
	defer a.Release()
	for i, cell := range csvCells(t, arrow.Field{Name: "h", Type: arrow.FixedWidthTypes.Float16}, a) {
		got, err := strconv.ParseFloat(cell, 32) // the shortest text of a float32
		if err != nil || !(got == want[i] && math.Signbit(got) == math.Signbit(want[i]) || math.IsNaN(got) && math.IsNaN(want[i])) {
			t.Errorf("float16 %#04x: cell %q, want %v", bits[i], cell, want[i])
		}
	}
}

// Compound cells are JSON objects with the fields in declaration order;
// a float16 NaN field renders (arrow-go's ValueStr panicked on it and
// sorted the fields by name).
func TestCSVCompoundCells(t *testing.T) {
	st := arrow.StructOf(
		arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "a", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		arrow.Field{Name: "m", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "v", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Uint8), Nullable: true},
	)
	b := array.NewStructBuilder(memory.DefaultAllocator, st)
	defer b.Release()
	row := func(z int32, a uint16, m float32, s string) {
		b.Append(true)
		b.FieldBuilder(0).(*array.Int32Builder).Append(z)
		b.FieldBuilder(1).(*array.Float16Builder).Append(float16.FromBits(a))
		b.FieldBuilder(2).(*array.Float32Builder).Append(m)
		b.FieldBuilder(3).(*array.StringBuilder).Append(s)
		lb := b.FieldBuilder(4).(*array.FixedSizeListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Uint8Builder).AppendValues([]uint8{1, 2}, nil)
	}
	row(-3, 0x7e00, float32(math.Inf(1)), `say "hi", ok`)
	b.AppendNull()
	row(7, 0x0001, 0.1, "é")
	a := b.NewArray()
	defer a.Release()
	want := []string{
		`{"z":-3,"a":"NaN","m":"Infinity","s":"say \"hi\", ok","v":[1,2]}`,
		"",
		`{"z":7,"a":5.9604645e-08,"m":0.1,"s":"é","v":[1,2]}`,
	}
	got := csvCells(t, arrow.Field{Name: "c", Type: st, Nullable: true}, a)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// The size shown before the data pass bounds the CSV of compound, array
// and opaque columns (a 64-byte guess did not: a cell of 4 float64 fields
// takes more).
func TestCSVEstimateCompound(t *testing.T) {
	st := arrow.StructOf(
		arrow.Field{Name: `a "quoted" name`, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "h", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64), Nullable: true},
	)
	const n = 3000
	b := array.NewStructBuilder(memory.DefaultAllocator, st)
	defer b.Release()
	ob := array.NewFixedSizeBinaryBuilder(memory.DefaultAllocator, &arrow.FixedSizeBinaryType{ByteWidth: 61})
	defer ob.Release()
	for i := range n {
		b.Append(true)
		b.FieldBuilder(0).(*array.Float64Builder).Append(-1.2345678901234567e-300 * float64(i+1))
		b.FieldBuilder(1).(*array.Float16Builder).Append(float16.FromBits(0x0001))
		b.FieldBuilder(2).(*array.StringBuilder).Append(`"\"` + "\x01\x02\"")
		lb := b.FieldBuilder(3).(*array.FixedSizeListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Float64Builder).AppendValues([]float64{-math.MaxFloat64, math.SmallestNonzeroFloat64, -1e-310}, nil)
		ob.Append(bytes.Repeat([]byte{byte(i)}, 61))
	}
	for _, c := range []ColumnSource{
		rawMemColumn{&memColumn{field: arrow.Field{Name: "c", Type: st, Nullable: true}, arr: b.NewArray(), chunkRows: 100, elemSize: 8 + 2 + 6 + 24}},
		rawMemColumn{&memColumn{field: arrow.Field{Name: "o", Type: &arrow.FixedSizeBinaryType{ByteWidth: 61}}, arr: ob.NewArray(), chunkRows: 100, elemSize: 61}},
	} {
		v, err := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		est := v.Size()
		if got := int64(len(checkView(t, v))); got > est {
			t.Errorf("%s: estimate %d below the size %d", c.Field().Name, est, got)
		}
	}
}
