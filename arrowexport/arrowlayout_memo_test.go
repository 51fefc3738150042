package arrowexport

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// int32Column is a non-nullable int32 column of the given values.
func int32Column(f arrow.Field, vals []int32) *memColumn {
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return &memColumn{field: f, arr: b.NewArray(), chunkRows: 7}
}

// TestArrowLayoutMemo makes Arrow views of tables that differ in one
// thing each from a first one: those of another shape get their own
// layout, those of the same shape (other values) share its layout, and
// every view's bytes are those of a one-shot writer of its own table.
func TestArrowLayoutMemo(t *testing.T) {
	vals := func(n int, add int32) []int32 {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(i)*3 + add
		}
		return v
	}
	field := arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Metadata: arrow.NewMetadata([]string{"units"}, []string{"m"})}
	renamed, other := field, field
	renamed.Name = "x\" type=int32"
	other.Metadata = arrow.NewMetadata([]string{"units"}, []string{"s"})
	wide := field
	wide.Type = arrow.PrimitiveTypes.Int64
	first := &Table{Columns: []ColumnSource{int32Column(field, vals(20, 0))}}
	for _, tc := range []struct {
		name  string
		tbl   *Table
		share bool
	}{
		{"same shape, other values", &Table{Columns: []ColumnSource{int32Column(field, vals(20, 1000))}}, true},
		{"other name", &Table{Columns: []ColumnSource{int32Column(renamed, vals(20, 0))}}, false},
		{"other metadata", &Table{Columns: []ColumnSource{int32Column(other, vals(20, 0))}}, false},
		{"other rows", &Table{Columns: []ColumnSource{int32Column(field, vals(21, 0))}}, false},
		{"other schema metadata", &Table{Columns: first.Columns, Metadata: map[string]string{"k": "v"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arrowLayouts = shapeMemo[*framedLayout]{}
			a, err := NewArrowView(first, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewArrowView(tc.tbl, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !a.Exact() || !b.Exact() {
				t.Fatal("fixed-width, non-nullable tables: layout not known at once")
			}
			if shared := a.(*framedView).lay == b.(*framedView).lay; shared != tc.share {
				t.Errorf("layout shared: %v, want %v", shared, tc.share)
			}
			for _, v := range []struct {
				v   View
				tbl *Table
			}{{a, first}, {b, tc.tbl}} {
				if got, want := checkView(t, v.v), oneShotArrow(t, v.tbl); !bytes.Equal(got, want) {
					t.Errorf("%d bytes differ from a one-shot writer's %d", len(got), len(want))
				}
			}
		})
	}
}

// TestParquetSizeByShape checks the premise of parquetShapeKey on tables
// of non-nullable integer and boolean columns whose values differ wildly
// (small and huge, positive and negative): one shape, one exact size; and
// that ParquetStatSize answers the second from the first.
func TestParquetSizeByShape(t *testing.T) {
	const rows = 2500
	table := func(seed int64) *Table {
		mem := memory.NewGoAllocator()
		i8 := array.NewInt8Builder(mem)
		i64 := array.NewInt64Builder(mem)
		u32 := array.NewUint32Builder(mem)
		b := array.NewBooleanBuilder(mem)
		for i := range int64(rows) {
			i8.Append(int8(i * seed))
			i64.Append(i * seed * seed * seed)
			u32.Append(uint32(i * seed * 7))
			b.Append((i*seed)%5 == 0)
		}
		col := func(name string, typ arrow.DataType, bld array.Builder) ColumnSource {
			return &memColumn{field: arrow.Field{Name: name, Type: typ}, arr: bld.NewArray(), chunkRows: 1000}
		}
		return &Table{Columns: []ColumnSource{
			col("a", arrow.PrimitiveTypes.Int8, i8), col("b", arrow.PrimitiveTypes.Int64, i64),
			col("c", arrow.PrimitiveTypes.Uint32, u32), col("d", arrow.FixedWidthTypes.Boolean, b),
		}}
	}
	parquetSizes = shapeMemo[int64]{}
	var sizes []int64
	for _, seed := range []int64{0, 1, -3, 1 << 20} {
		v, err := NewParquetView(table(seed), Options{})
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, int64(len(checkView(t, v))))
		limit := int64(0) // known by shape, or not at all
		if seed == 0 {
			limit = 1 << 30 // sized
		}
		size, exact, err := ParquetStatSize(table(seed), Options{}, limit)
		if err != nil || !exact || size != sizes[len(sizes)-1] {
			t.Errorf("seed %d: ParquetStatSize = %d, %v, %v; the view has %d bytes", seed, size, exact, err, sizes[len(sizes)-1])
		}
	}
	for _, s := range sizes[1:] {
		if s != sizes[0] {
			t.Errorf("one shape, sizes %v", sizes)
			break
		}
	}
}
