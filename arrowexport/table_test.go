package arrowexport

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var labels = []string{"alpha", "b,c", `q"uote`, ""}

// testTable builds a table of rows rows whose columns cover the types the
// renderers handle, with nulls, special floats and awkward strings.
func testTable(rows int) (*Table, map[string]*memColumn) {
	mem := memory.NewGoAllocator()
	md := func(units string) arrow.Metadata {
		return arrow.NewMetadata([]string{"units", "hdf5_type"}, []string{units, "test"})
	}
	cols := map[string]*memColumn{}
	var order []ColumnSource
	add := func(name string, typ arrow.DataType, nullable bool, chunk int64, b array.Builder, es int, raw []byte) *memColumn {
		a := b.NewArray()
		c := &memColumn{field: arrow.Field{Name: name, Type: typ, Nullable: nullable, Metadata: md("m")}, arr: a, chunkRows: chunk, raw: raw, elemSize: es}
		cols[name] = c
		if raw != nil {
			order = append(order, rawMemColumn{c})
		} else {
			order = append(order, c)
		}
		return c
	}

	ib := array.NewInt64Builder(mem)
	var iraw []byte
	for i := range rows {
		ib.Append(int64(i) * 1000003)
		iraw = binary.LittleEndian.AppendUint64(iraw, uint64(int64(i)*1000003))
	}
	add("id", arrow.PrimitiveTypes.Int64, false, 1000, ib, 8, iraw)

	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e-300, 5e-324, math.MaxFloat64, 0.1}
	fb := array.NewFloat64Builder(mem)
	for i := range rows {
		switch {
		case i%7 == 3:
			fb.AppendNull()
		case i%11 == 5:
			fb.Append(specials[i%len(specials)])
		default:
			fb.Append(math.Sin(float64(i)) * math.Pow(10, float64(i%40-20)))
		}
	}
	add("x", arrow.PrimitiveTypes.Float64, true, 1000, fb, 0, nil)

	f32 := array.NewFloat32Builder(mem)
	for i := range rows {
		f32.Append(float32(i) / 3)
	}
	add("f32", arrow.PrimitiveTypes.Float32, true, 500, f32, 0, nil)

	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	dict := array.NewStringBuilder(mem)
	dict.AppendValues(labels, nil)
	dictArr := dict.NewArray()
	idx := array.NewInt8Builder(mem)
	for i := range rows {
		if i%13 == 0 {
			idx.AppendNull()
		} else {
			idx.Append(int8(i % len(labels)))
		}
	}
	idxArr := idx.NewArray()
	lc := &memColumn{field: arrow.Field{Name: "label", Type: dt, Nullable: true}, arr: array.NewDictionaryArray(dt, idxArr, dictArr), chunkRows: 2000}
	cols["label"] = lc
	order = append(order, lc)

	sb := array.NewStringBuilder(mem)
	words := []string{"plain", "with,comma", `with "quotes"`, "line\nbreak", "", "héllo", " spaced ", "cr\r"}
	for i := range rows {
		if i%17 == 1 {
			sb.AppendNull()
		} else {
			sb.Append(fmt.Sprintf("%s%d", words[i%len(words)], i%3))
		}
	}
	add("s", arrow.BinaryTypes.String, true, 1000, sb, 0, nil)

	bb := array.NewBooleanBuilder(mem)
	for i := range rows {
		bb.Append(i%3 == 0)
	}
	add("flag", arrow.FixedWidthTypes.Boolean, true, 1000, bb, 0, nil)

	ub := array.NewUint16Builder(mem)
	var uraw []byte
	for i := range rows {
		ub.Append(uint16(i * 7))
		uraw = binary.LittleEndian.AppendUint16(uraw, uint16(i*7))
	}
	add("u16", arrow.PrimitiveTypes.Uint16, true, 250, ub, 2, uraw)

	return &Table{Columns: order, Metadata: map[string]string{"CLASS": "TABLE"}}, cols
}

// fixedTable is a table whose Arrow size is known from metadata: fixed
// width columns, null counts from ChunkStats or non-nullable fields.
func fixedTable(rows int) *Table {
	_, cols := testTable(rows)
	return &Table{Columns: []ColumnSource{
		cols["id"], withStats(cols["x"]), withStats(cols["f32"]), withStats(cols["label"]),
		withStats(cols["flag"]), withStats(cols["u16"]),
	}}
}

func TestUnitRows(t *testing.T) {
	c := func(r int64) ColumnSource {
		return &memColumn{chunkRows: r, field: arrow.Field{Type: arrow.PrimitiveTypes.Int8}}
	}
	wide := func(r int64) []ColumnSource { // 64 bytes a row: 524288 rows in maxUnitBytes
		var cols []ColumnSource
		for range 8 {
			cols = append(cols, &memColumn{chunkRows: r, field: arrow.Field{Type: arrow.FixedWidthTypes.Timestamp_ns}})
		}
		return cols
	}
	for _, tc := range []struct {
		cols []ColumnSource
		want int64
	}{
		{[]ColumnSource{c(1000), c(500), c(2000)}, 2000},
		{[]ColumnSource{c(3), c(4)}, 12},
		{[]ColumnSource{c(1 << 22)}, maxUnitRows},
		{[]ColumnSource{c(999983), c(1000003)}, 1000003},
		{[]ColumnSource{c(0)}, 1},
		{wide(1 << 20), 1 << 19},
		{wide(999983), maxUnitBytes / 64}, // prime: not aligned
		{wide(1000000), 500000},
	} {
		if got := unitRows(tc.cols); got != tc.want {
			t.Errorf("unitRows = %d, want %d", got, tc.want)
		}
	}
}
