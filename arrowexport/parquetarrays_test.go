package arrowexport

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Array columns (fixed-size lists) with missing rows, and compound
// columns with float16 fields and missing rows, write to Parquet and
// read back: arrow-go refused the first ("lists with non-zero length
// null components") and shifted the float16 values of the second.
func TestParquetListsAndStructNulls(t *testing.T) {
	const n = 50
	lb := array.NewFixedSizeListBuilder(memory.DefaultAllocator, 3, arrow.PrimitiveTypes.Int32)
	st := arrow.StructOf(
		arrow.Field{Name: "h", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Uint8), Nullable: true},
	)
	sb := array.NewStructBuilder(memory.DefaultAllocator, st)
	for i := range n {
		// missing rows hold values too, as HDF5 fill values do
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(i), -int32(i), 7}, nil)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Float16Builder).Append(float16.New(float32(i)))
		sb.FieldBuilder(1).(*array.Int64Builder).Append(int64(i) * 1000)
		sl := sb.FieldBuilder(2).(*array.FixedSizeListBuilder)
		sl.Append(true)
		sl.ValueBuilder().(*array.Uint8Builder).AppendValues([]uint8{uint8(i), 9}, nil)
	}
	valid := make([]bool, n)
	for i := range valid {
		valid[i] = i%3 != 1
	}
	lists := withValidity(lb.NewArray(), valid)
	structs := withValidity(sb.NewArray(), valid)
	defer lists.Release()
	defer structs.Release()
	tbl := &Table{Columns: []ColumnSource{
		&memColumn{field: arrow.Field{Name: "list", Type: lists.DataType(), Nullable: true}, arr: lists, chunkRows: 16},
		&memColumn{field: arrow.Field{Name: "compound", Type: st, Nullable: true}, arr: structs, chunkRows: 16},
	}}
	v, err := NewParquetView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := checkView(t, v)
	got, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(b), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.NumRows() != n {
		t.Fatalf("%d rows, want %d", got.NumRows(), n)
	}
	gl := got.Column(0).Data().Chunk(0).(*array.List)
	gs := got.Column(1).Data().Chunk(0).(*array.Struct)
	for i := range n {
		if gl.IsNull(i) != !valid[i] || gs.IsNull(i) != !valid[i] {
			t.Fatalf("row %d: null %v/%v, want %v", i, gl.IsNull(i), gs.IsNull(i), !valid[i])
		}
		if !valid[i] {
			continue
		}
		lo, hi := gl.ValueOffsets(i)
		vals := gl.ListValues().(*array.Int32)
		if hi-lo != 3 || vals.Value(int(lo)) != int32(i) || vals.Value(int(lo)+1) != -int32(i) || vals.Value(int(lo)+2) != 7 {
			t.Errorf("row %d: list %s", i, gl.ValueStr(i))
		}
		h := gs.Field(0).(*array.Float16).Value(i).Float32()
		x := gs.Field(1).(*array.Int64).Value(i)
		inner := gs.Field(2).(*array.List)
		ilo, _ := inner.ValueOffsets(i)
		if h != float32(i) || x != int64(i)*1000 || inner.ListValues().(*array.Uint8).Value(int(ilo)) != uint8(i) {
			t.Errorf("row %d: struct %s", i, gs.ValueStr(i))
		}
	}
}

// withValidity returns a with the given row validity.
func withValidity(a arrow.Array, valid []bool) arrow.Array {
	defer a.Release()
	d := a.Data()
	nulls := 0
	for _, v := range valid {
		if !v {
			nulls++
		}
	}
	nulled := make([]bool, len(valid))
	for i, v := range valid {
		nulled[i] = !v
	}
	bufs := append([]*memory.Buffer{validityOf(nulled, 0)}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), d.Len(), bufs, d.Children(), nulls, 0)
	defer nd.Release()
	return array.MakeFromData(nd)
}

// The size shown before the data pass bounds the file, for 8- and 16-bit
// integers too, which Parquet stores as 4-byte INT32 values (the estimate
// counted their Arrow width).
func TestParquetEstimateNarrowInts(t *testing.T) {
	const n = 100000
	b8 := array.NewUint8Builder(memory.DefaultAllocator)
	b16 := array.NewInt16Builder(memory.DefaultAllocator)
	for i := range n {
		b8.Append(uint8(i * 7))
		b16.Append(int16(i * 13))
	}
	u8, i16 := b8.NewArray(), b16.NewArray()
	defer u8.Release()
	defer i16.Release()
	tbl := &Table{Columns: []ColumnSource{
		&memColumn{field: arrow.Field{Name: "u8", Type: u8.DataType(), Nullable: true}, arr: u8, chunkRows: 1},
		&memColumn{field: arrow.Field{Name: "i16", Type: i16.DataType(), Nullable: true}, arr: i16, chunkRows: n},
	}}
	v, err := NewParquetView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	est := v.Size()
	if b := checkView(t, v); int64(len(b)) > est {
		t.Errorf("estimate %d below the size %d", est, len(b))
	}
}
